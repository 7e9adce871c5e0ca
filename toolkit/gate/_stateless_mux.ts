// Internal: the 2026-07-28 requests of every HTTP caller, served by one
// gate. The HTTP layer hands each stateless request to the gate as a
// transport of its own (one request, per-request `_meta`); this puts them
// all on one host connection, each request under an id of the mux's own,
// so that two callers' requests under the same id (every client starts at
// 0) cannot take each other's answers, and gives each transport back what
// belongs to it: its answer, the progress of its token, the notifications
// of its listen stream. A notification that names no request goes to the
// one request open, if there is exactly one, and nowhere otherwise.

import type {
  JsonRpcId,
  JsonRpcMessage,
  McpTransport,
} from "../jsonrpc/types.ts";
import type { MessageTransport } from "../jsonrpc/_message_channel.ts";
import { RPC_ERROR } from "../jsonrpc/errors.ts";
import { META } from "../jsonrpc/_versions.ts";
import { isRecord } from "../_util/json_type.ts";

/** The prefix of the mux's ids (and progress tokens) towards the gate. */
const ID_PREFIX = "forge-http-";

/** A caller's request on its way through the gate. */
interface Open {
  transport: McpTransport;
  /** The caller's id. */
  id: JsonRpcId;
  /** The caller's progress token, when it gave one. */
  progressToken?: string | number;
  listen: boolean;
}

/** Many one-request transports on one host connection of a gate. */
export class StatelessMux {
  /** The gate's host side. */
  readonly host: MessageTransport;

  #next = 0;
  #open = new Map<string, Open>();
  #ended = false;
  #peer: MuxEnd;

  constructor() {
    this.#peer = new MuxEnd((message) => this.#fromGate(message));
    this.host = this.#peer;
  }

  /** How many requests are on their way through the gate. */
  get openCount(): number {
    return this.#open.size;
  }

  /** Serves one stateless request's transport through the gate. */
  async attach(transport: McpTransport): Promise<void> {
    if (this.#ended) throw new Error("the gate is shutting down");
    const mine = new Set<string>();
    transport.onmessage = (message) => {
      if (!("method" in message) || !("id" in message)) return;
      const problem = metaProblem(message.method, message.params);
      if (problem !== undefined) {
        // What the server would say, said before its connection (a remote
        // one would take a request without a revision for a session's).
        transport.send({
          jsonrpc: "2.0",
          id: message.id,
          error: { code: RPC_ERROR.INVALID_PARAMS, message: problem },
        }).catch(() => {});
        return;
      }
      const id = `${ID_PREFIX}${++this.#next}`;
      mine.add(id);
      let params = message.params;
      const meta = isRecord(params?._meta) ? params._meta : undefined;
      const token = meta?.progressToken;
      const open: Open = {
        transport,
        id: message.id,
        listen: message.method === "subscriptions/listen",
      };
      if (typeof token === "string" || typeof token === "number") {
        open.progressToken = token;
        // Tokens are the caller's to choose, so they are remapped too.
        params = { ...params, _meta: { ...meta, progressToken: id } };
      }
      this.#open.set(id, open);
      this.#peer.deliver({ ...message, id, params } as JsonRpcMessage);
    };
    transport.onclose = () => {
      for (const id of mine) {
        if (!this.#open.delete(id)) continue;
        // Gone before its answer (the caller hung up, or a listen ended).
        this.#peer.deliver({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: id, reason: "the caller went away" },
        });
      }
      mine.clear();
    };
    await transport.start();
  }

  /** Ends every request still open; the gate's host side ends. */
  async close(): Promise<void> {
    this.#ended = true;
    const open = [...this.#open.values()];
    this.#open.clear();
    await Promise.all(open.map(({ transport }) => transport.close()));
    this.#peer.end();
  }

  #fromGate(message: JsonRpcMessage): void {
    if (!("method" in message)) {
      const open = typeof message.id === "string"
        ? this.#open.get(message.id)
        : undefined;
      if (open === undefined) return;
      this.#open.delete(message.id as string);
      this.#send(open, { ...message, id: open.id });
      return;
    }
    if ("id" in message) {
      // Stateless callers cannot be asked anything mid-request.
      this.#peer.deliver({
        jsonrpc: "2.0",
        id: message.id,
        error: {
          code: RPC_ERROR.METHOD_NOT_FOUND,
          message:
            "Method not found: a 2026-07-28 caller over HTTP takes no requests",
        },
      });
      return;
    }
    const params = message.params;
    if (message.method === "notifications/progress") {
      const open = this.#open.get(String(params?.progressToken));
      if (open?.progressToken === undefined) return;
      this.#send(open, {
        ...message,
        params: { ...params, progressToken: open.progressToken },
      });
      return;
    }
    const meta = isRecord(params?._meta) ? params._meta : undefined;
    const subscription = meta?.[META.SUBSCRIPTION_ID];
    if (subscription !== undefined) {
      const open = this.#open.get(String(subscription));
      if (open === undefined) return;
      this.#send(open, {
        ...message,
        params: {
          ...params,
          _meta: { ...meta, [META.SUBSCRIPTION_ID]: open.id },
        },
      });
      return;
    }
    const calls = [...this.#open.values()].filter((open) => !open.listen);
    if (calls.length === 1) this.#send(calls[0], message);
  }

  #send(open: Open, message: JsonRpcMessage): void {
    open.transport.send(message).catch(() => {});
  }
}

/**
 * What is wrong with a 2026-07-28 request's `_meta` (its revision and the
 * client's capabilities are required), as the toolkit's server words it.
 */
function metaProblem(
  method: string,
  params: Record<string, unknown> | undefined,
): string | undefined {
  const meta = params?._meta;
  if (!isRecord(meta)) {
    return `Invalid params for ${method}: _meta: expected an object with ${META.PROTOCOL_VERSION} and ${META.CLIENT_CAPABILITIES}`;
  }
  if (typeof meta[META.PROTOCOL_VERSION] !== "string") {
    return `Invalid params for ${method}: _meta.${META.PROTOCOL_VERSION}: expected string`;
  }
  if (!isRecord(meta[META.CLIENT_CAPABILITIES])) {
    return `Invalid params for ${method}: _meta.${META.CLIENT_CAPABILITIES}: expected object`;
  }
  return undefined;
}

/** The gate's end of the mux. */
class MuxEnd implements MessageTransport {
  onmessage?: (message: JsonRpcMessage) => void;
  onerror?: (error: Error) => void;
  onend?: () => void;

  #toMux: (message: JsonRpcMessage) => void;
  #waiting: JsonRpcMessage[] | undefined = [];
  #ended = false;

  constructor(toMux: (message: JsonRpcMessage) => void) {
    this.#toMux = toMux;
  }

  start(): Promise<void> {
    const waiting = this.#waiting ?? [];
    this.#waiting = undefined;
    for (const message of waiting) this.deliver(message);
    if (this.#ended) this.onend?.();
    return Promise.resolve();
  }

  send(message: JsonRpcMessage): Promise<void> {
    this.#toMux(message);
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  /** Hands the gate a message from a caller. */
  deliver(message: JsonRpcMessage): void {
    if (this.#waiting !== undefined) {
      this.#waiting.push(message);
      return;
    }
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  /** The callers are gone: the gate's host has ended. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#waiting === undefined) this.onend?.();
  }
}
