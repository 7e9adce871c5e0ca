/**
 * The transport contract between the toolkit's server and a byte stream or
 * HTTP connection, as small structural types (the SDK's `Transport`
 * interface has the same shape).
 *
 * @module
 */

/**
 * A JSON-RPC 2.0 request id.
 *
 * @example Track requests awaiting an answer
 * ```ts
 * import type { JsonRpcId, JsonRpcMessage } from "@forge/toolkit/jsonrpc";
 *
 * const pending = new Map<JsonRpcId, (answer: JsonRpcMessage) => void>();
 * pending.set(1, (answer) => console.log("answered:", answer));
 * pending.set("call-7", (answer) => console.log("answered:", answer));
 * ```
 */
export type JsonRpcId = string | number;

/**
 * A JSON-RPC 2.0 message: request, notification, result or error.
 *
 * @example Tell the four kinds apart in a custom transport
 * ```ts
 * import type { JsonRpcMessage } from "@forge/toolkit/jsonrpc";
 *
 * function describe(message: JsonRpcMessage): string {
 *   if ("method" in message) {
 *     return "id" in message ? `request ${message.method}` : `notification ${message.method}`;
 *   }
 *   return "error" in message ? `error ${message.error.code}` : `result for ${message.id}`;
 * }
 * describe({ jsonrpc: "2.0", id: 1, method: "tools/list" }); // "request tools/list"
 * ```
 */
export type JsonRpcMessage =
  | {
    jsonrpc: "2.0";
    id: JsonRpcId;
    method: string;
    params?: Record<string, unknown>;
  }
  | { jsonrpc: "2.0"; method: string; params?: Record<string, unknown> }
  | { jsonrpc: "2.0"; id: JsonRpcId; result: Record<string, unknown> }
  | {
    jsonrpc: "2.0";
    id: JsonRpcId | null;
    error: { code: number; message: string; data?: unknown };
  };

/**
 * Where a message goes, for transports that multiplex streams.
 *
 * @example Route a progress notification to the stream of its request
 * ```ts
 * import type { JsonRpcMessage, TransportSendOptions } from "@forge/toolkit/jsonrpc";
 *
 * const streams = new Map<string | number, JsonRpcMessage[]>([[7, []]]);
 * function send(message: JsonRpcMessage, options: TransportSendOptions = {}): void {
 *   const id = options.relatedRequestId;
 *   if (id !== undefined) streams.get(id)?.push(message);
 * }
 * send({ jsonrpc: "2.0", method: "notifications/progress" }, { relatedRequestId: 7 });
 * ```
 */
export interface TransportSendOptions {
  /** The request a notification or response belongs to. */
  relatedRequestId?: JsonRpcId;
}

/**
 * A bidirectional message channel, as the MCP SDK's `Transport` defines it.
 *
 * @example
 * ```ts
 * import type { JsonRpcMessage, McpTransport } from "@forge/toolkit/jsonrpc";
 *
 * class Loopback implements McpTransport {
 *   onmessage?: (message: JsonRpcMessage) => void;
 *   async start(): Promise<void> {}
 *   async send(message: JsonRpcMessage): Promise<void> {
 *     this.onmessage?.(message);
 *   }
 *   async close(): Promise<void> {}
 * }
 * ```
 */
export interface McpTransport {
  /** Starts reading; called once by the server. */
  start(): Promise<void>;
  /** Sends one message; resolves when it has been handed to the peer. */
  send(message: JsonRpcMessage, options?: TransportSendOptions): Promise<void>;
  /** Closes the channel. */
  close(): Promise<void>;
  /** Called by the transport when the channel has closed. */
  onclose?: () => void;
  /** Called by the transport on an error that did not close it. */
  onerror?: (error: Error) => void;
  /** Called by the transport for each message received. */
  onmessage?: (
    message: JsonRpcMessage,
    extra?: Record<string, unknown>,
  ) => void;
  /** The session id, for transports that have sessions. */
  sessionId?: string;
  /** Told the negotiated protocol version after initialisation. */
  setProtocolVersion?: (version: string) => void;
}
