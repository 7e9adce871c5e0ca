// Internal: the server the gate spawns. It is started with
// `node:child_process`, whose pipes are polled on the event loop: a
// `Deno.Command` child's stdin and stdout streams go through a blocking
// thread pool, which costs the gate about twice the CPU per message (see
// stdio/_fd_pipe.ts and bench/relay_floor.ts). The gate sees the shape of a
// Deno child (pid, status and kill) and speaks to it through a transport
// of parsed messages: a StdioTransport over its pipes.
//
// The server must not outlive the gate, even a gate killed with SIGKILL,
// which runs no code of its own. Deno offers no parent-death signal
// (prctl), so on POSIX the server runs in a process group of its own, which
// the gate signals (children of the server included), and a watchdog, a
// `/bin/sh` that waits for EOF on a pipe only the gate holds, kills that
// group with SIGKILL when the gate dies however it dies. A well-behaved
// server also sees its stdin close then; the watchdog is for one that
// ignores EOF and SIGTERM.

import { type ChildProcess, spawn } from "node:child_process";
import { constants } from "node:os";
import process from "node:process";
import type { MessageTransport } from "../../jsonrpc/_message_channel.ts";
import { StdioTransport } from "../../stdio/mod.ts";
import {
  pipeReadable,
  pipeWritable,
  socketSink,
  socketSource,
} from "../../stdio/_fd_pipe.ts";

/**
 * A running server as the gate sees it: a process it spawned, or a remote
 * server (upstream/_http_server.ts), or a fake one in a test.
 */
export interface ServerProcess {
  /** The server's process id (0 when it is not a process of the gate's). */
  readonly pid: number;
  /**
   * The server's messages both ways, parsed. Closing it stops the reading
   * and leaves the server's input open (`closeStdin` closes that).
   */
  readonly transport: MessageTransport;
  /** Closes the server's input, after what was sent before: its EOF. */
  closeStdin(): Promise<void>;
  /** Resolves when the server exits, as `Deno.ChildProcess.status` does. */
  readonly status: Promise<Deno.CommandStatus>;
  /** Sends `signal` to the server (and its process group); a server that has exited is left alone. */
  kill(signal: Deno.Signal): void;
  /**
   * Once the server has exited: kills what is left of its process group
   * and stops the watchdog.
   */
  dispose(): void;
}

/** A server the gate spawned, with the pipes its transport speaks on. */
export interface SpawnedServer extends ServerProcess {
  /** What the server writes on its stdout. */
  readonly stdout: ReadableStream<Uint8Array>;
  /**
   * Writes to the server's stdin, each write resolving once its bytes are
   * passed on; closing this stream does not close stdin (`closeStdin` does).
   */
  readonly stdin: WritableStream<Uint8Array>;
}

/**
 * The watchdog: `$0` is the server's process group. `read` returns at EOF,
 * when the gate's end of the pipe closes (the gate exited or was killed);
 * the signals a terminal or a host sends the gate's group are ignored, so
 * that only the gate's death ends it.
 */
const WATCHDOG = 'trap "" INT TERM HUP; read _; kill -9 -"$0" 2>/dev/null';

/**
 * Spawns `command` with piped stdin and stdout and the gate's stderr, with
 * `env` added to the gate's environment (or, with `replaceEnv`, as the
 * whole environment: a sandboxed server's).
 *
 * @throws {Deno.errors.NotFound} When the program does not exist.
 * @throws {Error} When it cannot be started for another reason.
 */
export async function spawnServer(
  command: readonly string[],
  env: Record<string, string> | undefined,
  options: { replaceEnv?: boolean } = {},
): Promise<SpawnedServer> {
  const group = Deno.build.os !== "windows";
  const child = spawn(command[0], command.slice(1), {
    // spawn() replaces the environment; Deno.Command (and the gate's
    // documented `env`) adds to it.
    env: env === undefined
      ? undefined
      : options.replaceEnv
      ? env
      : { ...Deno.env.toObject(), ...env },
    stdio: ["pipe", "pipe", "inherit"],
    // Its own process group (setsid), led by the server.
    detached: group,
  });
  const status = new Promise<Deno.CommandStatus>((resolve) => {
    child.once("exit", (code: number | null, signal: string | null) => {
      resolve(commandStatus(code, signal));
    });
  });
  if (child.pid === undefined) {
    // Spawning failed; the reason comes as an event.
    const error = await new Promise<Error & { code?: string }>((resolve) =>
      child.once("error", resolve)
    );
    if (error.code === "ENOENT") throw new Deno.errors.NotFound(error.message);
    throw error;
  }
  // Failures once it runs (a kill that races its exit) show in its status.
  child.on("error", () => {});
  const pid = child.pid;
  const watchdog = group ? startWatchdog(pid) : undefined;
  const signalGroup = (signal: Deno.Signal) => {
    try {
      process.kill(-pid, signal as NodeJS.Signals);
    } catch {
      // The group is gone.
    }
  };
  const stdin = child.stdin!;
  const stdout = child.stdout!;
  let closing: Promise<void> | undefined;
  const pipes = {
    stdout: pipeReadable(socketSource(stdout)),
    stdin: pipeWritable(socketSink(stdin)),
  };
  return {
    pid,
    ...pipes,
    // Closing it releases the pipes and leaves the server's stdin open:
    // the gate closes that itself (closeStdin).
    transport: new StdioTransport({
      readable: pipes.stdout,
      writable: pipes.stdin,
    }),
    closeStdin() {
      closing ??= new Promise<void>((resolve) => {
        if (stdin.writableEnded || stdin.destroyed) {
          resolve();
          return;
        }
        // A server that has gone does not take its EOF.
        stdin.once("error", () => resolve());
        stdin.once("close", () => resolve());
        stdin.end(() => resolve());
      });
      return closing;
    },
    status,
    kill(signal) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (group) signalGroup(signal);
      else child.kill(signal as NodeJS.Signals);
    },
    dispose() {
      // Left over from the server: its children, if any.
      if (group) signalGroup("SIGKILL");
      watchdog?.kill("SIGKILL");
    },
  };
}

/** Starts the watchdog of the process group `pgid`. */
function startWatchdog(pgid: number): ChildProcess {
  const watchdog = spawn("/bin/sh", ["-c", WATCHDOG, String(pgid)], {
    stdio: ["pipe", "ignore", "ignore"],
  });
  // Without /bin/sh the gate still signals the group on every exit path
  // it runs.
  watchdog.on("error", () => {});
  // It must not keep a host that embeds the gate alive.
  watchdog.unref();
  return watchdog;
}

/** Node's exit report as Deno's: a signal is code 128 + its number. */
function commandStatus(
  code: number | null,
  signal: string | null,
): Deno.CommandStatus {
  if (signal === null) {
    const exit = code ?? 1;
    return { success: exit === 0, code: exit, signal: null };
  }
  const number = (constants.signals as Record<string, number>)[signal] ?? 0;
  return { success: false, code: 128 + number, signal: signal as Deno.Signal };
}
