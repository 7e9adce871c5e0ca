// Internal: a layer of this repository's own (the gate's scope check) run
// by createHttpHandler past its OAuth resource server and body limit, where
// a request carries its verified token and its body is held to the limits.
// It travels in the options under a symbol that is not exported from the
// package, so that spreading the options (serveHttp does) keeps it and
// nothing outside the repository can set it.

import type { HttpLayer } from "./layer.ts";

const INNER = Symbol("forge.innerLayer");

/** A copy of `options` whose handler runs `layer` last, just before the MCP endpoint. */
export function withInnerLayer<T extends object>(
  options: T,
  layer: HttpLayer,
): T {
  return { ...options, [INNER]: layer };
}

/** The inner layer `options` carry, if any. */
export function innerLayerOf(options: object): HttpLayer | undefined {
  return (options as { [INNER]?: HttpLayer })[INNER];
}
