// Internal: the URLs an OAuth party may be reached at: https:, or http: on
// a loopback host for development. Shared by the toolkit's OAuth resource
// server and the gate's `auth:`, which each say in their own words what
// was wrong.

const LOOPBACK_HOSTS: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];

/**
 * `value` as a URL when it is an absolute https: URL, or http: on a
 * loopback host; `undefined` otherwise.
 *
 * @example
 * ```ts
 * import { secureUrlOf } from "./secure_url.ts";
 *
 * secureUrlOf("https://auth.example.com")?.host; // "auth.example.com"
 * secureUrlOf("http://127.0.0.1:8080/mcp")?.port; // "8080"
 * secureUrlOf("http://auth.example.com"); // undefined
 * ```
 */
export function secureUrlOf(value: unknown): URL | undefined {
  if (typeof value !== "string" || !URL.canParse(value)) return undefined;
  const url = new URL(value);
  const loopback = LOOPBACK_HOSTS.includes(url.hostname);
  return url.protocol === "https:" || (url.protocol === "http:" && loopback)
    ? url
    : undefined;
}
