/**
 * The JSON-RPC layer every transport shares: the message and transport types
 * a custom transport implements, the error codes the toolkit answers with,
 * and {@linkcode ProtocolError}, which any callback can throw to answer with
 * a JSON-RPC error.
 *
 * Runs on Deno, Node (20 and later), Bun and Cloudflare Workers (workerd):
 * nothing here reaches for `Deno` at import or when called.
 *
 * @example A transport that hands every message to a callback
 * ```ts
 * import type { JsonRpcMessage, McpTransport } from "@forge/toolkit/jsonrpc";
 *
 * class Loopback implements McpTransport {
 *   onmessage?: (message: JsonRpcMessage) => void;
 *   onclose?: () => void;
 *   sent: JsonRpcMessage[] = [];
 *   start(): Promise<void> {
 *     return Promise.resolve();
 *   }
 *   send(message: JsonRpcMessage): Promise<void> {
 *     this.sent.push(message);
 *     return Promise.resolve();
 *   }
 *   close(): Promise<void> {
 *     this.onclose?.();
 *     return Promise.resolve();
 *   }
 * }
 * new Loopback();
 * ```
 *
 * @module
 */

export type {
  AuthInfo,
  JsonRpcId,
  JsonRpcMessage,
  Listening,
  ListenOptions,
  McpTransport,
  SessionHost,
  SessionListener,
  TransportSendOptions,
} from "./types.ts";
export { ProtocolError, RPC_ERROR } from "./errors.ts";
export type { ProtocolErrorOptions } from "./errors.ts";
