/**
 * The OAuth resource server layer: access tokens from an authorization
 * server verified on every request (RFC 6750, RFC 9068, RFC 8707), and the
 * protected resource metadata that tells clients where to get them
 * (RFC 9728), as MCP's authorization spec asks of a remote server.
 *
 * @module
 */

import { secureUrlOf } from "../_util/secure_url.ts";
import type { AuthInfo } from "../jsonrpc/types.ts";
import type { HttpLayer } from "./layer.ts";
import { jsonType } from "../_util/json_type.ts";
import { setAuthInfo } from "./_auth_info.ts";
import {
  DEFAULT_ALGORITHMS,
  type JwtVerifier,
  jwtVerifier,
  KeysUnavailable,
  TokenRejected,
} from "./_jwt.ts";
import {
  metadataPaths,
  metadataUrl,
  type ResourceMetadata,
  serveMetadata,
} from "./_protected_resource.ts";
import { CODE, rpcError } from "./_response.ts";
import { withoutAuthorization } from "./_copy_request.ts";
import { checkWholeNumber } from "../_util/whole_number.ts";
import { hostOf, malformedHost } from "./_host.ts";
import {
  type ListenAddress,
  listenAddressOf,
  loopbackNamesOf,
} from "./_listen_address.ts";
import { pathnameOf } from "./_pathname.ts";

/** RFC 6749's scope-token: printable ASCII but space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Options for {@linkcode oauthResource} (and the `oauth` option of
 * `createHttpHandler`, `streamableHttp` and `serveHttp`). Tokens are
 * checked either as JWTs against the authorization server's keys (`jwks`)
 * or by your own `verify` (token introspection, opaque tokens): exactly one
 * of the two.
 *
 * @example JWTs from one authorization server, one scope required
 * ```ts
 * import type { OAuthResourceOptions } from "@forge/toolkit/http";
 *
 * const oauth: OAuthResourceOptions = {
 *   resource: "https://mcp.example.com/mcp",
 *   authorizationServers: ["https://auth.example.com"],
 *   jwks: "https://auth.example.com/.well-known/jwks.json",
 *   scopes: ["mcp:tools"],
 * };
 * ```
 */
export interface OAuthResourceOptions {
  /**
   * The issuer URLs of the authorization servers clients may get tokens
   * from, listed in the metadata document. A token's `iss` must be one of
   * them.
   */
  authorizationServers: readonly string[];
  /**
   * The resource identifier: the public URL of the MCP endpoint, such as
   * `https://mcp.example.com/mcp`. A token's `aud` must contain it
   * (RFC 8707), and the metadata document names it. Required, except
   * under `serveHttp` (or `streamableHttp`) on a loopback address: there
   * the audience is `http://<name>:<port><path>` for the port it listens on
   * and the loopback names that reach it (`127.0.0.1` or `[::1]`, and
   * `localhost`), never anything a request says, which suits local
   * development. Behind a proxy or TLS terminator, or on any public name,
   * set it.
   *
   * @default {undefined}
   */
  resource?: string;
  /**
   * The path of the MCP endpoint, for the metadata document's path-suffixed
   * URL and the default `resource`. `createHttpHandler` sets it to its own
   * `path`.
   *
   * @default {"/mcp"}
   */
  path?: string;
  /**
   * The authorization server's signing keys: its JWKS URL (fetched on first
   * use, kept for `jwksCacheMs`, fetched again early when a token names an
   * unknown key), or a JWKS `{ keys: [...] }` itself.
   *
   * @default {undefined}
   */
  jwks?: string | URL | { keys: readonly JsonWebKey[] };
  /**
   * Checks a token yourself (an opaque token, RFC 7662 introspection):
   * answer its claims (`sub`, `scope`, `client_id`, `exp`, …) or
   * `undefined` when it is not valid. Answered claims are then held to the
   * same rules as a JWT's where present: `active` not false, `exp` and
   * `nbf` within the clock skew, `aud` containing the resource, `iss` one of
   * the authorization servers. A throw answers 500 and is logged without
   * the token.
   *
   * @default {undefined}
   */
  verify?: (
    token: string,
    request: Request,
  ) =>
    | Record<string, unknown>
    | undefined
    | Promise<Record<string, unknown> | undefined>;
  /**
   * Scopes every request's token must have; a token without one of them
   * gets 403 `insufficient_scope` naming them all.
   *
   * @default {[]}
   */
  scopes?: readonly string[];
  /**
   * The scopes listed as `scopes_supported` in the metadata document,
   * which clients request when no challenge named any.
   *
   * @default {scopes}
   */
  scopesSupported?: readonly string[];
  /**
   * A human-readable name of the server, as `resource_name`.
   *
   * @default {undefined}
   */
  resourceName?: string;
  /**
   * How far `exp` and `nbf` may be off the server's clock, in milliseconds.
   *
   * @default {30000}
   */
  clockSkewMs?: number;
  /**
   * How long a fetched JWKS is used before it is fetched again, in
   * milliseconds.
   *
   * @default {600000}
   */
  jwksCacheMs?: number;
  /**
   * The JWS algorithms a token may be signed with.
   *
   * @default {["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"]}
   */
  algorithms?: readonly string[];
}

/**
 * Creates the OAuth resource server layer. It serves the protected
 * resource metadata (RFC 9728) at `/.well-known/oauth-protected-resource`
 * and at that path followed by the endpoint's path, without a token. Every
 * other request needs `Authorization: Bearer <access token>`:
 *
 * - none: 401 with `WWW-Authenticate: Bearer resource_metadata="…"` (and
 *   `scope="…"` when `scopes` are required), which starts a client's
 *   authorization flow;
 * - a token that is not valid (signature, issuer, audience, expiry): 401
 *   with `error="invalid_token"` and a description of what was wrong;
 * - a valid token without the required scopes: 403 with
 *   `error="insufficient_scope"` and the `scope` needed.
 *
 * A good request goes on without its `Authorization` header, its verified
 * token attached for the sessions layer, which hands it to the tool as
 * `ctx.auth`. The token is never logged or echoed.
 *
 * @example Refusals and the metadata document
 * ```ts
 * import { oauthResource } from "@forge/toolkit/http";
 *
 * const oauth = oauthResource({
 *   resource: "https://mcp.example.com/mcp",
 *   authorizationServers: ["https://auth.example.com"],
 *   jwks: "https://auth.example.com/.well-known/jwks.json",
 *   scopes: ["mcp:tools"],
 * });
 * const mcp = () => Promise.resolve(new Response("the MCP endpoint"));
 *
 * const refused = await oauth(new Request("https://mcp.example.com/mcp", { method: "POST" }), mcp);
 * refused.status; // 401
 * refused.headers.get("www-authenticate");
 * // Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"
 *
 * const metadata = await oauth(
 *   new Request("https://mcp.example.com/.well-known/oauth-protected-resource/mcp"),
 *   mcp,
 * );
 * (await metadata.json()).authorization_servers; // ["https://auth.example.com"]
 * ```
 */
export function oauthResource(options: OAuthResourceOptions): HttpLayer {
  const checked = checkOptions(options);
  const { path, resource, issuers, scopes, clockSkewMs } = checked;
  const listening = resource === undefined
    ? listenAddressOf(options)
    : undefined;
  if (resource === undefined && listening === undefined) {
    throw new TypeError(
      `${WHAT}: resource is required: set it to the public URL of the endpoint, such as "http://127.0.0.1:8080${
        path === "/" ? "/" : path
      }" (only serveHttp knows the address it listens on, and the request's Host is the client's to choose)`,
    );
  }
  const paths = metadataPaths(path, resource);
  const scopeParam = scopes.length === 0 ? "" : `, scope="${scopes.join(" ")}"`;

  const verifyToken = async (
    token: string,
    request: Request,
    audiences: readonly string[],
  ): Promise<Record<string, unknown>> => {
    if (checked.jwt !== undefined) {
      return await checked.jwt(token, {
        issuers,
        audiences,
        clockToleranceS: clockSkewMs / 1000,
        algorithms: checked.algorithms,
      });
    }
    const claims = await options.verify!(token, request);
    return checkClaims(claims, audiences, issuers, clockSkewMs);
  };

  return async (request, next) => {
    const own = resource === undefined
      ? listenedResource(request, path, listening!)
      : { here: resource, audiences: [resource] };
    if (own instanceof Response) return own;
    const { here, audiences } = own;
    if (paths.has(pathnameOf(request.url))) {
      return serveMetadata(
        request,
        {
          resource: here,
          authorizationServers: issuers,
          scopesSupported: checked.scopesSupported,
          resourceName: checked.resourceName,
        } satisfies ResourceMetadata,
      );
    }
    const challenge = `Bearer resource_metadata="${metadataUrl(here)}"`;
    const match = BEARER.exec(request.headers.get("authorization") ?? "");
    if (match === null) {
      return rpcError(
        401,
        CODE.TRANSPORT,
        "Unauthorized: send Authorization: Bearer <access token> (see the resource_metadata of WWW-Authenticate)",
        { headers: { "www-authenticate": challenge + scopeParam } },
      );
    }
    const token = match[1];
    let claims: Record<string, unknown>;
    try {
      claims = await verifyToken(token, request, audiences);
    } catch (error) {
      if (error instanceof TokenRejected) {
        return rpcError(
          401,
          CODE.TRANSPORT,
          `Unauthorized: ${error.reason}`,
          {
            headers: {
              "www-authenticate":
                `Bearer error="invalid_token", error_description="${error.reason}", ${
                  challenge.slice("Bearer ".length)
                }${scopeParam}`,
            },
          },
        );
      }
      const message = error instanceof Error ? error.message : String(error);
      console.error(`Access token verification failed: ${message}`);
      return error instanceof KeysUnavailable
        ? rpcError(
          503,
          CODE.TRANSPORT,
          "Service Unavailable: the authorization server's keys could not be fetched",
        )
        : rpcError(
          500,
          CODE.INTERNAL_ERROR,
          "Internal error: the token could not be verified",
        );
    }
    const auth = authInfo(token, claims);
    const missing = scopes.filter((scope) => !auth.scopes.includes(scope));
    if (missing.length > 0) {
      return rpcError(
        403,
        CODE.TRANSPORT,
        `Forbidden: the token lacks the scope ${missing.join(" ")}`,
        {
          headers: {
            "www-authenticate": `Bearer error="insufficient_scope", scope="${
              scopes.join(" ")
            }", ${
              challenge.slice("Bearer ".length)
            }, error_description="the token lacks the scope ${
              missing.join(" ")
            }"`,
          },
        },
      );
    }
    const forwarded = withoutAuthorization(request);
    setAuthInfo(forwarded, auth);
    return await next(forwarded);
  };
}

interface CheckedOptions {
  path: string;
  resource: string | undefined;
  issuers: readonly string[];
  scopes: readonly string[];
  scopesSupported: readonly string[];
  resourceName: string | undefined;
  clockSkewMs: number;
  algorithms: readonly string[];
  jwt: JwtVerifier | undefined;
}

const WHAT = "Cannot create OAuth resource server";

function checkOptions(options: OAuthResourceOptions): CheckedOptions {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      `${WHAT}: expected options { authorizationServers, jwks or verify }, got ${
        jsonType(options)
      }`,
    );
  }
  const issuers = options.authorizationServers;
  if (!Array.isArray(issuers) || issuers.length === 0) {
    throw new TypeError(
      `${WHAT}: authorizationServers must be a non-empty array of issuer URLs, got ${
        jsonType(issuers)
      }`,
    );
  }
  for (const issuer of issuers) secureUrl("authorizationServers", issuer);
  const path = options.path ?? "/mcp";
  if (typeof path !== "string" || !path.startsWith("/")) {
    throw new TypeError(
      `${WHAT}: path must start with "/", got ${JSON.stringify(path)}`,
    );
  }
  const resource = options.resource;
  if (resource !== undefined) {
    const url = secureUrl("resource", resource);
    if (url.hash !== "" || resource.includes("#")) {
      throw new TypeError(
        `${WHAT}: resource must not have a fragment (RFC 8707), got ${
          JSON.stringify(resource)
        }`,
      );
    }
  }
  const hasJwks = options.jwks !== undefined;
  const hasVerify = options.verify !== undefined;
  if (hasJwks === hasVerify) {
    throw new TypeError(
      `${WHAT}: expected exactly one of jwks (JWT access tokens) and verify (your own check)`,
    );
  }
  if (hasVerify && typeof options.verify !== "function") {
    throw new TypeError(
      `${WHAT}: verify must be a function, got ${jsonType(options.verify)}`,
    );
  }
  const scopes = scopeList("scopes", options.scopes ?? []);
  const scopesSupported = options.scopesSupported === undefined
    ? scopes
    : scopeList("scopesSupported", options.scopesSupported);
  if (
    options.resourceName !== undefined &&
    typeof options.resourceName !== "string"
  ) {
    throw new TypeError(
      `${WHAT}: resourceName must be a string, got ${
        jsonType(options.resourceName)
      }`,
    );
  }
  const clockSkewMs = options.clockSkewMs ?? 30_000;
  checkWholeNumber(WHAT, "clockSkewMs", clockSkewMs, { unit: "milliseconds" });
  const cacheMs = options.jwksCacheMs ?? 600_000;
  checkWholeNumber(WHAT, "jwksCacheMs", cacheMs, {
    min: 1,
    unit: "milliseconds",
  });
  const algorithms = options.algorithms ?? DEFAULT_ALGORITHMS;
  if (
    !Array.isArray(algorithms) || algorithms.length === 0 ||
    !algorithms.every((a) => typeof a === "string" && a !== "")
  ) {
    throw new TypeError(
      `${WHAT}: algorithms must be a non-empty array of JWS algorithm names, got ${
        JSON.stringify(algorithms)
      }`,
    );
  }
  if (algorithms.some((a) => /^(HS\d+|none)$/i.test(a))) {
    throw new TypeError(
      `${WHAT}: algorithms must be asymmetric (a public key is no secret), got ${
        algorithms.join(", ")
      }`,
    );
  }
  let jwt: JwtVerifier | undefined;
  if (hasJwks) {
    const jwks = options.jwks!;
    if (typeof jwks === "string" || jwks instanceof URL) {
      secureUrl("jwks", String(jwks));
    } else if (
      typeof jwks !== "object" || jwks === null || !Array.isArray(jwks.keys)
    ) {
      throw new TypeError(
        `${WHAT}: jwks must be a JWKS URL or { keys: [...] }, got ${
          jsonType(jwks)
        }`,
      );
    }
    jwt = jwtVerifier(jwks, cacheMs);
  }
  return {
    path,
    resource,
    issuers: [...issuers],
    scopes,
    scopesSupported,
    resourceName: options.resourceName,
    clockSkewMs,
    algorithms: [...algorithms],
    jwt,
  };
}

/**
 * The resource when none is configured, from the address serveHttp
 * listens on: `http://<name>:<port><path>` for each loopback name that
 * reaches it, any of which a token may name. The `Host` only picks which of
 * them the metadata and challenge name (MCP clients check that it is the
 * URL they connected to); a `Host` of another name is refused. Never the
 * request URL or the `Host`'s port, which would let a client choose the
 * audience its token is checked against.
 */
function listenedResource(
  request: Request,
  path: string,
  listening: ListenAddress,
): { here: string; audiences: readonly string[] } | Response {
  const host = hostOf(request);
  if (host === undefined) return malformedHost(request);
  const address = listening();
  const names = address === undefined ? [] : loopbackNamesOf(address.hostname);
  if (address === undefined || names.length === 0) {
    return rpcError(
      403,
      CODE.TRANSPORT,
      "Forbidden: the server does not listen on a loopback address; set oauth.resource to the public URL of the endpoint to serve it",
    );
  }
  if (!names.includes(host.name)) {
    return rpcError(
      403,
      CODE.TRANSPORT,
      `Forbidden: Host ${JSON.stringify(host.host)} is not one of ${
        names.join(", ")
      }; set oauth.resource to the public URL of the endpoint to serve it`,
    );
  }
  // Through URL, so that a default port reads as a client's URL has it.
  const urlOf = (name: string) =>
    `${new URL(`http://${name}:${address.port}`).origin}${path}`;
  return { here: urlOf(host.name), audiences: names.map(urlOf) };
}

/** An absolute https: URL, or http: on a loopback host (for development). */
function secureUrl(name: string, value: unknown): URL {
  const url = secureUrlOf(value);
  if (url === undefined) {
    throw new TypeError(
      `${WHAT}: ${name} must be an absolute https: URL (http: only on localhost), got ${
        JSON.stringify(value)
      }`,
    );
  }
  return url;
}

function scopeList(name: string, value: unknown): readonly string[] {
  if (
    !Array.isArray(value) ||
    !value.every((s) => typeof s === "string" && SCOPE_TOKEN.test(s))
  ) {
    throw new TypeError(
      `${WHAT}: ${name} must be an array of scope names (no spaces, quotes or backslashes), got ${
        JSON.stringify(value)
      }`,
    );
  }
  return [...value];
}

/** Claims from `verify`, held to a JWT's rules where they say anything. */
function checkClaims(
  claims: unknown,
  audiences: readonly string[],
  issuers: readonly string[],
  skewMs: number,
): Record<string, unknown> {
  if (claims === undefined || claims === null) {
    throw new TokenRejected("the token is not valid");
  }
  if (typeof claims !== "object" || Array.isArray(claims)) {
    throw new TypeError(
      `verify must answer the token's claims as an object or undefined, got ${
        jsonType(claims)
      }`,
    );
  }
  const c = claims as Record<string, unknown>;
  const now = Date.now();
  if (c.active === false) throw new TokenRejected("the token is not active");
  if (typeof c.exp === "number" && c.exp * 1000 + skewMs <= now) {
    throw new TokenRejected("the token has expired");
  }
  if (typeof c.nbf === "number" && c.nbf * 1000 - skewMs > now) {
    throw new TokenRejected("the token is not valid yet (nbf)");
  }
  if (c.aud !== undefined) {
    const aud = Array.isArray(c.aud) ? c.aud : [c.aud];
    if (!aud.some((a) => audiences.includes(a))) {
      throw new TokenRejected(
        "the token was not issued for this resource (aud)",
      );
    }
  }
  if (c.iss !== undefined && !issuers.includes(c.iss as string)) {
    throw new TokenRejected(
      "the token was not issued by a trusted authorization server (iss)",
    );
  }
  return c;
}

/** The AuthInfo of a verified token; the token itself not enumerable. */
function authInfo(token: string, claims: Record<string, unknown>): AuthInfo {
  const scope = claims.scope ?? claims.scp;
  const scopes = typeof scope === "string"
    ? scope.split(" ").filter((s) => s !== "")
    : Array.isArray(scope)
    ? scope.filter((s): s is string => typeof s === "string")
    : [];
  const clientId = claims.client_id ?? claims.azp;
  const info: AuthInfo = {
    ...(typeof clientId === "string" ? { clientId } : {}),
    ...(typeof claims.sub === "string" ? { subject: claims.sub } : {}),
    scopes: Object.freeze(scopes),
    ...(typeof claims.exp === "number" ? { expiresAt: claims.exp } : {}),
    claims: Object.freeze({ ...claims }),
  };
  Object.defineProperty(info, "token", { value: token, enumerable: false });
  return Object.freeze(info);
}
