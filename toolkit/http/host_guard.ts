/**
 * The host guard layer: DNS-rebinding protection by the `Host` and `Origin`
 * headers.
 *
 * @module
 */

import type { HttpLayer } from "./layer.ts";
import { jsonType } from "../_util/json_type.ts";
import { CODE, rpcError } from "./_response.ts";
import { type Host, hostOf, LOOPBACK_NAMES, malformedHost } from "./_host.ts";

/**
 * Host names a local server answers to unless told otherwise.
 *
 * @example Accept a public name as well
 * ```ts
 * import { createServer } from "@forge/toolkit";
 * import { createHttpHandler, LOOPBACK_HOSTS } from "@forge/toolkit/http";
 *
 * createHttpHandler(createServer({ name: "s", version: "1" }), {
 *   allowedHosts: [...LOOPBACK_HOSTS, "mcp.example.com"],
 * });
 * ```
 */
export const LOOPBACK_HOSTS: readonly string[] = LOOPBACK_NAMES;

/**
 * Options for {@linkcode hostGuard}.
 *
 * @example
 * ```ts
 * import type { HostGuardOptions } from "@forge/toolkit/http";
 *
 * const options: HostGuardOptions = {
 *   allowedHosts: ["mcp.example.com"],
 *   allowedOrigins: ["https://app.example.com"],
 * };
 * ```
 */
export interface HostGuardOptions {
  /**
   * Host names (`example.com`, any port) or hosts (`example.com:8443`, that
   * port only) accepted in the `Host` header. IPv6 addresses in brackets.
   *
   * @default {["localhost", "127.0.0.1", "[::1]"]}
   */
  allowedHosts?: readonly string[];
  /**
   * Origins (`https://app.example.com`) accepted in the `Origin` header.
   * Without it, an origin is accepted when its host name is an allowed host.
   *
   * @default {undefined}
   */
  allowedOrigins?: readonly string[];
}

/**
 * Creates the host guard layer: a request whose `Host` is not an allowed
 * host, or whose `Origin` is foreign or the opaque `null`, gets 403, so that
 * a web page cannot reach a local server through a DNS name it controls. A
 * `Host` that is not exactly `name[:port]` (user info, a path, spaces, an
 * empty value, a bad port) gets 400. Requests without `Origin` (clients
 * that are not browsers) pass the origin check.
 *
 * @example In a Deno.serve handler
 * ```ts
 * import { hostGuard } from "@forge/toolkit/http";
 *
 * const guard = hostGuard(); // localhost, 127.0.0.1 and [::1]
 * const hello = () => Promise.resolve(new Response("hello"));
 * const handler = (request: Request) => guard(request, hello);
 *
 * const response = await handler(
 *   new Request("http://127.0.0.1:8000/", { headers: { origin: "https://evil.example" } }),
 * );
 * response.status; // 403
 * ```
 */
export function hostGuard(options: HostGuardOptions = {}): HttpLayer {
  const allowed = options.allowedHosts ?? LOOPBACK_HOSTS;
  if (!Array.isArray(allowed)) {
    throw new TypeError(
      `Cannot create HTTP handler: allowedHosts must be an array of host names, got ${
        jsonType(allowed)
      }`,
    );
  }
  const hosts = new Set(allowed.map((host) => normaliseHostEntry(host)));
  let origins: Set<string> | undefined;
  if (options.allowedOrigins !== undefined) {
    if (!Array.isArray(options.allowedOrigins)) {
      throw new TypeError(
        `Cannot create HTTP handler: allowedOrigins must be an array of origins, got ${
          jsonType(options.allowedOrigins)
        }`,
      );
    }
    origins = new Set(options.allowedOrigins.map(normaliseOriginEntry));
  }

  function originAllowed(origin: string): boolean {
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      return false;
    }
    if (parsed.origin === "null") return false;
    if (origins !== undefined) return origins.has(parsed.origin);
    return hosts.has(parsed.hostname) || hosts.has(parsed.host);
  }

  return async (request, next) => {
    const host = hostOf(request);
    if (host === undefined) {
      return malformedHost(request);
    }
    if (!hostAllowed(hosts, host)) {
      return rpcError(
        403,
        CODE.TRANSPORT,
        `Forbidden: Host ${
          JSON.stringify(host.host)
        } is not allowed; add it to allowedHosts to accept it`,
      );
    }
    const origin = request.headers.get("origin");
    if (origin !== null && !originAllowed(origin)) {
      return rpcError(
        403,
        CODE.TRANSPORT,
        `Forbidden: Origin ${
          JSON.stringify(origin)
        } is not allowed; add it to allowedOrigins to accept it`,
      );
    }
    return await next(request);
  };
}

function normaliseHostEntry(host: unknown): string {
  if (typeof host !== "string" || host === "") {
    throw new TypeError(
      `Cannot create HTTP handler: allowedHosts entries must be host names such as "example.com" or "example.com:8443", got ${
        JSON.stringify(host)
      }`,
    );
  }
  return host.toLowerCase();
}

function normaliseOriginEntry(origin: unknown): string {
  try {
    if (typeof origin !== "string") throw new TypeError();
    const parsed = new URL(origin);
    if (parsed.origin === "null") throw new TypeError();
    return parsed.origin;
  } catch {
    throw new TypeError(
      `Cannot create HTTP handler: allowedOrigins entries must be origins such as "https://app.example.com", got ${
        JSON.stringify(origin)
      }`,
    );
  }
}

function hostAllowed(hosts: Set<string>, host: Host): boolean {
  return hosts.has(host.name) || hosts.has(host.host);
}
