/**
 * The shape of an HTTP layer: a web-standard middleware that gets a request
 * and the rest of the chain, and answers a response.
 *
 * @module
 */

/**
 * A web-standard HTTP middleware: it answers `request` itself (a refusal,
 * an MCP response) or hands it, possibly changed, to `next`. The toolkit's
 * layers ({@linkcode hostGuard}, {@linkcode bearerAuth},
 * {@linkcode bodyLimit}, {@linkcode sessions}) have this shape, so each
 * works alone in a `Deno.serve` handler, in Hono, or in a chain of your own.
 *
 * @example A logging layer in front of a handler
 * ```ts
 * import type { HttpLayer } from "@forge/toolkit/http";
 *
 * const logged: HttpLayer = async (request, next) => {
 *   const response = await next(request);
 *   console.error(request.method, new URL(request.url).pathname, response.status);
 *   return response;
 * };
 * const response = await logged(
 *   new Request("http://localhost/health"),
 *   () => Promise.resolve(new Response("ok")),
 * );
 * response.status; // 200
 * ```
 */
export type HttpLayer = (
  request: Request,
  next: (request: Request) => Promise<Response>,
) => Promise<Response>;
