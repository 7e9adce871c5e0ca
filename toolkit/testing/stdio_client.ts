// A client for a server run as a child process: newline-delimited JSON-RPC
// over its stdin and stdout, stderr kept, so a test sees exactly what a
// host would see.

import type { CallToolResult } from "../result/result.ts";
import { RpcError, TEST_PROTOCOL_VERSION } from "./testing.ts";

const ENCODER = new TextEncoder();
const DEFAULT_TIMEOUT_MS = 10_000;
// How long disposal waits for an exit after stdin ends before SIGKILL.
const DISPOSE_GRACE_MS = 2_000;
// How much of stderr a timeout's message quotes.
const STDERR_TAIL = 2_000;
const CLOSED = "The process closed its output";

/**
 * A JSON-RPC message as read off the wire. Every member but `jsonrpc` is
 * optional, so that a test can look at any of them without narrowing.
 *
 * @example Tell a server's request from an answer
 * ```ts
 * import type { RpcMessage } from "@forge/toolkit/testing";
 *
 * function isServerRequest(message: RpcMessage): boolean {
 *   return message.method !== undefined && message.id !== undefined;
 * }
 * isServerRequest({ jsonrpc: "2.0", id: 1, method: "roots/list" }); // true
 * ```
 */
export interface RpcMessage {
  /** Always `"2.0"`. */
  jsonrpc: "2.0";
  /** A request's or an answer's id; `null` answers a line that could not be read. */
  id?: string | number | null;
  /** A request's or a notification's method. */
  method?: string;
  /** A request's or a notification's parameters. */
  params?: Record<string, unknown>;
  /** A successful answer's result. */
  result?: Record<string, unknown>;
  /** A failed answer's error. */
  error?: { code: number; message: string; data?: unknown };
}

/**
 * Options for {@linkcode spawnStdio}.
 *
 * @example Answer the server's sampling requests
 * ```ts
 * import type { SpawnStdioOptions } from "@forge/toolkit/testing";
 *
 * const options: SpawnStdioOptions = {
 *   env: { NO_COLOR: "1" },
 *   onRequest: (method) =>
 *     method === "sampling/createMessage"
 *       ? { role: "assistant", model: "fake", content: { type: "text", text: "Hi" } }
 *       : {},
 * };
 * ```
 */
export interface SpawnStdioOptions {
  /**
   * The child's working directory.
   *
   * @default {the current directory}
   */
  cwd?: string;
  /**
   * Variables to set in the child's environment.
   *
   * @default {{}}
   */
  env?: Record<string, string>;
  /**
   * Start from an empty environment instead of this process's.
   *
   * @default {false}
   */
  clearEnv?: boolean;
  /**
   * How long a request, {@linkcode StdioClient.next} or
   * {@linkcode StdioClient.waitForStderr} waits before it rejects.
   *
   * @default {10000}
   */
  timeoutMs?: number;
  /**
   * Answers the requests the server sends (`sampling/createMessage`,
   * `elicitation/create`, `roots/list`): the value returned is the result;
   * a thrown {@linkcode RpcError} answers with its code, anything else
   * thrown with -32603. Without it such requests are left for the test to
   * answer with {@linkcode StdioClient.sendMessage}.
   *
   * @default {undefined}
   */
  onRequest?: (
    method: string,
    params: Record<string, unknown> | undefined,
  ) => unknown;
}

/**
 * Options for one request.
 *
 * @example Call a tool under a chosen id with a progress token
 * ```ts ignore
 * import type { RequestOptions } from "@forge/toolkit/testing";
 *
 * const options: RequestOptions = { id: "call-1", meta: { progressToken: "p" } };
 * await client.call("index", {}, options);
 * ```
 */
export interface RequestOptions {
  /**
   * The request's id.
   *
   * @default {the next unused number}
   */
  id?: string | number;
  /**
   * `_meta` to merge into the request's parameters.
   *
   * @default {undefined}
   */
  meta?: Record<string, unknown>;
  /**
   * How long to wait for the answer.
   *
   * @default {the client's timeoutMs}
   */
  timeoutMs?: number;
}

/**
 * Options for waiting on a message or a stderr line.
 *
 * @example Wait only for what comes after this point
 * ```ts ignore
 * import type { WaitOptions } from "@forge/toolkit/testing";
 *
 * const options: WaitOptions = { since: client.messages.length, timeoutMs: 1000 };
 * await client.next((m) => m.method === "notifications/progress", options);
 * ```
 */
export interface WaitOptions {
  /**
   * The index in {@linkcode StdioClient.messages} (or
   * {@linkcode StdioClient.stderrLines}) to start looking at; earlier ones
   * are ignored.
   *
   * @default {0}
   */
  since?: number;
  /**
   * How long to wait.
   *
   * @default {the client's timeoutMs}
   */
  timeoutMs?: number;
}

/**
 * Options for {@linkcode StdioClient.initialize}.
 *
 * @example Declare elicitation support
 * ```ts ignore
 * import type { InitializeOptions } from "@forge/toolkit/testing";
 *
 * const options: InitializeOptions = { capabilities: { elicitation: {} } };
 * await client.initialize(options);
 * ```
 */
export interface InitializeOptions {
  /**
   * The protocol version to ask for.
   *
   * @default {TEST_PROTOCOL_VERSION}
   */
  protocolVersion?: string;
  /**
   * The client's capabilities.
   *
   * @default {{}}
   */
  capabilities?: Record<string, unknown>;
  /**
   * The client's name and version.
   *
   * @default {{ name: "forge-test-client", version: "0.1.0" }}
   */
  clientInfo?: { name: string; version: string };
}

/**
 * A server running as a child process, spoken to over its stdin and stdout.
 *
 * @example
 * ```ts ignore
 * import { spawnStdio, type StdioClient } from "@forge/toolkit/testing";
 *
 * await using server: StdioClient = spawnStdio(Deno.execPath(), ["run", "server.ts"]);
 * await server.initialize();
 * const tools = await server.request("tools/list");
 * ```
 */
export interface StdioClient extends AsyncDisposable {
  /** The child's process id. */
  readonly pid: number;
  /** What the server answered to {@linkcode StdioClient.initialize}, once it has. */
  readonly initializeResult: Record<string, unknown> | undefined;
  /** Every line the server wrote to stdout, as written, in order. */
  readonly lines: readonly string[];
  /** Every JSON-RPC message among those lines, in order. */
  readonly messages: readonly RpcMessage[];
  /**
   * The stdout lines that are not a JSON-RPC message (not JSON, or JSON of
   * another shape, or empty): each one is a protocol violation.
   */
  readonly violations: readonly string[];
  /** Everything the server wrote to stderr so far. */
  readonly stderr: string;
  /** The complete lines of stderr so far (and, once it ends, the last one). */
  readonly stderrLines: readonly string[];
  /** Resolves with the exit status, once the child has exited and its output is read. */
  readonly status: Promise<Deno.CommandStatus>;
  /**
   * Sends `initialize`, then `notifications/initialized`; resolves with the
   * server's result. A JSON-RPC error rejects with {@linkcode RpcError}.
   */
  initialize(options?: InitializeOptions): Promise<Record<string, unknown>>;
  /**
   * Sends a request; resolves with its result. A JSON-RPC error rejects
   * with {@linkcode RpcError} (code, message, data); an exit or a timeout
   * before the answer rejects with an `Error` quoting stderr.
   */
  request(
    method: string,
    params?: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<Record<string, unknown>>;
  /** Calls a tool; a JSON-RPC error rejects with {@linkcode RpcError}. */
  call(
    name: string,
    args?: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<CallToolResult>;
  /** Sends a request; resolves with its answer as received, result or error. */
  exchange(
    method: string,
    params?: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<RpcMessage>;
  /**
   * Resolves with the answer under `id` (already received or to come), for
   * a request sent with {@linkcode StdioClient.send}.
   */
  response(
    id: string | number | null,
    options?: WaitOptions,
  ): Promise<RpcMessage>;
  /** Sends a notification. */
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Writes one message as a line of JSON, whatever its shape. */
  sendMessage(message: Record<string, unknown>): Promise<void>;
  /** Writes raw text or bytes to stdin, for malformed input. */
  send(data: string | Uint8Array): Promise<void>;
  /** Resolves with the first message (already received or to come) that matches. */
  next(
    match: (message: RpcMessage) => boolean,
    options?: WaitOptions,
  ): Promise<RpcMessage>;
  /** Resolves with the first stderr line (already written or to come) that matches. */
  waitForStderr(pattern: RegExp, options?: WaitOptions): Promise<string>;
  /** Sends the child a signal (SIGTERM unless told); does nothing once it has exited. */
  kill(signal?: Deno.Signal): void;
  /** Ends stdin and resolves with the exit status once the output is read. */
  close(): Promise<Deno.CommandStatus>;
}

interface Waiter {
  check(): boolean;
  fail(): void;
}

class ChildClient implements StdioClient {
  readonly lines: string[] = [];
  readonly messages: RpcMessage[] = [];
  readonly violations: string[] = [];
  readonly stderrLines: string[] = [];
  readonly status: Promise<Deno.CommandStatus>;
  initializeResult: Record<string, unknown> | undefined;
  #stderr = "";
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #options: SpawnStdioOptions;
  #timeoutMs: number;
  #nextId = 1;
  // Requests awaiting their answer, by id: a flood of calls must not make
  // every message scan every waiter.
  #pending = new Map<
    string | number | null,
    PromiseWithResolvers<RpcMessage>
  >();
  // Answers nobody waited for yet, for response(); the first under an id wins.
  #unclaimed = new Map<string | number | null, RpcMessage>();
  #waiters = new Set<Waiter>();
  #exited = false;
  #ended = false;
  #closed: Promise<Deno.CommandStatus> | undefined;

  constructor(
    command: string,
    args: readonly string[],
    options: SpawnStdioOptions,
  ) {
    this.#options = options;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#child = new Deno.Command(command, {
      args: [...args],
      cwd: options.cwd,
      env: options.env,
      clearEnv: options.clearEnv ?? false,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    const exited = this.#child.status.then((status) => {
      this.#exited = true;
      return status;
    });
    const output = Promise.all([this.#readStdout(), this.#readStderr()])
      .then(() => {
        // Nothing more will come: whoever still waits is told why.
        this.#ended = true;
        for (const answer of this.#pending.values()) {
          answer.reject(
            new Error(`${CLOSED} before answering${this.#stderrTail()}`),
          );
        }
        for (const waiter of [...this.#waiters]) waiter.fail();
      });
    this.status = Promise.all([exited, output]).then(([status]) => status);
  }

  get pid(): number {
    return this.#child.pid;
  }

  get stderr(): string {
    return this.#stderr;
  }

  async initialize(
    options: InitializeOptions = {},
  ): Promise<Record<string, unknown>> {
    const result = await this.request("initialize", {
      protocolVersion: options.protocolVersion ?? TEST_PROTOCOL_VERSION,
      capabilities: options.capabilities ?? {},
      clientInfo: options.clientInfo ??
        { name: "forge-test-client", version: "0.1.0" },
    });
    this.initializeResult = result;
    await this.notify("notifications/initialized");
    return result;
  }

  async request(
    method: string,
    params?: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<Record<string, unknown>> {
    const answer = await this.#exchange(method, params, options);
    if (answer.error !== undefined) {
      const { code, message, data } = answer.error;
      throw new RpcError(code, message, data);
    }
    return answer.result ?? {};
  }

  async call(
    name: string,
    args: Record<string, unknown> = {},
    options?: RequestOptions,
  ): Promise<CallToolResult> {
    return await this.request(
      "tools/call",
      { name, arguments: args },
      options,
    ) as unknown as CallToolResult;
  }

  exchange(
    method: string,
    params?: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<RpcMessage> {
    return this.#exchange(method, params, options);
  }

  async #exchange(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions = {},
  ): Promise<RpcMessage> {
    const id = options.id ?? this.#freeId();
    if (this.#pending.has(id)) {
      throw new Error(
        `Cannot send ${method}: a request under id ${
          JSON.stringify(id)
        } still waits for its answer`,
      );
    }
    if (this.#ended) {
      throw new Error(
        `Cannot send ${method}: ${CLOSED.toLowerCase()}${this.#stderrTail()}`,
      );
    }
    const withMeta = options.meta === undefined ? params : {
      ...params,
      _meta: { ...(params?._meta as Record<string, unknown>), ...options.meta },
    };
    const answer = Promise.withResolvers<RpcMessage>();
    // Marked handled now: an exit may reject it while the request is still
    // being written; the await below still sees the rejection.
    answer.promise.catch(() => {});
    this.#pending.set(id, answer);
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    const timer = setTimeout(() => {
      answer.reject(
        new Error(
          `Timed out after ${timeoutMs} ms waiting for the answer to ${method} (id ${
            JSON.stringify(id)
          })${this.#stderrTail()}`,
        ),
      );
    }, timeoutMs);
    try {
      await this.sendMessage({
        jsonrpc: "2.0",
        id,
        method,
        ...(withMeta === undefined ? {} : { params: withMeta }),
      });
      return await answer.promise;
    } finally {
      clearTimeout(timer);
      if (this.#pending.get(id) === answer) this.#pending.delete(id);
    }
  }

  #freeId(): number {
    while (this.#pending.has(this.#nextId)) this.#nextId++;
    return this.#nextId++;
  }

  response(
    id: string | number | null,
    options: WaitOptions = {},
  ): Promise<RpcMessage> {
    return this.#wait(
      () => this.#unclaimed.get(id),
      `the answer under id ${JSON.stringify(id)}`,
      options.timeoutMs,
    );
  }

  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.sendMessage({
      jsonrpc: "2.0",
      method,
      ...(params === undefined ? {} : { params }),
    });
  }

  sendMessage(message: Record<string, unknown>): Promise<void> {
    return this.send(JSON.stringify(message) + "\n");
  }

  send(data: string | Uint8Array): Promise<void> {
    return this.#writer.write(
      typeof data === "string" ? ENCODER.encode(data) : data,
    );
  }

  next(
    match: (message: RpcMessage) => boolean,
    options: WaitOptions = {},
  ): Promise<RpcMessage> {
    let from = options.since ?? 0;
    return this.#wait(
      () => {
        for (; from < this.messages.length; from++) {
          if (match(this.messages[from])) return this.messages[from];
        }
        return undefined;
      },
      `a matching message; got ${this.messages.length} messages, the last: ${
        JSON.stringify(this.messages.slice(-3))
      }`,
      options.timeoutMs,
    );
  }

  waitForStderr(pattern: RegExp, options: WaitOptions = {}): Promise<string> {
    let from = options.since ?? 0;
    return this.#wait(
      () => {
        for (; from < this.stderrLines.length; from++) {
          // A global or sticky pattern keeps state between tests: reset it.
          pattern.lastIndex = 0;
          if (pattern.test(this.stderrLines[from])) {
            return this.stderrLines[from];
          }
        }
        return undefined;
      },
      `a stderr line matching ${pattern}`,
      options.timeoutMs,
    );
  }

  kill(signal: Deno.Signal = "SIGTERM"): void {
    if (!this.#exited) this.#child.kill(signal);
  }

  close(): Promise<Deno.CommandStatus> {
    this.#closed ??= (async () => {
      await this.#writer.close().catch(() => {});
      return await this.status;
    })();
    return this.#closed;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    const closing = this.close();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), DISPOSE_GRACE_MS);
    });
    try {
      if (await Promise.race([closing, late]) === "late") {
        this.kill("SIGKILL");
        await closing;
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** Resolves with `find()`'s first value other than undefined, checked on every arrival. */
  #wait<T>(
    find: () => T | undefined,
    what: string,
    timeoutMs: number = this.#timeoutMs,
  ): Promise<T> {
    const found = find();
    if (found !== undefined) return Promise.resolve(found);
    if (this.#ended) {
      return Promise.reject(
        new Error(`${CLOSED} before ${what}${this.#stderrTail()}`),
      );
    }
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = {
        check: () => {
          const value = find();
          if (value === undefined) return false;
          done();
          resolve(value);
          return true;
        },
        fail: () => {
          done();
          reject(new Error(`${CLOSED} before ${what}${this.#stderrTail()}`));
        },
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new Error(
            `Timed out after ${timeoutMs} ms waiting for ${what}${this.#stderrTail()}`,
          ),
        );
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(waiter);
      };
      this.#waiters.add(waiter);
    });
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter.check();
  }

  #stderrTail(): string {
    if (this.#stderr === "") return "";
    const tail = this.#stderr.length > STDERR_TAIL
      ? `…${this.#stderr.slice(-STDERR_TAIL)}`
      : this.#stderr;
    return `\nstderr:\n${tail}`;
  }

  async #readStdout(): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of this.#child.stdout) {
      buffer += decoder.decode(chunk, { stream: true });
      let newline;
      while ((newline = buffer.indexOf("\n")) !== -1) {
        this.#line(buffer.slice(0, newline));
        buffer = buffer.slice(newline + 1);
      }
    }
    buffer += decoder.decode();
    if (buffer !== "") this.#line(buffer);
  }

  #line(line: string): void {
    this.lines.push(line);
    const message = parseMessage(line);
    if (message === undefined) {
      this.violations.push(line);
      this.#wake();
      return;
    }
    this.messages.push(message);
    if (message.method === undefined) {
      const id = message.id ?? null;
      const answer = this.#pending.get(id);
      if (answer !== undefined) {
        this.#pending.delete(id);
        answer.resolve(message);
      } else if (!this.#unclaimed.has(id)) {
        this.#unclaimed.set(id, message);
      }
    } else if (message.id !== undefined && this.#options.onRequest) {
      void this.#answer(message.id!, message.method, message.params);
    }
    this.#wake();
  }

  async #answer(
    id: string | number | null,
    method: string,
    params: Record<string, unknown> | undefined,
  ): Promise<void> {
    let answer: Record<string, unknown>;
    try {
      const result = await this.#options.onRequest!(method, params);
      answer = { jsonrpc: "2.0", id, result: result ?? {} };
    } catch (error) {
      const code = error instanceof RpcError ? error.code : -32603;
      answer = {
        jsonrpc: "2.0",
        id,
        error: { code, message: (error as Error).message },
      };
    }
    // The server may have exited meanwhile; there is nobody left to answer.
    await this.sendMessage(answer).catch(() => {});
  }

  async #readStderr(): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of this.#child.stderr) {
      const text = decoder.decode(chunk, { stream: true });
      this.#stderr += text;
      buffer += text;
      const lines = buffer.split("\n");
      buffer = lines.pop()!;
      if (lines.length > 0) {
        this.stderrLines.push(...lines);
        this.#wake();
      }
    }
    const rest = buffer + decoder.decode();
    if (rest !== "") {
      this.#stderr += rest.slice(buffer.length);
      this.stderrLines.push(rest);
      this.#wake();
    }
  }
}

/** The message a line holds, or undefined when it is not a JSON-RPC 2.0 message. */
function parseMessage(line: string): RpcMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return undefined;
  }
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== "2.0") return undefined;
  const isCall = typeof message.method === "string";
  const isAnswer = "id" in message &&
    ("result" in message || "error" in message);
  return isCall || isAnswer ? message as unknown as RpcMessage : undefined;
}

/**
 * Starts `command` with `args` as a child process and returns a client
 * speaking newline-delimited JSON-RPC to it over its stdin and stdout, as a
 * host does. Everything it writes is kept: the stdout lines, the messages
 * among them, the lines that break the protocol, and stderr. Nothing is sent
 * until the test sends it: call {@linkcode StdioClient.initialize} first to
 * handshake.
 *
 * @example Start a server, call a tool, and check it spoke only JSON-RPC
 * ```ts ignore
 * import { spawnStdio } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = spawnStdio(Deno.execPath(), ["run", "-A", "server.ts"], {
 *   env: { NO_COLOR: "1" },
 * });
 * await server.waitForStderr(/ready/);
 * await server.initialize();
 * const result = await server.call("echo", { text: "hi" });
 * assert.deepEqual(result.content, [{ type: "text", text: "hi" }]);
 * assert.equal((await server.close()).code, 0);
 * assert.deepEqual(server.violations, []);
 * ```
 *
 * @param command The program to run, such as `Deno.execPath()`.
 * @param args Its arguments.
 * @param options The child's environment, timeouts and answers to the server's requests.
 * @returns The client; the child is already running.
 */
export function spawnStdio(
  command: string,
  args: readonly string[] = [],
  options: SpawnStdioOptions = {},
): StdioClient {
  if (typeof command !== "string" || command === "") {
    throw new TypeError(
      `Cannot spawn the server: expected the command as a non-empty string, got ${
        JSON.stringify(command)
      }`,
    );
  }
  return new ChildClient(command, args, options);
}
