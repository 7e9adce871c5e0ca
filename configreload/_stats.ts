// Internal: a process-wide counter of finished file checks, so that a test can
// wait for the next check instead of sleeping. A plain increment; nothing in
// the package reads it.

/** How many checks of a watched file have finished. */
export const WATCH_STATS: { checks: number } = { checks: 0 };
