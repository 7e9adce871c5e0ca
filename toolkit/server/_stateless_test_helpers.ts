// Shared by the server tests: an in-memory client that speaks 2026-07-28,
// each request carrying its protocol version and capabilities in `_meta`,
// as the test client of toolkit/testing speaks 2025-11-25 after initialize.

import type { JsonRpcMessage, McpTransport } from "../jsonrpc/types.ts";
import type { CallToolResult } from "../result/result.ts";
import { RpcError } from "../testing/testing.ts";
import { until } from "../testing/_until.ts";
import { META, STATELESS_PROTOCOL_VERSIONS } from "./_era.ts";
import type { ToolServer } from "./server.ts";
import type { ListedTool } from "./tool.ts";

/** A notification the client received. */
export interface Heard {
  method: string;
  params: Record<string, unknown> | undefined;
}

/** What {@linkcode connectStateless} takes. */
export interface StatelessOptions {
  /** The capabilities every request declares in its `_meta`. */
  capabilities?: Record<string, unknown>;
  /** Answers each input request of an input-required result; the request is then sent again. */
  onRequest?: (method: string, params: Record<string, unknown>) => unknown;
}

/** An in-memory 2026-07-28 client of one server. */
export interface StatelessClient extends AsyncDisposable {
  /** Every notification received so far, in order. */
  readonly notifications: Heard[];
  /** Sends a request; a JSON-RPC error rejects with an RpcError. */
  request(
    method: string,
    params?: Record<string, unknown>,
  ): Promise<Record<string, unknown>>;
  /** Calls a tool. */
  call(
    name: string,
    args?: Record<string, unknown>,
    meta?: Record<string, unknown>,
  ): Promise<CallToolResult & Record<string, unknown>>;
  /** The server's tools (one page). */
  listTools(): Promise<ListedTool[]>;
  /** Opens a `subscriptions/listen` stream; resolves once it is acknowledged. */
  listen(notifications: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

class Wire implements McpTransport {
  onmessage?: (message: JsonRpcMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  received: (message: Record<string, unknown>) => void = () => {};
  #closed = false;

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JsonRpcMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("Wire closed"));
    // As on a wire: nothing shared by reference.
    const copy = JSON.parse(JSON.stringify(message));
    queueMicrotask(() => this.received(copy));
    return Promise.resolve();
  }

  deliver(message: Record<string, unknown>): void {
    const copy = JSON.parse(JSON.stringify(message));
    queueMicrotask(() => this.onmessage?.(copy));
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.onclose?.();
    }
    return Promise.resolve();
  }
}

/** Connects a 2026-07-28 client to `server` (no `initialize`: there is none). */
export async function connectStateless(
  server: ToolServer,
  options: StatelessOptions = {},
): Promise<StatelessClient> {
  const wire = new Wire();
  const pending = new Map<
    number,
    PromiseWithResolvers<Record<string, unknown>>
  >();
  const notifications: Heard[] = [];
  wire.received = (message) => {
    if (typeof message.method === "string") {
      if (!("id" in message)) {
        notifications.push({
          method: message.method,
          params: message.params as Record<string, unknown> | undefined,
        });
      }
      return;
    }
    const waiting = pending.get(message.id as number);
    pending.delete(message.id as number);
    if (message.error !== undefined) {
      const { code, message: text, data } = message.error as {
        code: number;
        message: string;
        data?: unknown;
      };
      waiting?.reject(new RpcError(code, text, data));
    } else waiting?.resolve(message.result as Record<string, unknown>);
  };
  await server.connect(wire);
  let nextId = 0;
  const send = (method: string, params: Record<string, unknown>) => {
    const id = ++nextId;
    const answer = Promise.withResolvers<Record<string, unknown>>();
    pending.set(id, answer);
    wire.deliver({
      jsonrpc: "2.0",
      id,
      method,
      params: {
        ...params,
        _meta: {
          [META.PROTOCOL_VERSION]: STATELESS_PROTOCOL_VERSIONS[0],
          [META.CLIENT_CAPABILITIES]: options.capabilities ?? {},
          ...params._meta as Record<string, unknown> | undefined,
        },
      },
    });
    return { id, answer: answer.promise };
  };
  const request = async (
    method: string,
    params: Record<string, unknown> = {},
  ): Promise<Record<string, unknown>> => {
    let sent = params;
    for (let round = 0; round < 10; round++) {
      const result = await send(method, sent).answer;
      if (
        result.resultType !== "input_required" ||
        options.onRequest === undefined
      ) return result;
      const asked = result.inputRequests as Record<
        string,
        { method: string; params: Record<string, unknown> }
      >;
      const inputResponses: Record<string, unknown> = {};
      for (const [key, { method, params }] of Object.entries(asked)) {
        inputResponses[key] = await options.onRequest(method, params);
      }
      sent = { ...params, inputResponses, requestState: result.requestState };
    }
    throw new Error(`${method}: still input-required after 10 rounds`);
  };
  const client: StatelessClient = {
    notifications,
    request,
    call: async (name, args = {}, meta) =>
      await request("tools/call", {
        name,
        arguments: args,
        ...(meta === undefined ? {} : { _meta: meta }),
      }) as CallToolResult & Record<string, unknown>,
    listTools: async () => (await request("tools/list")).tools as ListedTool[],
    listen: async (filter) => {
      const { id } = send("subscriptions/listen", { notifications: filter });
      await until(
        "the listen stream's acknowledgement",
        () =>
          notifications.some((n) =>
            n.method === "notifications/subscriptions/acknowledged" &&
            (n.params?._meta as Record<string, unknown>)[
                META.SUBSCRIPTION_ID
              ] === id
          ),
        { intervalMs: 1 },
      );
    },
    close: () => wire.close(),
    [Symbol.asyncDispose]: () => wire.close(),
  };
  return client;
}
