// Internal: a connection of parsed JSON-RPC messages, and an in-memory
// pair of them. The gate's relay speaks this shape on both sides, so that a
// side can be a stdio pipe (StdioTransport has it), a remote session, or
// another part of the same process (the aggregate's servers) with no JSON
// text in between.

import type { JsonRpcId, JsonRpcMessage } from "./types.ts";
import { asError } from "../_util/errors.ts";

/**
 * One end of a connection that carries parsed messages; a
 * `StdioTransport` is one.
 *
 * @example An end that answers every request with an empty result
 * ```ts
 * import type { MessageTransport } from "@forge/toolkit/client";
 *
 * const peer: MessageTransport = {
 *   start: () => Promise.resolve(),
 *   send(message) {
 *     if ("method" in message && "id" in message) {
 *       queueMicrotask(() => peer.onmessage?.({ jsonrpc: "2.0", id: message.id, result: {} }));
 *     }
 *     return Promise.resolve();
 *   },
 *   close: () => Promise.resolve(),
 * };
 * ```
 */
export interface MessageTransport {
  /**
   * Called for each message from the peer; `related` is the id of the
   * request of ours whose answer stream carried it, where the transport
   * knows it (a Streamable HTTP response).
   */
  onmessage?: (message: JsonRpcMessage, related?: JsonRpcId) => void;
  /** Called on a failure that did not end the connection. */
  onerror?: (error: Error) => void;
  /** Called once when the peer will send nothing more. */
  onend?: () => void;
  /** Starts delivering the peer's messages. */
  start(): Promise<void>;
  /** Sends one message; resolves once the peer has it. */
  send(message: JsonRpcMessage): Promise<void>;
  /** Closes this end: the peer's `onend` is called after what was sent. */
  close(): Promise<void>;
}

/**
 * Two connected ends in one process. A message sent on one end reaches the
 * other's `onmessage` on a later microtask, in order, as the same object
 * (neither side may change a message it sent or received). Messages sent
 * before the peer started wait for its `start()`.
 */
export function messageChannel(): [MessageTransport, MessageTransport] {
  const a = new ChannelEnd();
  const b = new ChannelEnd();
  a.peer = b;
  b.peer = a;
  return [a, b];
}

class ChannelEnd implements MessageTransport {
  onmessage?: (message: JsonRpcMessage) => void;
  onerror?: (error: Error) => void;
  onend?: () => void;
  peer!: ChannelEnd;

  #started = false;
  #closed = false;
  #ended = false;
  // What the peer sent before this end started.
  #waiting: (JsonRpcMessage | typeof END)[] = [];

  start(): Promise<void> {
    this.#started = true;
    for (const item of this.#waiting.splice(0)) this.#deliver(item);
    return Promise.resolve();
  }

  send(message: JsonRpcMessage): Promise<void> {
    if (this.#closed) {
      return Promise.reject(new Error("The connection is closed"));
    }
    this.peer.#receive(message);
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.peer.#receive(END);
    }
    return Promise.resolve();
  }

  #receive(item: JsonRpcMessage | typeof END): void {
    if (this.#started) this.#deliver(item);
    else this.#waiting.push(item);
  }

  #deliver(item: JsonRpcMessage | typeof END): void {
    queueMicrotask(() => {
      if (this.#ended) return;
      if (item === END) {
        this.#ended = true;
        this.onend?.();
        return;
      }
      try {
        this.onmessage?.(item);
      } catch (error) {
        this.onerror?.(asError(error));
      }
    });
  }
}

const END: unique symbol = Symbol("end");
