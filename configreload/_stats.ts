// Internal: process-wide counters that bench/configreload_bench.ts reads to
// show that an idle watcher does not wake up (no busy polling). Plain
// increments; nothing in the package reads them.

/** How often watchers woke up, and how many checks of the file finished. */
export const WATCH_STATS: { wakeups: number; checks: number } = {
  wakeups: 0,
  checks: 0,
};
