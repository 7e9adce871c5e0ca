// Internal: a 2026-07-28 caller's remembered approvals kept outside the
// gate (`--redis`), so that an approval the caller chose to remember on
// one gate instance lets the same patterns through on every instance.
// Those callers carry no session that could stick them to one instance;
// a 2025-11-25 session is sticky (deploy/nginx.conf) and remembers in
// memory (_remembered.ts).
//
// One set per caller, under a SHA-256 of the caller's key (never the
// claims themselves), whose members are SHA-256s of the server and the
// pattern (never the targets themselves): an exact match is all a
// remembered approval means, and a digest answers that. The key expires
// `ttlMs` after the caller's last asked call (each read and write renews
// it). The policy still decides first (_gatekeeper.ts): only a call it
// would ask about is looked up here.

import type { Link } from "../redis/_link.ts";
import { sha256Hex } from "../../configreload/_sha256_hex.ts";

/** How long a caller's remembered approvals outlive their last use by default: a day. */
export const REMEMBERED_TTL_MS = 24 * 60 * 60 * 1000;

/** Where a gate's remembered approvals live beyond one gate instance. */
export interface RememberedStore {
  /** How long an approval lasts, as the approval form says it ("These permissions …"). */
  readonly lasting: string;
  /** Whether every one of `patterns` (at least one) was remembered for `server`. */
  covers(patterns: readonly string[], server?: string): Promise<boolean>;
  /** Remembers each of `patterns` as approved for `server`. */
  remember(patterns: readonly string[], server?: string): Promise<void>;
}

// KEYS: the caller's set. ARGV: ttl ms, then the members.
const COVERS = `redis.call('PEXPIRE', KEYS[1], ARGV[1])
for i = 2, #ARGV do
  if redis.call('SISMEMBER', KEYS[1], ARGV[i]) == 0 then return 0 end
end
return 1`;

// KEYS: the caller's set. ARGV: ttl ms, then the members.
const REMEMBER = `for i = 2, #ARGV do redis.call('SADD', KEYS[1], ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`;

/** One caller's remembered approvals in Redis, over the gate's Redis link. */
export class RedisRememberedStore implements RememberedStore {
  readonly lasting = "for a day after their last use";
  readonly #link: Link;
  readonly #key: string;
  readonly #ttlMs: number;

  /**
   * The set at `key` (callerStoreKey("remembered", …)), expiring `ttlMs`
   * after its last use.
   */
  constructor(link: Link, key: string, options: { ttlMs?: number } = {}) {
    const { ttlMs = REMEMBERED_TTL_MS } = options;
    if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) {
      throw new RangeError(
        `Cannot keep remembered approvals in Redis: ttlMs must be a positive integer, got ${ttlMs}`,
      );
    }
    this.#link = link;
    this.#key = key;
    this.#ttlMs = ttlMs;
  }

  async covers(patterns: readonly string[], server?: string): Promise<boolean> {
    if (patterns.length === 0) return false;
    const found = await this.#link.eval(COVERS, [this.#key], [
      String(this.#ttlMs),
      ...await members(patterns, server),
    ]);
    return found === 1;
  }

  async remember(patterns: readonly string[], server?: string): Promise<void> {
    if (patterns.length === 0) return;
    await this.#link.eval(REMEMBER, [this.#key], [
      String(this.#ttlMs),
      ...await members(patterns, server),
    ]);
  }
}

/** The set's members for `patterns` of `server`: digests, one each. */
function members(
  patterns: readonly string[],
  server: string | undefined,
): Promise<string[]> {
  return Promise.all(
    patterns.map((pattern) =>
      sha256Hex(
        new TextEncoder().encode(JSON.stringify([server ?? null, pattern])),
      )
    ),
  );
}
