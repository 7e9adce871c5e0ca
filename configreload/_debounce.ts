// Internal: a trailing debounce with a bounded wait. Editors and Kubernetes
// produce bursts of events for one logical save; the trailing edge checks
// once after the burst, and the bound stops an endless burst (a log file
// written next to the config every few ms) from postponing the check forever.

import { type Clock, REAL_CLOCK } from "./_clock.ts";

/** Options for {@linkcode Debouncer}. */
export interface DebouncerOptions {
  /** Quiet time after the last trigger. */
  waitMs: number;
  /** The longest a burst may postpone the call (at least `waitMs`). */
  maxWaitMs: number;
  /** Time source; tests pass a fake one. */
  clock?: Clock;
}

/** Calls `fn` once a burst of `trigger()` calls has been quiet long enough. */
export class Debouncer {
  #fn: () => void;
  #waitMs: number;
  #maxWaitMs: number;
  #clock: Clock;
  #timer: unknown;
  #firstAt = 0;

  constructor(fn: () => void, options: DebouncerOptions) {
    this.#fn = fn;
    this.#waitMs = options.waitMs;
    this.#maxWaitMs = Math.max(options.waitMs, options.maxWaitMs);
    this.#clock = options.clock ?? REAL_CLOCK;
  }

  /** Whether a call is scheduled. */
  get pending(): boolean {
    return this.#timer !== undefined;
  }

  /**
   * Schedules `fn` `waitMs` after this call, but no later than `maxWaitMs`
   * after the first call of the burst.
   */
  trigger(): void {
    const now = this.#clock.now();
    if (this.#timer === undefined) {
      this.#firstAt = now;
    } else {
      this.#clock.clearTimeout(this.#timer);
    }
    const deadline = this.#firstAt + this.#maxWaitMs - now;
    const delay = Math.max(0, Math.min(this.#waitMs, deadline));
    this.#timer = this.#clock.setTimeout(this.#fire, delay);
  }

  /** Drops a scheduled call. */
  cancel(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #fire = (): void => {
    this.#timer = undefined;
    this.#fn();
  };
}
