/**
 * Streamable HTTP for `@forge/toolkit` servers: `serveHttp()` runs a server
 * on `Deno.serve` (loopback by default, DNS-rebinding protection on), and
 * `createHttpHandler()` gives a `Request → Response` handler to mount in
 * `Deno.serve`, Hono or Deno Deploy. `server.serve({ http })` uses the same
 * code. A separate entry so that stdio servers do not load the HTTP stack.
 *
 * @example Serve on 127.0.0.1:8080/mcp with a bearer token
 * ```ts ignore
 * import { createServer, text } from "@forge/toolkit";
 * import { serveHttp } from "@forge/toolkit/http";
 *
 * const server = createServer({ name: "remote", version: "0.1.0" });
 * server.tool({ name: "ping", description: "Answers pong", handler: () => text("pong") });
 *
 * const http = serveHttp(server, { port: 8080, auth: { token: Deno.env.get("MCP_TOKEN")! } });
 * await http.finished;
 * ```
 *
 * @module
 */

export {
  createHttpHandler,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_MS,
  type HttpAuth,
  type HttpHandler,
  type HttpOptions,
  type HttpServer,
  LOOPBACK_HOSTS,
  serveHttp,
  type ServeHttpOptions,
} from "./http.ts";
