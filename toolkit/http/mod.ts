/**
 * Streamable HTTP for `@forge/toolkit` servers, as web-standard layers.
 *
 * - {@linkcode streamableHttp} is the transport for
 *   `server.serve({ transport })`; {@linkcode serveHttp} runs a server on
 *   `Deno.serve` directly (loopback by default, DNS-rebinding protection on).
 * - {@linkcode createHttpHandler} gives the `Request → Response` handler to
 *   mount in `Deno.serve`, Hono, Deno Deploy, `Bun.serve`, a Cloudflare
 *   Worker's `fetch` or (through an adapter) Node's `node:http`.
 * - The handler is four {@linkcode HttpLayer}s, each usable alone:
 *   {@linkcode hostGuard}, {@linkcode bearerAuth}, {@linkcode bodyLimit}
 *   and {@linkcode sessions}; {@linkcode oauthResource} takes bearer auth's
 *   place for a server behind an OAuth authorization server.
 *
 * A separate entry so that stdio servers do not load the HTTP stack; it
 * needs of a server only `connect()` (a {@linkcode SessionHost}).
 *
 * Where it runs: the handler and its layers (the stateless 2026-07-28 path,
 * bearer and OAuth checks) run on Deno, Node (20 and later), Bun and
 * Cloudflare Workers (workerd), and nothing reaches for `Deno` at import;
 * {@linkcode serveHttp} and {@linkcode streamableHttp} listen with
 * `Deno.serve`, so they need Deno. On Cloudflare Workers serve with
 * `stateless: true`: a handler with sessions is refused there, since its
 * requests share no memory (see `examples/edge`).
 *
 * @example Serve on 127.0.0.1:8080/mcp with a bearer token
 * ```ts ignore
 * import { createServer, text } from "@forge/toolkit";
 * import { streamableHttp } from "@forge/toolkit/http";
 *
 * const server = createServer({ name: "remote", version: "0.1.0" });
 * server.tool({ name: "ping", description: "Answers pong", handler: () => text("pong") });
 *
 * await server.serve({
 *   transport: streamableHttp({ port: 8080, auth: { token: Deno.env.get("MCP_TOKEN")! } }),
 * });
 * ```
 *
 * @module
 */

export type { HttpLayer } from "./layer.ts";
export type { ConnectionInfo } from "./_client_address.ts";
export {
  hostGuard,
  type HostGuardOptions,
  LOOPBACK_HOSTS,
} from "./host_guard.ts";
export { bearerAuth, type HttpAuth } from "./bearer_auth.ts";
export { oauthResource, type OAuthResourceOptions } from "./oauth_resource.ts";
export {
  bodyLimit,
  type BodyLimitOptions,
  DEFAULT_BODY_DEADLINE_MS,
  DEFAULT_MAX_BODY_BYTES,
} from "./body_limit.ts";
export {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_BURST,
  DEFAULT_SESSION_IDLE_MS,
  DEFAULT_SESSIONS_PER_MINUTE,
  DEFAULT_UNUSED_SESSION_MS,
  sessions,
  type SessionsLayer,
  type SessionsOptions,
} from "./sessions.ts";
export {
  createHttpHandler,
  type HttpHandler,
  type HttpOptions,
} from "./handler.ts";
export {
  type HttpServer,
  serveHttp,
  type ServeHttpOptions,
  streamableHttp,
} from "./serve.ts";
