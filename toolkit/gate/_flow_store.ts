// Internal: a caller's flow history kept outside the gate (`--redis`), so
// that gate instances behind a load balancer decide a 2026-07-28 caller's
// call with what its calls on any of them set off. Those callers carry no
// session that could stick them to one instance; a 2025-11-25 session is
// sticky (deploy/nginx.conf) and keeps its history in memory.
//
// One hash per caller, under a SHA-256 of the caller's key (never the
// claims themselves): `t:<rule key>` → the trigger's JSON, first call
// wins, and `full` once the bound is reached (the strict side, as
// FlowSession). The key expires `ttlMs` after the caller's last call
// (each read and write renews it). The gatekeeper reads it before each
// decision and adds to it before forwarding a call that set a rule off.

import type { Link } from "../redis/_link.ts";
import { isRecord } from "../_util/json_type.ts";
import { callerStoreKey } from "./_caller_key.ts";
import {
  type FlowState,
  type FlowTrigger,
  MAX_TRIGGERS,
} from "./policy/_flows.ts";

/** How long a caller's flow history outlives its last call by default: a day. */
export const FLOW_TTL_MS = 24 * 60 * 60 * 1000;

/** Where one caller's flow history lives beyond one gate instance. */
export interface FlowStore {
  /** What the caller's calls have set off so far. */
  load(): Promise<FlowState>;
  /** Adds what a forwarded call set off (a rule set off already keeps its first call). */
  add(added: FlowState): Promise<void>;
}

// KEYS: the caller's hash. ARGV: ttl ms.
const LOAD = `local all = redis.call('HGETALL', KEYS[1])
if #all > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return all`;

// KEYS: the caller's hash. ARGV: ttl ms, most triggers, full json (or
// ""), then field, json pairs. Past the bound the first call left out
// becomes `full`.
const ADD = `local most = tonumber(ARGV[2])
local full = ARGV[3]
for i = 4, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 then
    local count = redis.call('HLEN', KEYS[1]) - redis.call('HEXISTS', KEYS[1], 'full')
    if count >= most then
      if full == '' then full = ARGV[i + 1] end
    else
      redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
    end
  end
end
if full ~= '' then redis.call('HSETNX', KEYS[1], 'full', full) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`;

/** The key a caller's history is kept under: `<prefix>flows:<sha-256 of its key>`. */
export function flowKey(
  callerKey: string,
  prefix = "forge-gate:",
): Promise<string> {
  return callerStoreKey("flows", callerKey, prefix);
}

/** One caller's flow history in Redis, over the gate's Redis link. */
export class RedisFlowStore implements FlowStore {
  readonly #link: Link;
  readonly #key: string;
  readonly #ttlMs: number;
  readonly #max: number;

  constructor(
    link: Link,
    key: string,
    options: { ttlMs?: number; max?: number } = {},
  ) {
    const { ttlMs = FLOW_TTL_MS, max = MAX_TRIGGERS } = options;
    if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) {
      throw new RangeError(
        `Cannot keep flows in Redis: ttlMs must be a positive integer, got ${ttlMs}`,
      );
    }
    this.#link = link;
    this.#key = key;
    this.#ttlMs = ttlMs;
    this.#max = max;
  }

  async load(): Promise<FlowState> {
    const flat = await this.#link.eval(LOAD, [this.#key], [
      String(this.#ttlMs),
    ]);
    if (!Array.isArray(flat)) {
      throw new TypeError(
        `Cannot read the flows in Redis: ${this.#key} is not a hash`,
      );
    }
    const triggers: [string, FlowTrigger][] = [];
    let full: FlowTrigger | undefined;
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const field = String(flat[i]);
      const trigger = triggerOf(String(flat[i + 1]), field);
      if (field === "full") full = trigger;
      else if (field.startsWith("t:")) triggers.push([field.slice(2), trigger]);
    }
    return full === undefined ? { triggers } : { triggers, full };
  }

  async add(added: FlowState): Promise<void> {
    if (added.triggers.length === 0 && added.full === undefined) return;
    const pairs = added.triggers.flatMap(([rule, trigger]) => [
      `t:${rule}`,
      JSON.stringify(trigger),
    ]);
    await this.#link.eval(ADD, [this.#key], [
      String(this.#ttlMs),
      String(this.#max),
      added.full === undefined ? "" : JSON.stringify(added.full),
      ...pairs,
    ]);
  }
}

/** A stored trigger, checked: a history that cannot be read decides nothing. */
function triggerOf(json: string, field: string): FlowTrigger {
  const value: unknown = JSON.parse(json);
  if (
    !isRecord(value) || typeof value.tool !== "string" ||
    !(value.pattern === undefined || typeof value.pattern === "string") ||
    !(value.line === undefined || typeof value.line === "string")
  ) {
    throw new TypeError(
      `Cannot read the flows in Redis: ${field}: expected { tool, pattern?, line? }`,
    );
  }
  return {
    tool: value.tool,
    pattern: value.pattern,
    ...(value.line === undefined ? {} : { line: value.line }),
  };
}
