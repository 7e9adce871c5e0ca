// Internal: a TaskStore on Redis. Each write is one Lua script, so a reader
// sees a whole task or the one before, never half of one, and a final
// status is final across instances: a result that arrives after another
// instance cancelled does not overwrite the cancellation. The answers of
// tasks/update live beside the record, in a hash, so that a write the
// running instance makes meanwhile cannot drop them. The instance running a
// task holds a lease on it; a task whose lease lapses (its instance
// stopped) is marked failed by the next reader or sweep, on any instance.

import type { StoredTask, TaskStore } from "../server/tasks.ts";
import type { Link } from "./_link.ts";

/** The answers a reader saw, so that its write deletes only those. */
const SEEN = Symbol("seen answers");

type Read = StoredTask & { [SEEN]?: string[] };

/** What a lease failure says, on tasks/get and in the status notification. */
export const LEASE_LAPSED =
  "The instance running this task stopped before it finished";

const FINAL = `local function final(json)
  local status = cjson.decode(json).status
  return status == 'completed' or status == 'failed' or status == 'cancelled'
end
`;

// KEYS: task, answers, lease, running. ARGV: json, final (1/0), px, instance,
// lease ms, channel, task id, answer count, answers (key, json)..., seen keys
// to delete... Returns 0 when the stored task is already final, 2 when it
// is new (this instance runs it), else 1.
const PUT = `${FINAL}
local current = redis.call('GET', KEYS[1])
if current and final(current) then return 0 end
local px = tonumber(ARGV[3])
if px > 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', px)
else
  redis.call('SET', KEYS[1], ARGV[1])
end
if ARGV[2] == '1' then
  redis.call('SREM', KEYS[4], ARGV[7])
  redis.call('DEL', KEYS[2], KEYS[3])
else
  if not current then
    redis.call('SET', KEYS[3], ARGV[4], 'PX', tonumber(ARGV[5]))
  end
  redis.call('SADD', KEYS[4], ARGV[7])
  local count = tonumber(ARGV[8])
  local i = 9
  for _ = 1, count do
    redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
    i = i + 2
  end
  while i <= #ARGV do
    redis.call('HDEL', KEYS[2], ARGV[i])
    i = i + 1
  end
  if px > 0 then redis.call('PEXPIRE', KEYS[2], px) end
end
redis.call('PUBLISH', ARGV[6], ARGV[4] .. ' ' .. ARGV[7])
if current then return 1 end
return 2`;

// KEYS: task, answers, lease. Returns { json, answers..., leased (1/0) }.
const GET = `local json = redis.call('GET', KEYS[1])
if not json then return {} end
local leased = redis.call('EXISTS', KEYS[3])
return { json, leased, unpack(redis.call('HGETALL', KEYS[2])) }`;

// KEYS: task, lease. ARGV: instance, lease ms. Renews a running task's lease.
const RENEW = `${FINAL}
local json = redis.call('GET', KEYS[1])
if not json or final(json) then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'PX', tonumber(ARGV[2]))
return 1`;

// KEYS: task, answers, lease, running. ARGV: failed json, px, channel,
// instance, task id. Fails a task only if it still runs and has no lease.
const LAPSE = `${FINAL}
local json = redis.call('GET', KEYS[1])
if not json or final(json) or redis.call('EXISTS', KEYS[3]) == 1 then
  return 0
end
local px = tonumber(ARGV[2])
if px > 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', px)
else
  redis.call('SET', KEYS[1], ARGV[1])
end
redis.call('SREM', KEYS[4], ARGV[5])
redis.call('DEL', KEYS[2])
redis.call('PUBLISH', ARGV[3], ARGV[4] .. ' ' .. ARGV[5])
return 1`;

// KEYS: running. ARGV: prefix. The running tasks without a lease; drops ids
// whose record is gone or final.
const SWEEP = `${FINAL}
local lapsed = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local json = redis.call('GET', ARGV[1] .. 'task:' .. id)
  if not json or final(json) then
    redis.call('SREM', KEYS[1], id)
  elseif redis.call('EXISTS', ARGV[1] .. 'lease:' .. id) == 0 then
    table.insert(lapsed, id)
  end
end
return lapsed`;

// KEYS: task, answers, lease, running.
const DELETE = `redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('SREM', KEYS[4], ARGV[1])
return 1`;

const FINAL_STATUSES = new Set(["completed", "failed", "cancelled"]);

/** How often a final write Redis was away for is tried again. */
const RETRY_MS = 250;

/** Whether `error` is Redis being away (the link's error), not a bug. */
function unavailable(error: unknown): boolean {
  return error instanceof Error &&
    error.message.startsWith("Redis is unavailable");
}

/** How the store is set up. */
export interface StoreOptions {
  prefix: string;
  leaseMs: number;
  /** Tells every instance's listen streams that a task changed (a lapsed lease). */
  announce: (params: Record<string, unknown>) => void;
  onError: (message: string) => void;
}

/** A TaskStore on Redis, with `watch` for the instance running a task. */
export class RedisTaskStore implements TaskStore {
  readonly #link: Link;
  readonly #options: StoreOptions;
  readonly #channel: string;
  /** Tasks running here: told when another instance writes them. */
  #watchers = new Map<string, () => void>();
  #renewer: ReturnType<typeof setInterval> | undefined;
  #sweeper: ReturnType<typeof setInterval>;
  /**
   * Final writes Redis was away for: a result must not be lost to an
   * outage, so they are written again until Redis takes them, and their
   * leases renewed meanwhile.
   */
  #unwritten = new Map<string, StoredTask>();
  /**
   * The last record of each task running here, read or written: what its
   * own result is written over while Redis is away (this instance is the
   * one that changes it then).
   */
  #known = new Map<string, StoredTask>();
  #retry: ReturnType<typeof setInterval> | undefined;

  constructor(link: Link, options: StoreOptions) {
    this.#link = link;
    this.#options = options;
    this.#channel = `${options.prefix}tasks`;
    link.subscribe(this.#channel, (message) => {
      const space = message.indexOf(" ");
      if (message.slice(0, space) === link.instanceId) return;
      this.#watchers.get(message.slice(space + 1))?.();
    });
    // Messages sent while the subscriber was away are lost: re-read them
    // all, and renew at once, before another instance's sweep sees a lapse.
    link.onReconnect(() => {
      for (const changed of this.#watchers.values()) changed();
      this.#renew();
    });
    this.#sweeper = setInterval(
      () => this.#sweep(),
      Math.max(50, options.leaseMs / 2),
    );
  }

  #keys(taskId: string): string[] {
    const p = this.#options.prefix;
    return [
      `${p}task:${taskId}`,
      `${p}answers:${taskId}`,
      `${p}lease:${taskId}`,
      `${p}running`,
    ];
  }

  async put(task: StoredTask): Promise<void> {
    this.#unwritten.delete(task.taskId);
    try {
      await this.#write(task);
    } catch (error) {
      // A final status is the handler's result: kept and written later.
      // Anything else the caller hears about now.
      if (!FINAL_STATUSES.has(task.status) || !unavailable(error)) throw error;
      this.#unwritten.set(task.taskId, structuredClone(task));
      this.#retry ??= setInterval(() => this.#flush(), RETRY_MS);
      this.#startRenewing();
    }
  }

  async #flush(): Promise<void> {
    for (const [taskId, task] of this.#unwritten) {
      try {
        await this.#write(task);
        if (this.#unwritten.get(taskId) === task) {
          this.#unwritten.delete(taskId);
        }
      } catch {
        return; // Still away: the next round tries again.
      }
    }
    if (this.#unwritten.size === 0) {
      clearInterval(this.#retry);
      this.#retry = undefined;
      this.#stopRenewing();
    }
  }

  async #write(task: StoredTask): Promise<void> {
    const { inputResponses, ...record } = task as Read;
    const seen = (task as Read)[SEEN] ?? [];
    const answers = Object.entries(inputResponses ?? {});
    const kept = new Set(answers.map(([key]) => key));
    const final = FINAL_STATUSES.has(task.status);
    const written = await this.#link.eval(PUT, this.#keys(task.taskId), [
      JSON.stringify(record),
      final ? "1" : "0",
      String(this.#px(task)),
      this.#link.instanceId,
      String(this.#options.leaseMs),
      this.#channel,
      task.taskId,
      String(answers.length),
      ...answers.flatMap(([key, answer]) => [key, JSON.stringify(answer)]),
      ...seen.filter((key) => !kept.has(key)),
    ]);
    if (final) this.#known.delete(task.taskId);
    else if (written === 2 || this.#watchers.has(task.taskId)) {
      this.#known.set(task.taskId, structuredClone(task));
    }
  }

  async get(taskId: string): Promise<StoredTask | undefined> {
    let reply: (string | number)[];
    try {
      reply = await this.#link.eval(GET, this.#keys(taskId), []) as (
        | string
        | number
      )[];
    } catch (error) {
      const known = this.#known.get(taskId);
      if (known === undefined || !unavailable(error)) throw error;
      return structuredClone(known);
    }
    if (reply.length === 0) return undefined;
    const [json, leased, ...pairs] = reply;
    const task = JSON.parse(String(json)) as Read;
    if (
      !FINAL_STATUSES.has(task.status) && Number(leased) === 0 &&
      this.#mayJudgeLeases()
    ) {
      return await this.#lapse(task) ?? this.get(taskId);
    }
    if (pairs.length > 0) {
      const answers: Record<string, Record<string, unknown>> = {};
      for (let i = 0; i < pairs.length; i += 2) {
        answers[String(pairs[i])] = JSON.parse(String(pairs[i + 1]));
      }
      task.inputResponses = answers;
      task[SEEN] = Object.keys(answers);
    }
    if (this.#watchers.has(taskId)) {
      this.#known.set(taskId, structuredClone(task));
    }
    return task;
  }

  async delete(taskId: string): Promise<void> {
    this.#watchers.delete(taskId);
    await this.#link.eval(DELETE, this.#keys(taskId), [taskId]);
  }

  watch(taskId: string, changed: () => void): () => void {
    this.#watchers.set(taskId, changed);
    this.#startRenewing();
    return () => {
      if (this.#watchers.get(taskId) === changed) {
        this.#watchers.delete(taskId);
        this.#known.delete(taskId);
      }
      this.#stopRenewing();
    };
  }

  #startRenewing(): void {
    this.#renewer ??= setInterval(
      () => this.#renew(),
      Math.max(20, this.#options.leaseMs / 3),
    );
  }

  /** Once nothing runs here and nothing waits to be written. */
  #stopRenewing(): void {
    if (this.#watchers.size > 0 || this.#unwritten.size > 0) return;
    clearInterval(this.#renewer);
    this.#renewer = undefined;
  }

  /** Stops renewing and sweeping (the connection is the caller's to close). */
  close(): void {
    this.#known.clear();
    clearInterval(this.#retry);
    clearInterval(this.#renewer);
    clearInterval(this.#sweeper);
    this.#watchers.clear();
  }

  /** Milliseconds until Redis may drop the task; 0: never. */
  #px(task: StoredTask): number {
    if (task.expiresAt === null) return 0;
    // A running task is never dropped under its handler; the server checks
    // expiresAt itself.
    const floor = FINAL_STATUSES.has(task.status) ? 1 : this.#options.leaseMs;
    return Math.max(floor, task.expiresAt - Date.now());
  }

  #renew(): void {
    for (
      const taskId of new Set([
        ...this.#watchers.keys(),
        ...this.#unwritten.keys(),
      ])
    ) {
      const [task, , lease] = this.#keys(taskId);
      this.#link.eval(RENEW, [task, lease], [
        this.#link.instanceId,
        String(this.#options.leaseMs),
      ]).catch(() => {
        // Redis is away: the lease lapses if it stays away, as it should.
      });
    }
  }

  /**
   * After an outage, leases lapsed while nobody could renew them: their
   * owners get one lease from this instance's reconnection to renew them
   * before a missing lease counts.
   */
  #mayJudgeLeases(): boolean {
    return this.#link.upFor() >= this.#options.leaseMs;
  }

  async #sweep(): Promise<void> {
    if (!this.#mayJudgeLeases()) return;
    try {
      const lapsed = await this.#link.eval(
        SWEEP,
        [`${this.#options.prefix}running`],
        [this.#options.prefix],
      ) as string[];
      for (const taskId of lapsed) await this.get(taskId);
    } catch {
      // Redis is away; the next sweep looks again.
    }
  }

  /** Marks a task whose lease lapsed failed; undefined when it changed meanwhile. */
  async #lapse(task: StoredTask): Promise<StoredTask | undefined> {
    const now = Date.now();
    const failed: StoredTask = {
      ...task,
      status: "failed",
      statusMessage: LEASE_LAPSED,
      lastUpdatedAt: new Date(now).toISOString(),
      expiresAt: task.ttlMs === null ? null : now + task.ttlMs,
      error: { code: -32603, message: LEASE_LAPSED },
    };
    delete failed.inputRequests;
    delete failed.inputResponses;
    const done = await this.#link.eval(LAPSE, this.#keys(task.taskId), [
      JSON.stringify(failed),
      String(this.#px(failed)),
      this.#channel,
      this.#link.instanceId,
      task.taskId,
    ]);
    if (done !== 1) return undefined;
    this.#options.announce(notification(failed));
    return failed;
  }
}

/** A status notification's params: the task and its error. */
function notification(task: StoredTask): Record<string, unknown> {
  return {
    taskId: task.taskId,
    status: task.status,
    statusMessage: task.statusMessage,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
    error: task.error,
  };
}
