// Internal: approvals in Redis, shared by gate instances behind a load
// balancer, so that an approval given on one instance's page releases the
// call another instance holds.
//
// Each approval is one hash: `record` (the entry's JSON, written once),
// `state`, `expires`, and once decided `decidedBy` and `decided`. Its key
// expires (PEXPIREAT) when the board stops keeping it. A decision is one
// Lua script, so of two approvers racing on two instances exactly one
// writes `state`; the same script publishes the id on one channel, so only
// a decision that landed is announced. The message carries no authority:
// a listener re-reads the hash.
//
// Pub/sub rather than keyspace notifications: those need
// `notify-keyspace-events` set on the server, which managed Redis often
// forbids. Pub/sub keeps nothing, so a message sent while an instance's
// subscriber is cut off is lost to it: every waiting approval is re-read
// when the link reconnects, and, as the fallback for a message lost any
// other way, every `pollMs` while some are waited on (one read per waiting
// call), and at its expiry.

import type { Link } from "../../redis/_link.ts";
import { openLink } from "../../redis/_link.ts";
import type { Approval, ApprovalStore, StoredDecision } from "./_board.ts";
import { Watchers } from "./_watchers.ts";

// KEYS: approval, call index (or none). ARGV: record json, expires, keep
// until (ms since the epoch), id.
const CREATE = `if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[1], 'state', 'pending', 'expires', ARGV[2])
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
if KEYS[2] then
  redis.call('SET', KEYS[2], ARGV[4])
  redis.call('PEXPIREAT', KEYS[2], ARGV[3])
end
return 1`;

const LOOKUP = `return redis.call('GET', KEYS[1])`;

// KEYS: approval. Spends an approved approval, once.
const REDEEM =
  `if redis.call('HGET', KEYS[1], 'state') ~= 'approved' then return 0 end
if redis.call('HSETNX', KEYS[1], 'redeemed', '1') == 0 then return 0 end
return 1`;

const GET = `return redis.call('HGETALL', KEYS[1])`;

// KEYS: approval. ARGV: state, decided by, at, channel, id. Returns
// { 1 if this call decided else 0, the hash's fields... }, or {} when gone.
const DECIDE = `local state = redis.call('HGET', KEYS[1], 'state')
if not state then return {} end
local won = 0
if state == 'pending' and tonumber(ARGV[3]) < tonumber(redis.call('HGET', KEYS[1], 'expires')) then
  redis.call('HSET', KEYS[1], 'state', ARGV[1], 'decidedBy', ARGV[2], 'decided', ARGV[3])
  redis.call('PUBLISH', ARGV[4], ARGV[5])
  won = 1
end
return { won, unpack(redis.call('HGETALL', KEYS[1])) }`;

/** Options for {@linkcode RedisApprovalStore}. */
export interface RedisApprovalStoreOptions {
  /** Put before the keys and the channel; instances of one gate use the same. @default {"forge-gate:"} */
  prefix?: string;
  /** How often waiting approvals are re-read, in case a message was lost. @default {2000} */
  pollMs?: number;
  /** Told a failed subscription or a listener that threw. @default {console.error} */
  onError?: (message: string) => void;
  /** Whether `close()` closes the link too (it was opened for this store). @default {false} */
  ownsLink?: boolean;
}

/** The hash's flat field list, as an approval. */
function fromHash(flat: unknown): Approval | undefined {
  if (!Array.isArray(flat) || flat.length === 0) return undefined;
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) {
    fields.set(String(flat[i]), String(flat[i + 1]));
  }
  const record = fields.get("record");
  const state = fields.get("state");
  if (record === undefined || state === undefined) return undefined;
  const approval = JSON.parse(record) as Approval;
  approval.state = state as Approval["state"];
  const decidedBy = fields.get("decidedBy");
  const decided = fields.get("decided");
  if (decidedBy !== undefined) approval.decidedBy = decidedBy;
  if (decided !== undefined) approval.decided = Number(decided);
  if (fields.get("redeemed") === "1") approval.redeemed = true;
  return approval;
}

/**
 * Approvals in Redis, over the toolkit's Redis link (one command and one
 * subscribed connection, every command bounded by a timeout).
 */
export class RedisApprovalStore implements ApprovalStore, AsyncDisposable {
  readonly #link: Link;
  readonly #prefix: string;
  readonly #channel: string;
  readonly #pollMs: number;
  readonly #onError: (message: string) => void;
  readonly #ownsLink: boolean;
  #watchers = new Watchers();
  #poller: ReturnType<typeof setInterval> | undefined;

  constructor(link: Link, options: RedisApprovalStoreOptions = {}) {
    const {
      prefix = "forge-gate:",
      pollMs = 2_000,
      onError = (message: string) => console.error(message),
      ownsLink = false,
    } = options;
    if (!Number.isFinite(pollMs) || pollMs <= 0) {
      throw new RangeError(
        `Cannot keep approvals in Redis: pollMs must be a positive number, got ${pollMs}`,
      );
    }
    this.#link = link;
    this.#prefix = prefix;
    this.#channel = `${prefix}approvals`;
    this.#pollMs = pollMs;
    this.#onError = onError;
    this.#ownsLink = ownsLink;
    link.subscribe(this.#channel, (id) => this.#tell(id));
    link.onReconnect(() => this.#tellAll());
  }

  #key(id: string): string {
    return `${this.#prefix}approval:${id}`;
  }

  #callKey(call: string): string {
    return `${this.#prefix}approval-call:${call}`;
  }

  async lookup(call: string): Promise<string | undefined> {
    const id = await this.#link.eval(LOOKUP, [this.#callKey(call)], []);
    return typeof id === "string" ? id : undefined;
  }

  async redeem(id: string): Promise<boolean> {
    return await this.#link.eval(REDEEM, [this.#key(id)], []) === 1;
  }

  async create(approval: Approval, keepUntil: number): Promise<void> {
    const {
      state: _state,
      decidedBy: _by,
      decided: _at,
      redeemed: _redeemed,
      ...record
    } = approval;
    const keys = [this.#key(approval.id)];
    if (approval.call !== undefined) keys.push(this.#callKey(approval.call));
    const created = await this.#link.eval(CREATE, keys, [
      JSON.stringify(record),
      String(approval.expires),
      String(Math.ceil(keepUntil)),
      approval.id,
    ]);
    if (created !== 1) {
      throw new Error(`Cannot open an approval: id ${approval.id} is taken`);
    }
  }

  async get(id: string): Promise<Approval | undefined> {
    return fromHash(await this.#link.eval(GET, [this.#key(id)], []));
  }

  async decide(
    id: string,
    decision: StoredDecision,
  ): Promise<{ decided: boolean; approval?: Approval }> {
    const reply = await this.#link.eval(DECIDE, [this.#key(id)], [
      decision.state,
      decision.decidedBy,
      String(decision.at),
      this.#channel,
      id,
    ]);
    if (!Array.isArray(reply) || reply.length === 0) return { decided: false };
    const [won, ...fields] = reply;
    const approval = fromHash(fields);
    // The deciding instance hears its own publication too; it is told here
    // first, so a wait on this instance does not depend on the round trip.
    if (won === 1) this.#tell(id);
    return { decided: won === 1, ...(approval ? { approval } : {}) };
  }

  watch(id: string, changed: () => void): () => void {
    const unwatch = this.#watchers.add(id, changed);
    this.#poller ??= setInterval(() => this.#tellAll(), this.#pollMs);
    return () => {
      unwatch();
      if (this.#watchers.size === 0) this.#stopPolling();
    };
  }

  async close(): Promise<void> {
    this.#stopPolling();
    this.#watchers.clear();
    if (this.#ownsLink) await this.#link.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #stopPolling(): void {
    clearInterval(this.#poller);
    this.#poller = undefined;
  }

  #tell(id: string): void {
    for (const changed of this.#watchers.of(id)) {
      try {
        changed();
      } catch (error) {
        this.#onError(
          `An approval listener failed: ${(error as Error).message}`,
        );
      }
    }
  }

  #tellAll(): void {
    for (const id of this.#watchers.ids()) this.#tell(id);
  }
}

/** Options for {@linkcode connectApprovalStore}. */
export interface ConnectApprovalStoreOptions
  extends Omit<RedisApprovalStoreOptions, "ownsLink"> {
  /** How long a Redis command may take, in milliseconds. @default {1000} */
  timeoutMs?: number;
  /** How long to wait for the first connection, in milliseconds. @default {5000} */
  connectTimeoutMs?: number;
}

/**
 * Opens a Redis link for approvals alone (`redis://` or `rediss://`);
 * closing the store closes it. A gate that holds a link already passes it
 * to {@linkcode RedisApprovalStore} instead.
 */
export async function connectApprovalStore(
  url: string,
  options: ConnectApprovalStoreOptions = {},
): Promise<RedisApprovalStore> {
  if (typeof url !== "string" || !/^rediss?:\/\//.test(url)) {
    throw new TypeError(
      `Cannot keep approvals in Redis: expected a redis:// or rediss:// URL, got ${
        JSON.stringify(url)
      }`,
    );
  }
  const {
    timeoutMs = 1_000,
    connectTimeoutMs = 5_000,
    onError = (message: string) => console.error(message),
  } = options;
  const link = await openLink(url, { timeoutMs, connectTimeoutMs, onError });
  return new RedisApprovalStore(link, { ...options, onError, ownsLink: true });
}
