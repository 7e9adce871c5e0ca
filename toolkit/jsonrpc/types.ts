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
  /**
   * Set by a transport that carries one request per connection, such as
   * stateless HTTP: there is no `initialize` before each request, so the
   * server serves requests without one.
   */
  stateless?: boolean;
  /**
   * Set by a transport whose peer speaks the stateless revision
   * (2026-07-28), such as HTTP with a 2026 `MCP-Protocol-Version` header and
   * no session: every request carries its protocol version and client
   * capabilities in `_meta`, and none is preceded by `initialize`.
   */
  perRequestMeta?: boolean;
  /** Told the negotiated protocol version after initialisation. */
  setProtocolVersion?: (version: string) => void;
}

/**
 * What a multi-session transport (Streamable HTTP) needs of a server: a
 * way to serve one more session. `ToolServer` is one; so is anything else
 * that can take a transport, so transports depend on this and not on the
 * server.
 *
 * @example A listener that serves one session per transport it is handed
 * ```ts
 * import type { McpTransport, SessionHost } from "@forge/toolkit/jsonrpc";
 *
 * async function serveAll(host: SessionHost, transports: McpTransport[]) {
 *   await Promise.all(transports.map((transport) => host.connect(transport)));
 * }
 * ```
 */
export interface SessionHost {
  /** Serves one session over `transport`; resolves once it has started. */
  connect(transport: McpTransport): Promise<void>;
}

/**
 * Options a {@linkcode SessionListener} is started with by `server.serve()`.
 *
 * @example
 * ```ts
 * import type { ListenOptions } from "@forge/toolkit/jsonrpc";
 *
 * const options: ListenOptions = { handleSignals: false };
 * ```
 */
export interface ListenOptions {
  /**
   * Whether the listener stops on SIGINT and SIGTERM.
   *
   * @default {true}
   */
  handleSignals?: boolean;
}

/**
 * A running listener: it ends when {@linkcode Listening.shutdown} is called
 * or its own stop condition (a signal) arrives.
 *
 * @example Stop a listener after a minute
 * ```ts
 * import type { Listening } from "@forge/toolkit/jsonrpc";
 *
 * async function runFor(listening: Listening, ms: number): Promise<void> {
 *   const timer = setTimeout(() => listening.shutdown(), ms);
 *   await listening.finished;
 *   clearTimeout(timer);
 * }
 * ```
 */
export interface Listening {
  /** Resolves once the listener has stopped and its sessions are closed. */
  readonly finished: Promise<void>;
  /** Stops taking sessions, closes the open ones, and resolves when done. */
  shutdown(): Promise<void>;
}

/**
 * A transport that serves many sessions, each with its own
 * {@linkcode McpTransport}: `server.serve({ transport })` starts it, and
 * `streamableHttp()` from `@forge/toolkit/http` is one.
 *
 * @example A listener made from a list of transports
 * ```ts
 * import type { McpTransport, SessionListener } from "@forge/toolkit/jsonrpc";
 *
 * function sessions(transports: McpTransport[]): SessionListener {
 *   return {
 *     listen(host) {
 *       const done = Promise.all(transports.map((t) => host.connect(t)));
 *       return {
 *         finished: done.then(() => {}),
 *         shutdown: async () => {
 *           await Promise.all(transports.map((t) => t.close()));
 *         },
 *       };
 *     },
 *   };
 * }
 * ```
 */
export interface SessionListener {
  /** Starts serving sessions of `host`. */
  listen(host: SessionHost, options: ListenOptions): Listening;
}

/**
 * What a verified access token says: its scopes, client, subject and
 * expiry, and all its claims. `token` itself is not enumerable, so logging
 * or serialising the object does not leak it.
 *
 * @example Let only some clients delete
 * ```ts
 * import { error, text, type ToolContext } from "@forge/toolkit";
 * import type { AuthInfo } from "@forge/toolkit/jsonrpc";
 *
 * function canDelete(auth: AuthInfo | undefined): boolean {
 *   return auth?.scopes.includes("notes:delete") === true;
 * }
 * function deleteNote(id: string, ctx: ToolContext) {
 *   if (!canDelete(ctx.auth)) return error("Deleting needs the notes:delete scope");
 *   return text(`deleted ${id} for ${ctx.auth?.subject}`);
 * }
 * ```
 */
export interface AuthInfo {
  /** The access token as presented (not enumerable). */
  readonly token?: string;
  /** The OAuth client the token was issued to (`client_id`, or `azp`). */
  readonly clientId?: string;
  /** Whom the token speaks for (`sub`). */
  readonly subject?: string;
  /** The granted scopes (`scope`, or `scp`). */
  readonly scopes: readonly string[];
  /** When the token expires, in seconds since the epoch (`exp`). */
  readonly expiresAt?: number;
  /** Every claim of the token (or of its introspection answer). */
  readonly claims: Readonly<Record<string, unknown>>;
}
