// Internal: a token bucket per key (a client address), for the sessions
// layer's limit on session creation. The table of keys is bounded: a key
// whose bucket has refilled is forgotten (it would start full anyway), and
// past `maxKeys` the least recently used key is dropped.

/** The most client addresses tracked at once by default. */
export const DEFAULT_MAX_KEYS = 10_000;

/** Options for {@linkcode RateLimiter}. */
export interface RateLimiterOptions {
  /** Tokens added per minute, per key; `Infinity` turns the limit off. */
  perMinute: number;
  /** The bucket's size: how many may be taken at once after a quiet spell. */
  burst: number;
  /** The most keys kept; past it the least recently used is forgotten. */
  maxKeys?: number;
  /** The clock, in milliseconds; tests pass their own. */
  now?: () => number;
}

interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date. */
  at: number;
}

/** Token buckets by key; see the file comment. */
export class RateLimiter {
  readonly #perMs: number;
  readonly #burst: number;
  readonly #maxKeys: number;
  readonly #now: () => number;
  /** In least-recently-used order: a key touched is moved to the end. */
  readonly #buckets = new Map<string, Bucket>();

  constructor(options: RateLimiterOptions) {
    this.#perMs = options.perMinute / 60_000;
    this.#burst = options.burst;
    this.#maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
    this.#now = options.now ?? (() => performance.now());
  }

  /** How many keys are tracked now. */
  get size(): number {
    return this.#buckets.size;
  }

  /**
   * Takes a token for `key`: 0 when one was taken, otherwise the
   * milliseconds until one is available (nothing is taken then).
   */
  take(key: string): number {
    if (this.#perMs === Infinity) return 0;
    const now = this.#now();
    this.#forgetStale(now);
    const bucket = this.#refill(key, now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.#perMs));
  }

  #refill(key: string, now: number): Bucket {
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: this.#burst, at: now };
      if (this.#buckets.size >= this.#maxKeys) {
        this.#buckets.delete(this.#buckets.keys().next().value!);
      }
    } else {
      this.#buckets.delete(key);
      bucket.tokens = Math.min(
        this.#burst,
        bucket.tokens + (now - bucket.at) * this.#perMs,
      );
      bucket.at = now;
    }
    this.#buckets.set(key, bucket);
    return bucket;
  }

  /**
   * Drops keys whose bucket has refilled, from the least recently used on:
   * at most two per call, so the work is spread and the table shrinks
   * faster than one new key a call can grow it.
   */
  #forgetStale(now: number): void {
    let dropped = 0;
    for (const [key, bucket] of this.#buckets) {
      if (dropped === 2) return;
      const full = bucket.tokens + (now - bucket.at) * this.#perMs >=
        this.#burst;
      if (!full) return;
      this.#buckets.delete(key);
      dropped++;
    }
  }
}
