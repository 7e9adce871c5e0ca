// Internal: the address the gate serves Streamable HTTP on (`--http` or the
// policy file's `listen:`), as `host:port`, and whether it is loopback:
// until callers are identified (`auth:`), only this machine may reach it.

/** A `host:port` to listen on. */
export interface ListenAddress {
  /** The address as written, without brackets around an IPv6 one. */
  hostname: string;
  /** The TCP port; 0 picks a free one. */
  port: number;
}

/**
 * Reads `host:port` (`127.0.0.1:8080`, `[::1]:0`, `localhost:8080`);
 * `undefined` when it is not one, so that each caller says it its way.
 */
export function parseListen(text: string): ListenAddress | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s/]+):(\d{1,5})$/.exec(text);
  if (match === null) return undefined;
  const port = Number(match[2]);
  if (port > 65535) return undefined;
  const host = match[1];
  return {
    hostname: host.startsWith("[") ? host.slice(1, -1) : host,
    port,
  };
}

/**
 * Whether `hostname` is reached from this machine only: `localhost`, an
 * address of 127.0.0.0/8, or `::1`. A name that resolves elsewhere, a
 * wildcard (`0.0.0.0`, `::`) and every other address are not.
 */
export function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === "localhost" || host === "::1") return true;
  const parts = host.split(".");
  return parts.length === 4 && parts[0] === "127" &&
    parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255);
}
