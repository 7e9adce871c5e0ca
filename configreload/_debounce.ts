// Internal: a trailing debounce with a bounded wait. Editors and Kubernetes
// produce bursts of events for one logical save; the trailing edge checks
// once after the burst, and the bound stops an endless burst (a log file
// written next to the config every few ms) from postponing the check forever.

/** Calls `fn` once a burst of `trigger()` calls has been quiet long enough. */
export class Debouncer {
  #fn: () => void;
  #waitMs: number;
  #maxWaitMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #firstAt = 0;

  constructor(fn: () => void, waitMs: number, maxWaitMs: number) {
    this.#fn = fn;
    this.#waitMs = waitMs;
    this.#maxWaitMs = Math.max(waitMs, maxWaitMs);
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
    const now = performance.now();
    if (this.#timer === undefined) {
      this.#firstAt = now;
    } else {
      clearTimeout(this.#timer);
    }
    const deadline = this.#firstAt + this.#maxWaitMs - now;
    const delay = Math.max(0, Math.min(this.#waitMs, deadline));
    this.#timer = setTimeout(this.#fire, delay);
  }

  /** Drops a scheduled call. */
  cancel(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #fire = (): void => {
    this.#timer = undefined;
    this.#fn();
  };
}
