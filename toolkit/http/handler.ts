/**
 * {@linkcode createHttpHandler}: the layers composed into one
 * `Request → Response` function serving MCP at one path.
 *
 * @module
 */

import type { SessionHost } from "../jsonrpc/types.ts";
import type { HttpLayer } from "./layer.ts";
import { jsonType } from "../_util/json_type.ts";
import type { ConnectionInfo } from "./_client_address.ts";
import { bearerAuth, type HttpAuth } from "./bearer_auth.ts";
import { oauthResource, type OAuthResourceOptions } from "./oauth_resource.ts";
import type { BodyLimitOptions } from "./body_limit.ts";
import { bodyLayer, markBody } from "./_body.ts";
import { hostGuard, type HostGuardOptions } from "./host_guard.ts";
import { sessions, type SessionsOptions } from "./sessions.ts";
import { statelessHttp } from "./_stateless.ts";
import { notFound, shuttingDown } from "./_response.ts";
import { carryAuthInfo } from "./_auth_info.ts";
import { metadataPaths } from "./_protected_resource.ts";
import { pathnameOf } from "./_pathname.ts";
import { listenAddressOf, withListenAddress } from "./_listen_address.ts";
import { innerLayerOf } from "./_inner_layer.ts";

/**
 * Options for {@linkcode createHttpHandler}: those of each layer, and
 * whether the host guard and bearer auth are on.
 *
 * @example
 * ```ts
 * import type { HttpOptions } from "@forge/toolkit/http";
 *
 * const options: HttpOptions = { stateless: true, jsonResponse: true };
 * ```
 */
export interface HttpOptions
  extends HostGuardOptions, BodyLimitOptions, SessionsOptions {
  /**
   * Check `Host` and `Origin` against the allowed hosts and origins and
   * answer 403 otherwise, so that a web page cannot reach a local server
   * through a rebound DNS name.
   *
   * @default {true}
   */
  dnsRebindingProtection?: boolean;
  /**
   * Require a bearer token. Exclusive with `oauth`.
   *
   * @default {undefined}
   */
  auth?: HttpAuth;
  /**
   * Be an OAuth resource server: serve the protected resource metadata
   * and require access tokens from the authorization servers it names,
   * handed to tools as `ctx.auth` (see {@linkcode oauthResource}; its
   * `path` is this handler's). Exclusive with `auth`.
   *
   * @default {undefined}
   */
  oauth?: OAuthResourceOptions;
}

/**
 * A `Request → Response` function serving MCP at one path, with
 * `close()` to shut it down. Mount it in `Deno.serve`, Hono or Deno Deploy.
 *
 * @example
 * ```ts ignore
 * import { createServer } from "@forge/toolkit";
 * import { createHttpHandler } from "@forge/toolkit/http";
 *
 * const handler = createHttpHandler(createServer({ name: "s", version: "1" }));
 * const listener = Deno.serve({ port: 8080 }, handler);
 * // later
 * await handler.close();
 * await listener.shutdown();
 * ```
 */
export interface HttpHandler {
  /**
   * Answers one HTTP request. `info` is what `Deno.serve` passes a
   * handler; without it (Hono, a test) session creation is not limited per
   * client address.
   */
  (
    request: Request,
    info?: ConnectionInfo,
  ): Promise<Response>;
  /** The number of open sessions. */
  readonly sessionCount: number;
  /**
   * Stops taking requests (new ones get 503), lets in-flight tool calls
   * finish within the server's `graceMs`, then closes every session and the
   * server.
   */
  close(): Promise<void>;
}

/**
 * Creates the HTTP handler for `host` (a `ToolServer`, or any
 * {@linkcode SessionHost}): MCP's Streamable HTTP transport at
 * `options.path` (`/mcp`), 404 elsewhere, behind the host guard, bearer
 * auth (when `auth` is set) or the OAuth resource server (`oauth`) and the
 * body limit, in that order.
 *
 * @example Mounting it in Deno.serve
 * ```ts ignore
 * import { createServer, text } from "@forge/toolkit";
 * import { createHttpHandler } from "@forge/toolkit/http";
 *
 * const server = createServer({ name: "hello", version: "0.1.0" });
 * server.tool({ name: "ping", description: "Answers pong", handler: () => text("pong") });
 *
 * const handler = createHttpHandler(server, { auth: { token: Deno.env.get("TOKEN")! } });
 * Deno.serve({ hostname: "127.0.0.1", port: 8080 }, handler);
 * ```
 */
export function createHttpHandler(
  host: SessionHost,
  options: HttpOptions = {},
): HttpHandler {
  const mcp = sessions(host, options);
  // 2026-07-28 requests need no session: served before the sessions layer sees them.
  const stateless = statelessHttp(host, options);
  const path = options.path ?? "/mcp";
  const layers: HttpLayer[] = [];
  if (options.dnsRebindingProtection !== false) {
    layers.push(hostGuard(options));
  }
  if (options.auth !== undefined && options.oauth !== undefined) {
    throw new TypeError(
      "Cannot create HTTP handler: auth and oauth exclude each other (auth checks one shared token, oauth an authorization server's tokens)",
    );
  }
  if (options.auth !== undefined) layers.push(bearerAuth(options.auth));
  // serveHttp's bound address goes on to the layer, for its default resource.
  const listening = listenAddressOf(options);
  const oauth = options.oauth === undefined ? undefined : oauthResource(
    listening === undefined
      ? { ...options.oauth, path }
      : withListenAddress({ ...options.oauth, path }, listening),
  );
  // The metadata is served past the host guard, without a token.
  const metadata = options.oauth === undefined
    ? undefined
    : metadataPaths(path, options.oauth.resource);
  if (oauth !== undefined) layers.push(oauth);
  // bodyLimit's limits, enforced by the stateless and sessions layers' own
  // reads (readBodyText) rather than by a copy of the request around a
  // counting stream: same 413 and 408, no second Request per call.
  layers.push(bodyLayer(options, markBody));
  // The gate's own check of a call, past the token and the body limit.
  const inner = innerLayerOf(options);
  if (inner !== undefined) layers.push(inner);
  const outside = () => Promise.resolve(notFound(path));

  let closing: Promise<void> | undefined;
  const handler = (async (
    request: Request,
    info?: ConnectionInfo,
  ): Promise<Response> => {
    if (closing !== undefined) return shuttingDown();
    if (!(request instanceof Request)) {
      throw new TypeError(
        `Cannot handle HTTP request: expected a Request, got ${
          jsonType(request)
        }`,
      );
    }
    // The path first: a stray request learns nothing about hosts or auth.
    const pathname = pathnameOf(request.url);
    if (pathname !== path && metadata?.has(pathname) !== true) {
      return notFound(path);
    }
    // Built per request so that the connection's address reaches the
    // sessions layer past layers that hand on a new Request.
    const chain = layers.reduceRight<(request: Request) => Promise<Response>>(
      (next, layer) =>
        oauth === undefined ? (request) => layer(request, next) : (request) =>
          // The verified token stays with the request a later layer remakes.
          layer(request, (handed) => next(carryAuthInfo(request, handed))),
      (request) => stateless(request, (rest) => mcp(rest, outside, info)),
    );
    return await chain(request);
  }) as HttpHandler;
  Object.defineProperties(handler, {
    sessionCount: { get: () => mcp.sessionCount, enumerable: true },
    close: {
      value: () => (closing ??= mcp.close().then(() => stateless.close())),
      enumerable: true,
    },
  });
  return handler;
}
