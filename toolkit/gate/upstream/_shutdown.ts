// Internal: the end of the server. Once its stdin is closed it has a grace
// period to exit, then SIGTERM, then SIGKILL; and its exit, expected or
// not, becomes the gate's exit status and the reason given for every
// request it left unanswered.

import type { ServerProcess } from "./_server_process.ts";

/**
 * How long after SIGTERM a server that still runs gets SIGKILL: short, so
 * that a host that closes the usual way (EOF, 2 s, SIGTERM, 2 s, SIGKILL)
 * sees its gate stop its server before it kills the gate.
 */
const KILL_AFTER_MS = 1000;

/** Options for {@linkcode stopServer}. */
export interface StopOptions {
  /** How long the server may take to exit before it is sent SIGTERM. */
  graceMs: number;
  /** The gate's own lines. */
  log: (line: string) => void;
  /** Ends the grace at once when aborted (the host is signalling the gate). */
  hurry?: AbortSignal;
}

/** Waits for a server whose stdin is closed to exit, signalling it when it takes too long. */
export async function stopServer(
  child: ServerProcess,
  options: StopOptions,
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const exited = child.status.then(() => true);
  const { hurry } = options;
  let onHurry: (() => void) | undefined;
  const waited = (ms: number) =>
    Promise.race([
      exited,
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), ms);
        if (hurry?.aborted) resolve(false);
        onHurry = () => resolve(false);
        hurry?.addEventListener("abort", onHurry, { once: true });
      }),
    ]).finally(() => {
      clearTimeout(timer);
      if (onHurry !== undefined) hurry?.removeEventListener("abort", onHurry);
    });
  if (!(await waited(options.graceMs))) {
    options.log(
      hurry?.aborted
        ? "the gate was told to stop while the server was stopping: sending SIGTERM"
        : `the server did not exit within ${options.graceMs} ms of its stdin closing: sending SIGTERM`,
    );
    signal(child, "SIGTERM");
    if (!(await waited(KILL_AFTER_MS))) signal(child, "SIGKILL");
  }
  await child.status;
}

/** What the server's exit means for the gate. */
export interface ServerExit {
  /** The gate's exit status. */
  code: number;
  /** Why the requests the server left unanswered got no answer. */
  reason: string;
  /** The line to log, if the exit is worth one. */
  logLine?: string;
}

/**
 * The meaning of the server's exit `status`: `unexpected` when the host
 * was still connected, which makes even a clean exit a failure.
 */
export function serverExit(
  status: Deno.CommandStatus,
  unexpected: boolean,
): ServerExit {
  const how = status.signal === null
    ? `status ${status.code}`
    : `signal ${status.signal}`;
  const reason = unexpected
    ? `The server exited with ${how} before answering`
    : "The gate stopped before the server answered";
  const code = unexpected ? (status.code === 0 ? 1 : status.code) : status.code;
  return unexpected || status.code !== 0
    ? { code, reason, logLine: `the server exited with ${how}` }
    : { code, reason };
}

function signal(child: ServerProcess, signal: Deno.Signal): void {
  try {
    child.kill(signal);
  } catch {
    // It has exited.
  }
}
