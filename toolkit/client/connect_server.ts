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
import { HttpClientTransport } from "./_http_transport.ts";
import { ClientConnection, type ServerLink } from "./_connection.ts";

import type { McpClientConnection } from "./types.ts";
import { messageOf } from "../_util/errors.ts";

export type { MessageTransport } from "../jsonrpc/_message_channel.ts";

/** How long a server may take to answer `initialize` and each page of a list, by default. */
const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * Options for {@linkcode connectServer}: a `command` to start, a `url` to
 * reach, or a `transport` to speak over.
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
   * The server's Streamable HTTP endpoint, such as
   * `https://mcp.example.com/mcp`, spoken to in a 2025-11-25 session.
   *
   * @default {undefined}
   */
  url?: string | URL;
  /**
   * Headers sent with every HTTP request to `url`, such as
   * `{ Authorization: "Bearer …" }` (redirects are not followed, so they
   * never reach another URL).
   *
   * @default {undefined}
   */
  headers?: Record<string, string>;
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
  /**
   * What the connection tells the server it can do for it: `elicitation`
   * (as the client declares it, `{}` or `{ form: {}, url: {} }`) and
   * `sampling`. Mounted with `server.mount()`, the server's
   * `elicitation/create` and `sampling/createMessage` are then passed on to
   * the client of the call they belong to, and its answer back: over HTTP
   * the call whose answer stream carried them; over stdio, which does not
   * say, the one call under way (with none or several, the server is
   * answered an error saying why). Without them the server is told the
   * client can do neither.
   *
   * @default {{}}
   */
  capabilities?: ConnectionCapabilities;
  /**
   * Whether a session that ends by itself (a `command` server exits or
   * closes its stdout, a `url` server no longer knows the session) is
   * started again: the command is run again (a new session for a `url`)
   * 250 ms later, then after a wait that doubles with each end, up to 30 s,
   * and starts over at 250 ms after a session that lasted 30 s. Each end
   * is a line on stderr
   * (`Server "memory" is down: it exited with code 1; it is started again in 250 ms`).
   * Meanwhile requests are refused and the lists are empty, as after any
   * end; once the new session is up its lists are fetched and
   * {@linkcode McpClientConnection.onListChanged} listeners told, so a
   * server that mounts the connection lists its tools again. `closed`
   * resolves only at `close()`. Not for a `transport`, which cannot be
   * made again.
   *
   * @default {false}
   */
  restart?: boolean;
}

/**
 * What a connection may declare to the server it connects to.
 *
 * @example Let a mounted server ask the user
 * ```ts
 * import type { ConnectionCapabilities } from "@forge/toolkit/client";
 *
 * const capabilities: ConnectionCapabilities = { elicitation: {} };
 * ```
 */
export interface ConnectionCapabilities {
  /**
   * Elicitation, as an MCP client declares it.
   *
   * @default {undefined}
   */
  elicitation?: Record<string, unknown>;
  /**
   * Sampling, as an MCP client declares it.
   *
   * @default {undefined}
   */
  sampling?: Record<string, unknown>;
}

/**
 * Connects to an MCP server: starts `command` (or reaches `url` over
 * Streamable HTTP, or speaks over `transport`), initialises the session
 * (2025-11-25) and fetches every
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
  const { command, url, transport } = options;
  const given = [command, url, transport].filter((o) => o !== undefined);
  if (given.length !== 1) {
    throw new TypeError(
      `${action}: expected exactly one of command, url and transport`,
    );
  }
  let endpoint: URL | undefined;
  if (url !== undefined) {
    endpoint = URL.canParse(url) ? new URL(url) : undefined;
    if (endpoint?.protocol !== "http:" && endpoint?.protocol !== "https:") {
      throw new TypeError(
        `${action}: url: expected an http: or https: URL, got ${
          JSON.stringify(String(url))
        }`,
      );
    }
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
  const capabilities = options.capabilities ?? {};
  if (typeof capabilities !== "object" || capabilities === null) {
    throw new TypeError(
      `${action}: capabilities: expected an object such as { elicitation: {} }`,
    );
  }
  for (const [key, value] of Object.entries(capabilities)) {
    if (key !== "elicitation" && key !== "sampling") {
      throw new TypeError(
        `${action}: capabilities.${key}: unknown capability: expected elicitation or sampling`,
      );
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new TypeError(
        `${action}: capabilities.${key}: expected an object, as a client declares it ({} will do)`,
      );
    }
  }
  const restart = options.restart ?? false;
  if (typeof restart !== "boolean") {
    throw new TypeError(
      `${action}: restart: expected a boolean, got ${typeof restart}`,
    );
  }
  if (restart && transport !== undefined) {
    throw new TypeError(
      `${action}: restart needs a command or a url: a transport cannot be made again`,
    );
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(typeof timeoutMs === "number" && timeoutMs > 0)) {
    throw new RangeError(
      `${action}: timeoutMs must be > 0, got ${timeoutMs}`,
    );
  }
  const label = options.name ?? command?.[0] ?? endpoint?.href ??
    "over its transport";
  // A new link for each session: the command started again, a new HTTP session.
  const link = (): ServerLink => {
    if (transport !== undefined) return { transport };
    if (endpoint !== undefined) {
      return {
        transport: new HttpClientTransport(endpoint, { ...options.headers }),
      };
    }
    const process = spawnServer(command!, {
      env: options.env,
      cwd: options.cwd,
    });
    return { transport: process.transport, process };
  };
  let first: ServerLink;
  try {
    first = link();
  } catch (error) {
    throw new Error(`${action} ${label}: ${(error as Error).message}`);
  }
  const connection = new ClientConnection(first, {
    name: options.name,
    timeoutMs,
    capabilities: { ...capabilities },
    relink: restart ? link : undefined,
  });
  try {
    await connection.open();
  } catch (error) {
    await connection.close();
    throw new Error(
      `${action} ${label}: ${messageOf(error)}`,
      { cause: error },
    );
  }
  return connection;
}
