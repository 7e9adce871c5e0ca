// Internal: a server the client starts itself: the command spawned with
// piped stdin and stdout (newline-delimited JSON-RPC through a
// StdioTransport) and stderr inherited, so the server's logs reach this
// process's stderr and never its stdout.

import { StdioTransport } from "../stdio/stdio.ts";
import { messageOf } from "../_util/errors.ts";

/** A spawned server and the transport over its pipes. */
export interface ServerProcess {
  /** Speaks to the server over its stdin and stdout. */
  readonly transport: StdioTransport;
  /** The server's process id. */
  readonly pid: number;
  /** Resolves with the exit status once the server has exited. */
  readonly status: Promise<Deno.CommandStatus>;
  /** Ends the server's stdin (once the transport has let go of it), which ends a stdio server. */
  closeStdin(): Promise<void>;
  /** Signals the server; a server that has exited already is left alone. */
  kill(signal: Deno.Signal): void;
}

/**
 * Spawns `command`; a command that cannot start (not found, not allowed)
 * is an `Error` naming it.
 */
export function spawnServer(
  command: readonly string[],
  options: { env?: Record<string, string>; cwd?: string },
): ServerProcess {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(command[0], {
      args: command.slice(1),
      env: options.env,
      cwd: options.cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
  } catch (error) {
    throw new Error(
      `cannot start ${JSON.stringify(command[0])}: ${messageOf(error)}`,
    );
  }
  let exited = false;
  const status = child.status.then((status) => {
    exited = true;
    return status;
  });
  return {
    transport: new StdioTransport({
      readable: child.stdout,
      writable: child.stdin,
    }),
    pid: child.pid,
    status,
    // The transport's close() releases the pipe without closing it.
    closeStdin: () => child.stdin.close().catch(() => {}),
    kill(signal) {
      if (exited) return;
      try {
        child.kill(signal);
      } catch {
        // It exited between the check and the kill.
      }
    },
  };
}
