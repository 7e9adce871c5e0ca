/**
 * One raw JSON-RPC client for every server the harness measures: it spawns
 * the server, writes newline-delimited requests to its stdin and matches
 * answers from its stdout by id, with no SDK in between, so that every
 * server pays the same client cost.
 *
 * @module
 */

const NEWLINE = 0x0a;

/** A JSON-RPC answer as the driver hands it back. */
export interface RpcAnswer {
  /** The id of the request this answers. */
  id: number;
  /** The result, when the request succeeded. */
  result?: Record<string, unknown>;
  /** The error, when it failed. */
  error?: { code: number; message: string };
}

/** Options for {@linkcode spawnServer}. */
export interface SpawnOptions {
  /**
   * The working directory of the server.
   *
   * @default {Deno.cwd()}
   */
  cwd?: string;
  /**
   * What to do with the server's stderr: `"null"` drops it, `"inherit"`
   * passes it through (for debugging a server that will not start).
   *
   * @default {"null"}
   */
  stderr?: "null" | "inherit";
  /**
   * Extra environment variables.
   *
   * @default {{}}
   */
  env?: Record<string, string>;
}

/** How a server ended after its stdin closed. */
export interface ExitReport {
  /** Milliseconds from closing stdin to the process's exit. */
  exitMs: number;
  /** Whether the server exited by itself before the deadline. */
  exited: boolean;
}

/**
 * A spawned MCP server and the raw JSON-RPC client talking to it.
 *
 * @example
 * ```ts ignore
 * const server = spawnServer(["deno", "run", "-A", "bench/servers/raw_echo.ts"]);
 * await server.request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "b", version: "1" } });
 * await server.close();
 * ```
 */
export class ServerProcess {
  /** The server's process id. */
  readonly pid: number;
  /** Notifications and server-to-client requests received so far. */
  notifications = 0;
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #encoder = new TextEncoder();
  #decoder = new TextDecoder();
  #nextId = 1;
  #waiting = new Map<number, (answer: RpcAnswer) => void>();
  #outgoing: string[] = [];
  #flushQueued = false;
  #writing: Promise<void> = Promise.resolve();
  #readDone: Promise<void>;
  #answered = 0;
  #failure: Error | undefined;

  constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.pid = child.pid;
    this.#writer = child.stdin.getWriter();
    this.#readDone = this.#readLoop(child.stdout);
  }

  /** Answers received since the server started. */
  get answered(): number {
    return this.#answered;
  }

  async #readLoop(stdout: ReadableStream<Uint8Array>): Promise<void> {
    let carry: Uint8Array[] = [];
    let carried = 0;
    try {
      for await (const chunk of stdout) {
        let start = 0;
        for (
          let newline = chunk.indexOf(NEWLINE);
          newline !== -1;
          newline = chunk.indexOf(NEWLINE, start)
        ) {
          let line = chunk.subarray(start, newline);
          if (carried > 0) {
            line = concat([...carry, line], carried + line.length);
            carry = [];
            carried = 0;
          }
          this.#dispatch(line);
          start = newline + 1;
        }
        if (start < chunk.length) {
          carry.push(chunk.subarray(start));
          carried += chunk.length - start;
        }
      }
    } catch (cause) {
      this.#fail(new Error(`Cannot read the server's stdout: ${cause}`));
    }
    this.#fail(new Error("The server closed its stdout"));
  }

  #dispatch(line: Uint8Array): void {
    const text = this.#decoder.decode(line);
    if (text.trim() === "") return;
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(text);
    } catch {
      this.#fail(
        new SyntaxError(
          `The server wrote a line that is not JSON: ${text.slice(0, 200)}`,
        ),
      );
      return;
    }
    if (typeof message.method === "string") {
      this.notifications++;
      // A server-to-client request (fastmcp asks for roots, some ping)
      // needs an answer, or the server may wait for it.
      if (message.id !== undefined) {
        this.#enqueue(
          message.method === "ping"
            ? { jsonrpc: "2.0", id: message.id, result: {} }
            : {
              jsonrpc: "2.0",
              id: message.id,
              error: { code: -32601, message: "Method not found" },
            },
        );
      }
      return;
    }
    const id = message.id as number;
    const resolve = this.#waiting.get(id);
    if (resolve === undefined) return;
    this.#waiting.delete(id);
    this.#answered++;
    resolve(message as unknown as RpcAnswer);
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const resolve of this.#waiting.values()) {
      resolve({ id: -1, error: { code: 0, message: this.#failure.message } });
    }
    this.#waiting.clear();
  }

  #enqueue(message: unknown): void {
    this.#outgoing.push(JSON.stringify(message) + "\n");
    if (this.#flushQueued) return;
    this.#flushQueued = true;
    // Requests made in the same tick leave in one write, as a client that
    // pipelines them would send them.
    queueMicrotask(() => {
      this.#flushQueued = false;
      const data = this.#encoder.encode(this.#outgoing.join(""));
      this.#outgoing = [];
      this.#writing = this.#writing.then(() => this.#writer.write(data))
        .catch((cause) =>
          this.#fail(new Error(`Cannot write to the server: ${cause}`))
        );
    });
  }

  /**
   * Sends a request and resolves with its answer; an answer that carries a
   * JSON-RPC error resolves too (callers check), a dead server rejects.
   */
  request(
    method: string,
    params?: Record<string, unknown>,
  ): Promise<RpcAnswer> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    const answer = new Promise<RpcAnswer>((resolve, reject) =>
      this.#waiting.set(id, (message) => {
        if (message.id === -1) reject(this.#failure);
        else resolve(message);
      })
    );
    this.#enqueue({ jsonrpc: "2.0", id, method, params });
    return answer;
  }

  /** Sends a notification. */
  notify(method: string, params?: Record<string, unknown>): void {
    this.#enqueue({ jsonrpc: "2.0", method, params });
  }

  /**
   * Closes stdin and waits for the server to exit by itself, for at most
   * `deadlineMs`; a server still running then is killed.
   */
  async close(deadlineMs = 5000): Promise<ExitReport> {
    // Let requests made in this tick leave first.
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    await this.#writing;
    const start = performance.now();
    await this.#writer.close().catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<"deadline">((resolve) =>
      timer = setTimeout(() => resolve("deadline"), deadlineMs)
    );
    const outcome = await Promise.race([this.#child.status, deadline]);
    const exitMs = performance.now() - start;
    clearTimeout(timer);
    if (outcome === "deadline") {
      try {
        this.#child.kill("SIGKILL");
      } catch {
        // It exited between the deadline and the kill.
      }
      await this.#child.status;
    }
    await this.#readDone;
    return { exitMs, exited: outcome !== "deadline" };
  }

  /** Kills the server at once (after a failure). */
  async kill(): Promise<void> {
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
    await this.#child.status;
    await this.#readDone;
  }
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * Spawns a server with piped stdin and stdout.
 *
 * @example
 * ```ts ignore
 * const server = spawnServer(["node", "bench/node/raw_echo.mjs"]);
 * ```
 */
export function spawnServer(
  command: readonly string[],
  options: SpawnOptions = {},
): ServerProcess {
  if (command.length === 0) {
    throw new TypeError("Cannot spawn a server: expected a non-empty command");
  }
  const child = new Deno.Command(command[0], {
    args: command.slice(1),
    cwd: options.cwd,
    env: options.env,
    stdin: "piped",
    stdout: "piped",
    stderr: options.stderr ?? "null",
  }).spawn();
  return new ServerProcess(child);
}

/** The peak resident set of a process, in bytes (Linux: `VmHWM`), if known. */
export async function peakRss(pid: number): Promise<number | undefined> {
  try {
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status);
    return match === null ? undefined : Number(match[1]) * 1024;
  } catch {
    return undefined;
  }
}

/**
 * CPU time a process has used so far, in milliseconds, summed over its
 * threads (Linux: `/proc/<pid>/task/<tid>/schedstat`, user and system time
 * at nanosecond resolution), or undefined where that is not available.
 * Unlike wall time it barely moves when other processes load the machine.
 */
export async function cpuTimeMs(pid: number): Promise<number | undefined> {
  try {
    let ns = 0;
    for await (const task of Deno.readDir(`/proc/${pid}/task`)) {
      try {
        const stat = await Deno.readTextFile(
          `/proc/${pid}/task/${task.name}/schedstat`,
        );
        ns += Number(stat.split(" ")[0]);
      } catch {
        // The thread ended between the listing and the read.
      }
    }
    return ns / 1e6;
  } catch {
    return undefined;
  }
}
