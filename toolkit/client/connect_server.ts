/**
 * {@linkcode connectServer}: a client connection to any MCP server, a
 * command the client starts (a stdio server) or a transport of parsed
 * messages, which `server.mount(prefix, connection)` mounts in a toolkit
 * server.
 *
 * @module
 */

import type { MessageTransport } from "../jsonrpc/_message_channel.ts";
import { spawnServer } from "./_command.ts";
import { ClientConnection } from "./_connection.ts";

export type { MessageTransport } from "../jsonrpc/_message_channel.ts";

/** How long a server may take to answer `initialize` and each page of a list, by default. */
const DEFAULT_TIMEOUT_MS = 10_000;

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
 * Options for {@linkcode connectServer}: a `command` to start, or a
 * `transport` to speak over.
 *
 * @example Start the official filesystem server
 * ```ts
 * import type { ConnectServerOptions } from "@forge/toolkit/client";
 *
 * const options: ConnectServerOptions = {
 *   command: ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
 *   name: "files",
 *   timeoutMs: 30_000,
 * };
 * ```
 */
export interface ConnectServerOptions {
  /**
   * The server's program and its arguments, started with piped stdin and
   * stdout (newline-delimited JSON-RPC) and this process's stderr.
   *
   * @default {undefined}
   */
  command?: readonly string[];
  /**
   * Environment variables for `command`, added to this process's.
   *
   * @default {undefined}
   */
  env?: Record<string, string>;
  /**
   * The working directory of `command`.
   *
   * @default {undefined}
   */
  cwd?: string;
  /**
   * Speak over this transport instead of starting a command (a
   * `StdioTransport` over any streams fits).
   *
   * @default {undefined}
   */
  transport?: MessageTransport;
  /**
   * How errors and logs name the server.
   *
   * @default {the name in its serverInfo}
   */
  name?: string;
  /**
   * How long the server may take to answer `initialize` and each page of
   * a list, in milliseconds.
   *
   * @default {10000}
   */
  timeoutMs?: number;
}

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
  /** Resolves once the session has ended. */
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

/**
 * Connects to an MCP server: starts `command` (or speaks over
 * `transport`), initialises the session (2025-11-25) and fetches every
 * list the server offers. Rejects with an `Error` naming the server when it
 * cannot start, refuses `initialize` or does not answer within `timeoutMs`
 * (a started command is stopped then). Mount the connection in a toolkit
 * server with `server.mount(prefix, connection)`.
 *
 * @example Mount the official memory server in a toolkit server
 * ```ts ignore
 * import { createServer } from "@forge/toolkit";
 * import { connectServer } from "@forge/toolkit/client";
 *
 * const app = createServer({ name: "app", version: "1" });
 * app.mount("memory", await connectServer({
 *   command: ["npx", "-y", "@modelcontextprotocol/server-memory"],
 * }));
 * await app.serve(); // lists memory_read_graph, memory_create_entities, …
 * ```
 */
export async function connectServer(
  options: ConnectServerOptions,
): Promise<McpClientConnection> {
  const action = "Cannot connect to server";
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      `${action}: expected options { command } or { transport }, got ${
        options === null ? "null" : typeof options
      }`,
    );
  }
  const { command, transport } = options;
  if ((command === undefined) === (transport === undefined)) {
    throw new TypeError(
      `${action}: expected exactly one of command and transport`,
    );
  }
  if (
    command !== undefined &&
    (!Array.isArray(command) || command.length === 0 ||
      command.some((part) => typeof part !== "string"))
  ) {
    throw new TypeError(
      `${action}: command: expected a non-empty array of strings`,
    );
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(typeof timeoutMs === "number" && timeoutMs > 0)) {
    throw new RangeError(
      `${action}: timeoutMs must be > 0, got ${timeoutMs}`,
    );
  }
  const label = options.name ?? command?.[0] ?? "over its transport";
  let process;
  try {
    process = command === undefined
      ? undefined
      : spawnServer(command, { env: options.env, cwd: options.cwd });
  } catch (error) {
    throw new Error(`${action} ${label}: ${(error as Error).message}`);
  }
  const connection = new ClientConnection(process?.transport ?? transport!, {
    name: options.name,
    process,
    timeoutMs,
  });
  try {
    await connection.open();
  } catch (error) {
    await connection.close();
    throw new Error(
      `${action} ${label}: ${
        error instanceof Error ? error.message : String(error)
      }`,
      { cause: error },
    );
  }
  return connection;
}
