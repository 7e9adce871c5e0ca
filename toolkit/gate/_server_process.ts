// Internal: the server the gate spawns. It is started with
// `node:child_process`, whose pipes are polled on the event loop: a
// `Deno.Command` child's stdin and stdout streams go through a blocking
// thread pool, which costs the gate about twice the CPU per message (see
// stdio/_fd_pipe.ts and bench/relay_floor.ts). The gate sees the shape of a
// Deno child: pid, stdout, status and kill.

import { spawn } from "node:child_process";
import { constants } from "node:os";
import {
  pipeReadable,
  pipeWritable,
  socketSink,
  socketSource,
} from "../stdio/_fd_pipe.ts";

/** A running server and its pipes. */
export interface ServerProcess {
  /** The server's process id. */
  readonly pid: number;
  /** What the server writes on its stdout. */
  readonly stdout: ReadableStream<Uint8Array>;
  /**
   * Writes to the server's stdin, each write resolving once its bytes are
   * passed on; closing this stream does not close stdin (`closeStdin` does).
   */
  readonly stdin: WritableStream<Uint8Array>;
  /** Closes the server's stdin, after what was written before: its EOF. */
  closeStdin(): Promise<void>;
  /** Resolves when the server exits, as `Deno.ChildProcess.status` does. */
  readonly status: Promise<Deno.CommandStatus>;
  /** Sends `signal`; a server that has exited is left alone. */
  kill(signal: Deno.Signal): void;
}

/**
 * Spawns `command` with piped stdin and stdout and the gate's stderr, with
 * `env` added to the gate's environment.
 *
 * @throws {Deno.errors.NotFound} When the program does not exist.
 * @throws {Error} When it cannot be started for another reason.
 */
export async function spawnServer(
  command: readonly string[],
  env: Record<string, string> | undefined,
): Promise<ServerProcess> {
  const child = spawn(command[0], command.slice(1), {
    // spawn() replaces the environment; Deno.Command (and the gate's
    // documented `env`) adds to it.
    env: env === undefined ? undefined : { ...Deno.env.toObject(), ...env },
    stdio: ["pipe", "pipe", "inherit"],
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
  const stdin = child.stdin!;
  const stdout = child.stdout!;
  let closing: Promise<void> | undefined;
  return {
    pid: child.pid,
    stdout: pipeReadable(socketSource(stdout)),
    stdin: pipeWritable(socketSink(stdin)),
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
      child.kill(signal as NodeJS.Signals);
    },
  };
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
