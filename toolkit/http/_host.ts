// Internal: the host a request was sent to, read strictly. Deno builds
// `request.url` from an absolute-form request line or from the raw `Host`
// (`Host: localhost:1@evil.example` becomes the URL of evil.example), so
// neither the URL nor an unchecked `Host` may decide anything. The host
// guard and the OAuth audience both read the host here: the `Host` header
// when there is one, else the URL's (HTTP/2's `:authority`, or a Request
// made in-process), accepted only as exactly `name[:port]`.

import { CODE, rpcError } from "./_response.ts";

/** A name: DNS labels (`_` allowed, as in container names) or an IPv4 address. */
const NAME =
  /^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*$/;
/** An IPv6 address in brackets, without a zone. */
const IPV6 = /^\[[0-9a-f:.]+\]$/;
const PORT = /^[1-9][0-9]{0,4}$/;

/** Host names whose servers only this machine can reach. */
export const LOOPBACK_NAMES: readonly string[] = Object.freeze([
  "localhost",
  "127.0.0.1",
  "[::1]",
]);

/** A parsed `Host`: its lower-cased name, port, and both together. */
export interface Host {
  readonly name: string;
  readonly port: number | undefined;
  /** `name` or `name:port`, lower-cased. */
  readonly host: string;
}

/** `value` as a host, or undefined unless it is exactly `name[:port]`. */
export function parseHost(value: string): Host | undefined {
  const host = value.toLowerCase();
  let name = host;
  let port: string | undefined;
  const close = host.lastIndexOf("]");
  const colon = host.lastIndexOf(":");
  if (colon > close) {
    name = host.slice(0, colon);
    port = host.slice(colon + 1);
    if (!PORT.test(port) || Number(port) > 65535) return undefined;
  }
  if (!(name.startsWith("[") ? IPV6.test(name) : NAME.test(name))) {
    return undefined;
  }
  return { name, port: port === undefined ? undefined : Number(port), host };
}

/**
 * What a request names as its host: the `Host` header, or the URL's host
 * when it has none. Undefined when that is not exactly `name[:port]`.
 */
export function hostOf(request: Request): Host | undefined {
  const header = request.headers.get("host");
  return parseHost(header ?? new URL(request.url).host);
}

/** The 400 answer to a request whose host is not exactly `name[:port]`. */
export function malformedHost(request: Request): Response {
  return rpcError(
    400,
    CODE.TRANSPORT,
    `Bad Request: Host ${
      JSON.stringify(rawHostOf(request))
    } is not a host name with an optional port`,
  );
}

/** The raw host value a request carries, for messages. */
export function rawHostOf(request: Request): string {
  return request.headers.get("host") ?? new URL(request.url).host;
}
