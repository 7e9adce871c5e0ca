/**
 * A client for any MCP server: {@linkcode connectServer} starts a stdio
 * server (or reaches a Streamable HTTP endpoint, or speaks over a transport
 * of parsed messages), initialises the session and keeps its lists, so that a toolkit server can mount it with
 * `server.mount(prefix, connection)`: its tools and prompts are listed
 * there as `<prefix>_<name>`, its resources keep their URIs, and calls,
 * prompts and reads are forwarded to it.
 *
 * @example Compose a toolkit server with the official filesystem server
 * ```ts ignore
 * import { createServer } from "@forge/toolkit";
 * import { connectServer } from "@forge/toolkit/client";
 *
 * const app = createServer({ name: "app", version: "1" });
 * app.mount("files", await connectServer({
 *   command: ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
 * }));
 * await app.serve(); // files_read_text_file, files_write_file, …
 * ```
 *
 * @module
 */

export {
  type ConnectionCapabilities,
  connectServer,
  type ConnectServerOptions,
  type MessageTransport,
} from "./connect_server.ts";
export type {
  ListName,
  McpClientConnection,
  ServerRequestOptions,
} from "./types.ts";
