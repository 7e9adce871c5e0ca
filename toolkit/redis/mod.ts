/**
 * Redis for servers behind a load balancer: a shared `taskStore`, so that
 * any instance answers `tasks/get`, `tasks/update` and `tasks/cancel` for a
 * task another runs, and a `notificationBus`, so that a listen stream (or a
 * 2025-11-25 SSE stream) held by one instance hears the list changes,
 * resource updates and task status changes made through another.
 *
 * Optional: only this entry loads the Redis client (`npm:redis`), so a
 * server that does not import it never does. Every Redis command is bounded
 * by a timeout; while Redis is away, what needs it fails with a JSON-RPC
 * error that says so, the rest keeps working, and the connection comes
 * back by itself.
 *
 * @example Two options, one connection
 * ```ts ignore
 * import { createServer } from "@forge/toolkit";
 * import { connectRedis } from "@forge/toolkit/redis";
 *
 * const redis = await connectRedis("redis://127.0.0.1:6379");
 * const server = createServer({ name: "reports", version: "1" }, {
 *   taskStore: redis.taskStore,
 *   notificationBus: redis.notificationBus,
 * });
 * ```
 *
 * @module
 */

import type { NotificationBus } from "../server/notification_bus.ts";
import type { TaskStore } from "../server/tasks.ts";
import { openLink } from "./_link.ts";
import { RedisBus } from "./_bus.ts";
import { RedisTaskStore } from "./_task_store.ts";

/**
 * Options for {@linkcode connectRedis}.
 *
 * @example Quicker failure detection, for a test
 * ```ts
 * import type { RedisOptions } from "@forge/toolkit/redis";
 *
 * const options: RedisOptions = { leaseMs: 2_000, timeoutMs: 500 };
 * ```
 */
export interface RedisOptions {
  /**
   * Put before every key and channel, so that several servers can share one
   * Redis. Instances of one server must use the same.
   *
   * @default {"mcp:"}
   */
  prefix?: string;
  /**
   * How long a Redis command may take before the request that needs it
   * fails (-32603, "Redis is unavailable: …"), in milliseconds.
   *
   * @default {1000}
   */
  timeoutMs?: number;
  /**
   * How long `connectRedis` waits for the first connection, in milliseconds.
   *
   * @default {5000}
   */
  connectTimeoutMs?: number;
  /**
   * How long a task outlives the instance running it, in milliseconds: that
   * instance renews its lease three times per `leaseMs`; a task whose lease
   * lapses is marked `failed` ("The instance running this task stopped
   * before it finished") within one and a half `leaseMs`.
   *
   * @default {10000}
   */
  leaseMs?: number;
  /**
   * Told connection losses and failed publications, once per outage.
   *
   * @default {console.error}
   */
  onError?: (message: string) => void;
}

/**
 * What {@linkcode connectRedis} opens: give both to `createServer`.
 *
 * @example
 * ```ts ignore
 * import { connectRedis } from "@forge/toolkit/redis";
 *
 * await using redis = await connectRedis("redis://127.0.0.1:6379");
 * console.log(typeof redis.taskStore.get); // "function"
 * ```
 */
export interface RedisConnection extends AsyncDisposable {
  /** The `taskStore` option: tasks in Redis, leased by the instance running them. */
  readonly taskStore: TaskStore;
  /** The `notificationBus` option: notifications over Redis pub/sub. */
  readonly notificationBus: NotificationBus;
  /** Stops renewing leases and closes both connections. */
  close(): Promise<void>;
}

/**
 * Connects to Redis at `url` (`redis://[user:password@]host:port[/db]`,
 * or `rediss://` for TLS); rejects if it does not answer within
 * `connectTimeoutMs`. Afterwards it reconnects by itself.
 *
 * @example
 * ```ts ignore
 * import { createServer } from "@forge/toolkit";
 * import { connectRedis } from "@forge/toolkit/redis";
 *
 * const redis = await connectRedis(Deno.env.get("REDIS_URL")!, { prefix: "notes:" });
 * const server = createServer({ name: "notes", version: "1" }, {
 *   taskStore: redis.taskStore,
 *   notificationBus: redis.notificationBus,
 * });
 * ```
 */
export async function connectRedis(
  url: string,
  options: RedisOptions = {},
): Promise<RedisConnection> {
  if (typeof url !== "string" || !/^rediss?:\/\//.test(url)) {
    throw new TypeError(
      `Cannot connect to Redis: expected a redis:// or rediss:// URL, got ${
        JSON.stringify(url)
      }`,
    );
  }
  const {
    prefix = "mcp:",
    timeoutMs = 1_000,
    connectTimeoutMs = 5_000,
    leaseMs = 10_000,
    onError = (message: string) => console.error(message),
  } = options;
  for (
    const [name, value] of Object.entries({
      timeoutMs,
      connectTimeoutMs,
      leaseMs,
    })
  ) {
    if (typeof value !== "number" || !(value > 0) || !Number.isFinite(value)) {
      throw new RangeError(
        `Cannot connect to Redis: ${name} must be a positive number, got ${value}`,
      );
    }
  }
  const link = await openLink(url, { timeoutMs, connectTimeoutMs, onError });
  const bus = new RedisBus(link, { prefix, onError });
  const store = new RedisTaskStore(link, {
    prefix,
    leaseMs,
    onError,
    announce: (params) =>
      bus.announce({ method: "notifications/tasks", params }),
  });
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      store.close();
      await link.close();
    })();
    return closed;
  };
  return {
    taskStore: store,
    notificationBus: bus,
    close,
    [Symbol.asyncDispose]: close,
  };
}
