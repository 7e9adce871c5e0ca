// Internal: the key a client's session creations are counted under. An
// IPv4 address is its own key; an IPv6 address counts by its /64 prefix,
// because one host is routinely given a whole /64 and could otherwise pick
// a fresh address for every request.

/**
 * What a server tells a handler about the connection, in the part used
 * here: `Deno.serve`'s `info` is one. A structural type rather than
 * `Deno.Addr`, so that the handler's types need no Deno outside Deno.
 *
 * @example
 * ```ts
 * import type { ConnectionInfo } from "@forge/toolkit/http";
 *
 * const info: ConnectionInfo = {
 *   remoteAddr: { transport: "tcp", hostname: "203.0.113.7" },
 * };
 * ```
 */
export interface ConnectionInfo {
  /** The client's address: `transport` `"tcp"` or `"udp"` with a `hostname` counts. */
  readonly remoteAddr: {
    readonly transport: string;
    readonly hostname?: string;
  };
}

/**
 * The rate-limit key of the client behind `info`, or undefined when there
 * is no IP address to count by (no `info`, a Unix or vsock socket).
 */
export function clientKey(
  info: ConnectionInfo | undefined,
): string | undefined {
  const addr = info?.remoteAddr;
  if (
    addr === undefined || (addr.transport !== "tcp" && addr.transport !== "udp")
  ) {
    return undefined;
  }
  const hostname = addr.hostname;
  if (typeof hostname !== "string" || hostname === "") return undefined;
  return hostname.includes(":") ? ipv6Key(hostname) : hostname;
}

/** An IPv6 address's /64 prefix, or the IPv4 address it maps. */
function ipv6Key(hostname: string): string {
  const bare = hostname.replace(/^\[|\]$/g, "").replace(/%.*$/, "")
    .toLowerCase();
  const groups = expand(bare);
  if (groups === undefined) return bare;
  const mapped = groups.slice(0, 5).every((g) => g === 0) &&
    groups[5] === 0xffff;
  if (mapped) {
    return [groups[6] >> 8, groups[6] & 255, groups[7] >> 8, groups[7] & 255]
      .join(".");
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(":")}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, or undefined if it is not one. */
function expand(address: string): number[] | undefined {
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const parse = (part: string): number[] | undefined => {
    if (part === "") return [];
    const out: number[] = [];
    const pieces = part.split(":");
    for (const [index, piece] of pieces.entries()) {
      if (index === pieces.length - 1 && piece.includes(".")) {
        const bytes = piece.split(".").map(Number);
        if (
          bytes.length !== 4 ||
          bytes.some((b) => !Number.isInteger(b) || b < 0 || b > 255)
        ) return undefined;
        out.push(bytes[0] << 8 | bytes[1], bytes[2] << 8 | bytes[3]);
      } else if (/^[0-9a-f]{1,4}$/.test(piece)) {
        out.push(parseInt(piece, 16));
      } else return undefined;
    }
    return out;
  };
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  return [...head, ...new Array(missing).fill(0), ...tail];
}
