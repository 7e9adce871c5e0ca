// Handlers made by wrapProbe: only these may claim probe support, because
// only these are guaranteed never to act on a probe. A leaf module, so that
// the server's registry can ask without importing the probe's tool side.

const PROBE_HANDLERS = new WeakSet<object>();

/** Records that `handler` answers probes without acting (wrapProbe's output). */
export function markProbeHandler(handler: object): void {
  PROBE_HANDLERS.add(handler);
}

/** Whether `handler` came from `wrapProbe`. */
export function answersProbes(handler: unknown): boolean {
  return typeof handler === "function" && PROBE_HANDLERS.has(handler);
}
