// Internal: the address a server listens on, for the OAuth layer's default
// resource. Deno.serve tells a handler the client's address, never its own,
// and the request's `Host` is the client's to write; so serveHttp hands the
// address it bound to the handler it builds, through options registered
// here. Options from anywhere else carry none, and the layer then needs
// `resource`.

/** Answers the bound address; undefined before the listener is up. */
export type ListenAddress = () => Deno.NetAddr | undefined;

const ADDRESSES = new WeakMap<object, ListenAddress>();

/** A copy of `options` that carries `address`. */
export function withListenAddress<T extends object>(
  options: T,
  address: ListenAddress,
): T {
  const copy = { ...options };
  ADDRESSES.set(copy, address);
  return copy;
}

/** The address `options` carry, if serveHttp gave them one. */
export function listenAddressOf(options: object): ListenAddress | undefined {
  return ADDRESSES.get(options);
}

/**
 * The loopback names that reach a listener on `hostname`: `localhost` and
 * the loopback address of each family it listens on. None for a listener
 * on one address that is not loopback.
 */
export function loopbackNamesOf(hostname: string): readonly string[] {
  switch (hostname) {
    case "127.0.0.1":
    case "0.0.0.0":
      return ["127.0.0.1", "localhost"];
    case "::1":
      return ["[::1]", "localhost"];
    case "::":
      // Dual-stack: IPv4 connections reach it too.
      return ["127.0.0.1", "localhost", "[::1]"];
    default:
      return [];
  }
}
