// Internal: the waits between the starts of a server that keeps ending,
// for the gate's servers and the client's connections alike: a first wait
// that doubles with each end, up to a bound, and starts over once a run has
// lasted long enough to count as well.

/** The first wait before a server is started again. */
export const BACKOFF_FIRST_MS = 250;
/** The longest wait between two starts. */
export const BACKOFF_MAX_MS = 30_000;
/** How long a run must last for the next end to wait the first delay again. */
export const BACKOFF_STABLE_MS = 30_000;

/** The waits between the starts of one server. */
export class Backoff {
  #failures = 0;
  #upSince: number | undefined;

  /** The server is up from `now` on. */
  up(now: number = performance.now()): void {
    this.#upSince = now;
  }

  /**
   * The wait before the next start, after the server ended (or a start
   * failed) at `now`: each one doubles the last, and the first comes back
   * after a run of {@linkcode BACKOFF_STABLE_MS} or more.
   */
  next(now: number = performance.now()): number {
    if (
      this.#upSince !== undefined && now - this.#upSince >= BACKOFF_STABLE_MS
    ) {
      this.#failures = 0;
    }
    this.#upSince = undefined;
    const delay = Math.min(
      BACKOFF_FIRST_MS * 2 ** this.#failures,
      BACKOFF_MAX_MS,
    );
    this.#failures++;
    return delay;
  }
}

/** A wait as a line says it: `250 ms`, `2 s`. */
export function formatWait(ms: number): string {
  return ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`;
}
