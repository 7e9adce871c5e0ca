// Internal: the time source of the timers that tests need to drive without
// waiting (the debounce); the real one unless a test injects its own.

/** A monotonic clock and one-shot timers on it. */
export interface Clock {
  /** Milliseconds, as `performance.now()`. */
  now(): number;
  /** Calls `fn` once after `ms`; returns an id for `clearTimeout`. */
  setTimeout(fn: () => void, ms: number): unknown;
  /** Cancels a timer; an unknown or fired id is ignored. */
  clearTimeout(id: unknown): void;
}

/** `performance.now()` and the global timers. */
export const REAL_CLOCK: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
};
