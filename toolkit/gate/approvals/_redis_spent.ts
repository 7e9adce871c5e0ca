// Internal: the nonces of answered 2026-07-28 approval rounds, spent in
// Redis. The instances of a gate sharing Redis sign rounds with one key, so
// a state answered on one instance verifies on every other: its nonce must
// be spent where all of them see it, or the same approval sent to each
// instance in turn would run the call once per instance. Each nonce is a
// key that expires with its state (SET NX PX): Redis forgets it only when
// the state could not count anyway.

import type { Link } from "../../redis/_link.ts";

const SPEND = `if redis.call('SET', KEYS[1], '1', 'PX', ARGV[1], 'NX') then
  return 1
end
return 0`;

/**
 * Spent nonces in Redis, shared by the gate instances using it: a
 * `SpentAnswers` of _approval_round.ts (structurally, as a room does not
 * import from the gate above it).
 */
export class RedisSpentAnswers {
  readonly #link: Link;
  readonly #prefix: string;
  readonly #now: () => number;

  constructor(
    link: Link,
    options: { prefix?: string; now?: () => number } = {},
  ) {
    this.#link = link;
    this.#prefix = options.prefix ?? "forge-gate:";
    this.#now = options.now ?? Date.now;
  }

  /** Rejects when Redis is away: the call is then refused, never run. */
  async spend(nonce: string, expires: number): Promise<boolean> {
    const ttl = Math.ceil(expires - this.#now());
    if (ttl <= 0) return false;
    const set = await this.#link.eval(
      SPEND,
      [`${this.#prefix}round-spent:${nonce}`],
      [String(ttl)],
    );
    return set === 1;
  }
}
