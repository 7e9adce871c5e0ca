// The shapes of a client connection, apart from connect_server.ts so that
// the connection (_connection.ts) and the server that mounts one import
// them without a circle.

/**
 * The lists a server announces changes of; `resources` covers its resource
 * templates too.
 *
 * @example
 * ```ts
 * import type { ListName } from "@forge/toolkit/client";
 *
 * const changed: ListName = "tools";
 * ```
 */
export type ListName = "tools" | "prompts" | "resources";

/**
 * Options for {@linkcode McpClientConnection.request}.
 *
 * @example Give up after a second, and watch progress
 * ```ts
 * import type { ServerRequestOptions } from "@forge/toolkit/client";
 *
 * const options: ServerRequestOptions = {
 *   signal: AbortSignal.timeout(1000),
 *   onprogress: (params) => console.error("progress", params.progress),
 * };
 * ```
 */
export interface ServerRequestOptions {
  /**
   * Cancels the request: the server is sent `notifications/cancelled` and
   * the request rejects with the signal's reason.
   *
   * @default {undefined}
   */
  signal?: AbortSignal;
  /**
   * Asks for progress (a `progressToken` of the client's own) and is
   * called with each `notifications/progress` params.
   *
   * @default {undefined}
   */
  onprogress?: (params: Record<string, unknown>) => void;
  /**
   * Gives up (and cancels) when no answer came within this many
   * milliseconds.
   *
   * @default {undefined}
   */
  timeoutMs?: number;
}

/**
 * A session with one MCP server (protocol 2025-11-25), made by
 * {@linkcode connectServer}: its answer to `initialize`, its lists (all
 * pages, fetched again when it says one changed), and requests with
 * cancellation and progress. A request after the session ended (the server
 * exited, closed the connection, or `close()` was called) rejects with an
 * `Error` saying why.
 *
 * @example List and call the tools of a server
 * ```ts ignore
 * import { connectServer } from "@forge/toolkit/client";
 *
 * await using memory = await connectServer({
 *   command: ["npx", "-y", "@modelcontextprotocol/server-memory"],
 * });
 * console.error(memory.tools.map((tool) => tool.name));
 * await memory.request("tools/call", { name: "read_graph", arguments: {} });
 * ```
 */
export interface McpClientConnection extends AsyncDisposable {
  /** The server's name: the `name` option, else the one it gave. */
  readonly name: string;
  /** The server's `serverInfo`. */
  readonly serverInfo: Record<string, unknown>;
  /** The server's capabilities. */
  readonly capabilities: Record<string, unknown>;
  /** The server's instructions, if it gave any. */
  readonly instructions: string | undefined;
  /** The protocol revision the server answered. */
  readonly protocolVersion: string;
  /** The server's tools, as it lists them. */
  readonly tools: readonly Record<string, unknown>[];
  /** The server's prompts. */
  readonly prompts: readonly Record<string, unknown>[];
  /** The server's resources. */
  readonly resources: readonly Record<string, unknown>[];
  /** The server's resource templates. */
  readonly resourceTemplates: readonly Record<string, unknown>[];
  /**
   * Resolves once the connection has ended for good: when its session ends,
   * or for one made with `restart`, at `close()`.
   */
  readonly closed: Promise<void>;
  /**
   * Sends a request; resolves with its result. A JSON-RPC error rejects
   * with a `ProtocolError` carrying the server's code, message and data.
   */
  request(
    method: string,
    params?: Record<string, unknown>,
    options?: ServerRequestOptions,
  ): Promise<Record<string, unknown>>;
  /**
   * Calls `listener` each time one of the server's lists has been fetched
   * again after it announced a change (or emptied when the session ended).
   * Returns a function that stops the listening.
   */
  onListChanged(listener: (list: ListName) => void): () => void;
  /**
   * Ends the session: the server's stdin closes, and a server that has not
   * exited 2 s later gets SIGTERM, 2 s after that SIGKILL. Resolves once it
   * has exited.
   */
  close(): Promise<void>;
}
