// The in-memory transport and the test client over it.

import {
  META_ALWAYS,
  META_PATTERNS,
  META_PERMISSION_PATTERNS,
} from "../patterns/probe_meta.ts";
import type { CallToolResult } from "../result/result.ts";
import type { ListedTool } from "../server/tool.ts";
import type { ToolServer } from "../server/server.ts";
import type {
  JsonRpcId,
  JsonRpcMessage,
  McpTransport,
} from "../jsonrpc/types.ts";

/**
 * The protocol version the test client asks for.
 *
 * @example Check the version the server agreed to
 * ```ts
 * import { createServer } from "@forge/toolkit";
 * import { connect, TEST_PROTOCOL_VERSION } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * await using client = await connect(createServer({ name: "s", version: "1" }));
 * assert.equal(client.initializeResult.protocolVersion, TEST_PROTOCOL_VERSION);
 * ```
 */
export const TEST_PROTOCOL_VERSION = "2025-11-25";

/**
 * A JSON-RPC error answered by the server.
 *
 * @example
 * ```ts
 * import { createServer } from "@forge/toolkit";
 * import { connect, RpcError } from "@forge/toolkit/testing";
 *
 * await using client = await connect(createServer({ name: "s", version: "1" }));
 * try {
 *   await client.call("missing");
 * } catch (error) {
 *   if (error instanceof RpcError) console.error(error.code); // -32602
 * }
 * ```
 */
export class RpcError extends Error {
  /** The JSON-RPC error code, such as -32602. */
  readonly code: number;
  /** The error's `data`, if any. */
  readonly data: unknown;

  /**
   * Creates the error.
   *
   * @param code The JSON-RPC error code.
   * @param message The error message.
   * @param data The error's data.
   */
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "RpcError";
    this.code = code;
    this.data = data;
  }
}

/**
 * A notification the server sent, such as progress or a log message.
 *
 * @example Assert that a tool logged a warning
 * ```ts
 * import { createServer, text } from "@forge/toolkit";
 * import { connect, type ReceivedNotification } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * const server = createServer({ name: "s", version: "1" });
 * server.tool({ name: "sync", description: "Syncs", handler: (_args, ctx) => {
 *   ctx.log.warning("2 files skipped");
 *   return text("synced");
 * } });
 * await using client = await connect(server);
 * await client.call("sync");
 * const logs: ReceivedNotification[] = client.notifications
 *   .filter((n) => n.method === "notifications/message");
 * assert.equal(logs[0].params?.level, "warning");
 * ```
 */
export interface ReceivedNotification {
  /** The notification's method, such as `notifications/progress`. */
  method: string;
  /** Its parameters. */
  params?: Record<string, unknown>;
}

/**
 * Options for one call.
 *
 * @example Ask for progress and give up after a second
 * ```ts
 * import { createServer, text } from "@forge/toolkit";
 * import { type CallOptions, connect } from "@forge/toolkit/testing";
 *
 * const server = createServer({ name: "s", version: "1" });
 * server.tool({ name: "index", description: "Indexes", handler: async (_args, ctx) => {
 *   await ctx.progress(1, 1, "indexed");
 *   return text("done");
 * } });
 * await using client = await connect(server);
 * const options: CallOptions = {
 *   meta: { progressToken: "t1" },
 *   signal: AbortSignal.timeout(1000),
 * };
 * await client.call("index", {}, options); // client.notifications holds the progress
 * ```
 */
export interface CallOptions {
  /**
   * Extra `_meta` for the request, such as a `progressToken`.
   *
   * @default {undefined}
   */
  meta?: Record<string, unknown>;
  /**
   * Cancels the call: the client sends `notifications/cancelled`.
   *
   * @default {undefined}
   */
  signal?: AbortSignal;
}

/**
 * What a probe answered.
 *
 * @example Assert what a tool asks to be approved
 * ```ts
 * import { createServer, registerPatternTool, text } from "@forge/toolkit";
 * import { connect, type ProbeAnswer } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * const server = createServer({ name: "files", version: "1" });
 * registerPatternTool(server, {
 *   name: "clean", description: "Deletes the build output", always: ["delete:dist"],
 *   patterns: () => [], handler: () => text("cleaned"),
 * });
 * await using client = await connect(server);
 * const answer: ProbeAnswer = await client.probe("clean");
 * assert.deepEqual(answer, { patterns: [], always: ["delete:dist"] });
 * ```
 */
export interface ProbeAnswer {
  /** The patterns that depend on the arguments. */
  patterns: string[];
  /** The patterns that hold for every call. */
  always: string[];
}

/**
 * Options for {@linkcode connect}.
 *
 * @example Answer a tool's sampling request in a test
 * ```ts
 * import { createServer, text } from "@forge/toolkit";
 * import { connect, type ConnectOptions } from "@forge/toolkit/testing";
 *
 * const server = createServer({ name: "s", version: "1" });
 * server.tool({ name: "title", description: "Suggests a title", handler: async (_args, ctx) => {
 *   const ask = { role: "user" as const, content: { type: "text", text: "A title for my notes" } };
 *   const answer = await ctx.sample({ messages: [ask], maxTokens: 20 });
 *   return text(String(answer.content.text));
 * } });
 * const options: ConnectOptions = {
 *   capabilities: { sampling: {} },
 *   onRequest: (method) =>
 *     method === "sampling/createMessage"
 *       ? { role: "assistant", model: "fake", content: { type: "text", text: "Hi" } }
 *       : {},
 * };
 * await using client = await connect(server, options);
 * await client.call("title"); // { content: [{ type: "text", text: "Hi" }] }
 * ```
 */
export interface ConnectOptions {
  /**
   * Capabilities the client declares at initialisation.
   *
   * @default {{}}
   */
  capabilities?: Record<string, unknown>;
  /**
   * Answers requests the server sends the client (`sampling/createMessage`,
   * `elicitation/create`, `roots/list`); a thrown error answers -32603.
   *
   * @default {undefined}
   */
  onRequest?: (
    method: string,
    params: Record<string, unknown> | undefined,
  ) => unknown;
}

/**
 * An in-memory client connected to one server.
 *
 * @example Share one client between test steps
 * ```ts
 * import { createServer, text } from "@forge/toolkit";
 * import { connect, type TestClient } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * const server = createServer({ name: "s", version: "1" });
 * server.tool({ name: "ping", description: "Answers pong", handler: () => text("pong") });
 * const client: TestClient = await connect(server);
 * try {
 *   assert.equal((await client.listTools()).length, 1);
 *   assert.deepEqual(await client.call("ping"), { content: [{ type: "text", text: "pong" }] });
 * } finally {
 *   await client.close();
 * }
 * ```
 */
export interface TestClient extends AsyncDisposable {
  /** What the server said at initialisation. */
  readonly initializeResult: Record<string, unknown>;
  /** Every notification received so far, in order. */
  readonly notifications: ReceivedNotification[];
  /** Lists the server's tools (all pages). */
  listTools(): Promise<ListedTool[]>;
  /** Calls a tool; a JSON-RPC error rejects with {@linkcode RpcError}. */
  call(
    name: string,
    args?: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<CallToolResult>;
  /**
   * Probes a pattern tool. A domain error (`isError`) rejects with an `Error`
   * carrying its text; a JSON-RPC error rejects with {@linkcode RpcError}.
   */
  probe(name: string, args?: Record<string, unknown>): Promise<ProbeAnswer>;
  /** Sends any request and returns its result. */
  request(
    method: string,
    params?: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<Record<string, unknown>>;
  /** Disconnects. */
  close(): Promise<void>;
}

class MemoryTransport implements McpTransport {
  onmessage?: (message: JsonRpcMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  peer: MemoryTransport | undefined;
  #closed = false;

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JsonRpcMessage): Promise<void> {
    if (this.#closed) {
      return Promise.reject(new Error("Cannot send: the transport is closed"));
    }
    // Serialised as on a wire, so nothing is shared by reference.
    const wire = JSON.stringify(message);
    const peer = this.peer;
    queueMicrotask(() => peer?.onmessage?.(JSON.parse(wire)));
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.onclose?.();
    const peer = this.peer;
    this.peer = undefined;
    return peer?.close() ?? Promise.resolve();
  }
}

/**
 * Connects an in-memory client to `server` and performs the handshake.
 *
 * @example
 * ```ts
 * import { createServer, text } from "@forge/toolkit";
 * import { connect } from "@forge/toolkit/testing";
 *
 * const server = createServer({ name: "s", version: "1" });
 * server.tool({ name: "ping", description: "pong", handler: () => text("pong") });
 * const client = await connect(server);
 * const tools = await client.listTools(); // [{ name: "ping", … }]
 * await client.close();
 * ```
 */
export async function connect(
  server: ToolServer,
  options: ConnectOptions = {},
): Promise<TestClient> {
  const clientSide = new MemoryTransport();
  const serverSide = new MemoryTransport();
  clientSide.peer = serverSide;
  serverSide.peer = clientSide;

  let nextId = 1;
  const waiting = new Map<
    JsonRpcId,
    {
      resolve: (r: Record<string, unknown>) => void;
      reject: (e: Error) => void;
    }
  >();
  const notifications: ReceivedNotification[] = [];

  clientSide.onmessage = (message) => {
    if ("method" in message && "id" in message) {
      void answerServerRequest(message.id, message.method, message.params);
    } else if ("method" in message) {
      notifications.push({
        method: message.method,
        ...(message.params ? { params: message.params } : {}),
      });
    } else if ("error" in message) {
      const entry = message.id === null ? undefined : waiting.get(message.id);
      if (entry !== undefined) {
        waiting.delete(message.id!);
        entry.reject(
          new RpcError(
            message.error.code,
            message.error.message,
            message.error.data,
          ),
        );
      }
    } else {
      const entry = waiting.get(message.id);
      waiting.delete(message.id);
      entry?.resolve(message.result);
    }
  };
  clientSide.onclose = () => {
    for (const entry of waiting.values()) {
      entry.reject(new Error("Connection closed"));
    }
    waiting.clear();
  };

  async function answerServerRequest(
    id: JsonRpcId,
    method: string,
    params?: Record<string, unknown>,
  ) {
    try {
      if (options.onRequest === undefined) {
        throw new RpcError(-32601, `Method not found: ${method}`);
      }
      const result = await options.onRequest(method, params);
      await clientSide.send({
        jsonrpc: "2.0",
        id,
        result: (result ?? {}) as Record<string, unknown>,
      });
    } catch (error) {
      const code = error instanceof RpcError ? error.code : -32603;
      await clientSide.send({
        jsonrpc: "2.0",
        id,
        error: { code, message: (error as Error).message },
      })
        .catch(() => {});
    }
  }

  function request(
    method: string,
    params?: Record<string, unknown>,
    callOptions: CallOptions = {},
  ): Promise<Record<string, unknown>> {
    const id = nextId++;
    const withMeta = callOptions.meta === undefined ? params : {
      ...params,
      _meta: {
        ...(params?._meta as Record<string, unknown>),
        ...callOptions.meta,
      },
    };
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      callOptions.signal?.addEventListener("abort", () => {
        waiting.delete(id);
        reject(callOptions.signal!.reason);
        clientSide.send({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: id, reason: String(callOptions.signal!.reason) },
        }).catch(() => {});
      }, { once: true });
      clientSide.send({
        jsonrpc: "2.0",
        id,
        method,
        ...(withMeta ? { params: withMeta } : {}),
      })
        .catch(reject);
    });
  }

  await server.connect(serverSide);
  const initializeResult = await request("initialize", {
    protocolVersion: TEST_PROTOCOL_VERSION,
    capabilities: options.capabilities ?? {},
    clientInfo: { name: "forge-test-client", version: "0.1.0" },
  });
  await clientSide.send({
    jsonrpc: "2.0",
    method: "notifications/initialized",
  });

  const client: TestClient = {
    initializeResult,
    notifications,
    async listTools() {
      const tools: ListedTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await request(
          "tools/list",
          cursor === undefined ? {} : { cursor },
        );
        tools.push(...page.tools as ListedTool[]);
        cursor = page.nextCursor as string | undefined;
      } while (cursor !== undefined);
      return tools;
    },
    async call(name, args, callOptions) {
      return await request(
        "tools/call",
        { name, arguments: args ?? {} },
        callOptions,
      ) as unknown as CallToolResult;
    },
    async probe(name, args) {
      const result = await request("tools/call", {
        name,
        arguments: args ?? {},
        _meta: { [META_PERMISSION_PATTERNS]: true },
      }) as unknown as CallToolResult;
      if (result.isError) {
        const text = result.content.map((c) => c.type === "text" ? c.text : "")
          .join("\n");
        throw new Error(`Probe answered a domain error: ${text}`);
      }
      const meta = result._meta ?? {};
      return {
        patterns: meta[META_PATTERNS] as string[],
        always: meta[META_ALWAYS] as string[],
      };
    },
    request,
    close: () => clientSide.close(),
    [Symbol.asyncDispose]: () => clientSide.close(),
  };
  return client;
}
