// Internal: one HTTP session (2025-11-25) as the host side of a gate. The
// HTTP layer hands the gate an McpTransport; the relay speaks a
// MessageTransport, whose end is `onend` where the other has `onclose`.
// The session's first message carries the caller's verified token (OAuth),
// which the session's gate is made for, so what arrives before the gate
// has started waits here. The relay knows no HTTP streams: a message it
// sends the host goes on the stream of the request it belongs to (an
// answer by its id, a progress notification by its token, anything else
// on the latest request still open), so that a client without a GET
// stream still hears it.

import type {
  AuthInfo,
  JsonRpcId,
  JsonRpcMessage,
  McpTransport,
} from "../jsonrpc/types.ts";
import type { MessageTransport } from "../jsonrpc/_message_channel.ts";
import { isRecord } from "../_util/json_type.ts";
import { RPC_ERROR } from "../jsonrpc/errors.ts";

/** An HTTP session seen as a {@linkcode MessageTransport}. */
export class SessionTransport implements MessageTransport {
  onmessage?: (message: JsonRpcMessage) => void;
  onerror?: (error: Error) => void;
  onend?: () => void;
  /** The verified token of the session's first message, once it came. */
  readonly firstMessage: Promise<AuthInfo | undefined>;

  #transport: McpTransport;
  #first!: (auth: AuthInfo | undefined) => void;
  #sawFirst = false;
  // What came before start().
  #waiting: JsonRpcMessage[] | undefined = [];
  #ended = false;
  // The host's requests still unanswered, oldest first, with their progress tokens.
  #open = new Map<JsonRpcId, unknown>();

  /** Takes over `transport`'s handlers; what its owner set before keeps running. */
  constructor(transport: McpTransport) {
    this.#transport = transport;
    this.firstMessage = new Promise((resolve) => this.#first = resolve);
    const { onmessage, onclose, onerror } = transport;
    transport.onmessage = (message, extra) => {
      onmessage?.(message, extra);
      if (!this.#sawFirst) {
        this.#sawFirst = true;
        this.#first(extra?.authInfo as AuthInfo | undefined);
      }
      this.#receive(message);
    };
    transport.onclose = () => {
      onclose?.();
      this.#end();
    };
    transport.onerror = (error) => {
      onerror?.(error);
      this.onerror?.(error);
    };
  }

  start(): Promise<void> {
    const waiting = this.#waiting ?? [];
    this.#waiting = undefined;
    for (const message of waiting) this.#deliver(message);
    if (this.#ended) this.onend?.();
    return Promise.resolve();
  }

  async send(message: JsonRpcMessage): Promise<void> {
    let related: JsonRpcId | undefined;
    if (!("method" in message)) {
      if (message.id !== null) this.#open.delete(message.id);
    } else related = this.#relatedOf(message);
    if (related === undefined) {
      await this.#transport.send(message);
      return;
    }
    try {
      await this.#transport.send(message, { relatedRequestId: related });
    } catch {
      // That request's stream has ended: the session's own stream, if any.
      await this.#transport.send(message);
    }
  }

  close(): Promise<void> {
    return this.#transport.close();
  }

  /** Whether the session has closed. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Answers every request still waiting with `reason`, and closes the session. */
  async fail(reason: string): Promise<void> {
    const waiting = this.#waiting ?? [];
    this.#waiting = undefined;
    for (const message of waiting) {
      if (!("method" in message) || !("id" in message)) continue;
      await this.send({
        jsonrpc: "2.0",
        id: message.id,
        error: { code: RPC_ERROR.INTERNAL_ERROR, message: reason },
      }).catch(() => {});
    }
    await this.close();
  }

  #receive(message: JsonRpcMessage): void {
    if ("method" in message && "id" in message) {
      const meta = isRecord(message.params?._meta)
        ? message.params._meta
        : undefined;
      this.#open.set(message.id, meta?.progressToken);
    } else if (
      "method" in message && message.method === "notifications/cancelled"
    ) {
      // A cancelled request gets no answer.
      this.#open.delete(message.params?.requestId as JsonRpcId);
    }
    if (this.#waiting !== undefined) this.#waiting.push(message);
    else this.#deliver(message);
  }

  #deliver(message: JsonRpcMessage): void {
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    // A session closed before its first message has no gate to wait for.
    if (!this.#sawFirst) {
      this.#sawFirst = true;
      this.#first(undefined);
    }
    if (this.#waiting === undefined) this.onend?.();
  }

  /** The host request a notification or request of the gate's belongs with. */
  #relatedOf(
    message: Extract<JsonRpcMessage, { method: string }>,
  ): JsonRpcId | undefined {
    if (message.method === "notifications/progress") {
      const token = message.params?.progressToken;
      for (const [id, own] of this.#open) if (own === token) return id;
    }
    let latest: JsonRpcId | undefined;
    for (const id of this.#open.keys()) latest = id;
    return latest;
  }
}
