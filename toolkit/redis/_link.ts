// Internal: the one module that imports the Redis client (node-redis v5,
// `npm:redis`; docs/benchmarks.md says why this one). Two connections, one
// for commands and one subscribed (Redis gives a subscribed connection to
// pub/sub only), each reconnecting by itself. Every command is bounded by a
// timeout and fails at once while Redis is away (no offline queue), so a
// call that needs Redis gets an error in bounded time, never a hang.

import { createClient } from "redis";
import { ProtocolError, RPC_ERROR } from "../jsonrpc/errors.ts";

/** What the store and the bus use of Redis. */
export interface Link {
  /** This process's id in messages, so that it can ignore its own. */
  readonly instanceId: string;
  /** Runs a Lua script; rejects with a ProtocolError when Redis is away or slow. */
  eval(script: string, keys: string[], args: string[]): Promise<unknown>;
  /** Publishes `message` on `channel`. */
  publish(channel: string, message: string): Promise<void>;
  /** Hears `channel` (kept across reconnections). */
  subscribe(channel: string, listener: (message: string) => void): void;
  /** Called each time a connection comes back: messages sent meanwhile are lost. */
  onReconnect(listener: () => void): void;
  /** For how many milliseconds both connections have been up (0 while one is down). */
  upFor(): number;
  /** Whether the command connection is up now. */
  readonly ready: boolean;
  close(): Promise<void>;
}

/** How a link is opened. */
export interface LinkOptions {
  timeoutMs: number;
  connectTimeoutMs: number;
  /** Told each connection error, at most once per outage. */
  onError: (message: string) => void;
}

/**
 * Waits between reconnection attempts: quick at first, then every 500 ms
 * (a task's lease must outlast an outage and the reconnection after it).
 */
function backoff(retries: number): number {
  return Math.min(50 * 2 ** retries, 500);
}

function unavailable(detail: string): ProtocolError {
  return new ProtocolError(
    RPC_ERROR.INTERNAL_ERROR,
    `Redis is unavailable: ${detail}`,
  );
}

/** Connects both connections; rejects if Redis does not answer within `connectTimeoutMs`. */
export async function openLink(
  url: string,
  options: LinkOptions,
): Promise<Link> {
  const { timeoutMs, connectTimeoutMs, onError } = options;
  const client = createClient({
    url,
    disableOfflineQueue: true,
    commandOptions: { timeout: timeoutMs },
    socket: {
      connectTimeout: connectTimeoutMs,
      reconnectStrategy: backoff,
    },
  });
  const subscriber = client.duplicate();
  let down = false;
  for (const connection of [client, subscriber]) {
    connection.on("error", (error: Error) => {
      if (down) return;
      down = true;
      onError(`Redis connection lost: ${error.message}`);
    });
    connection.on("ready", () => down = false);
  }
  const reconnected = new Set<() => void>();
  let upSince = 0;
  for (const connection of [client, subscriber]) {
    let first = true;
    connection.on("ready", () => {
      upSince = performance.now();
      if (first) first = false;
      else for (const listener of reconnected) listener();
    });
  }
  const connecting = Promise.all([client.connect(), subscriber.connect()]);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      connecting,
      new Promise((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(
                `Cannot connect to Redis at ${
                  redacted(url)
                }: no answer within ${connectTimeoutMs} ms`,
              ),
            ),
          connectTimeoutMs,
        );
      }),
    ]);
  } catch (error) {
    connecting.catch(() => {});
    for (const connection of [client, subscriber]) {
      try {
        connection.destroy();
      } catch {
        // Never opened.
      }
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }

  /** Bounds a command: the client's own timeout, and this one in case it never fires. */
  async function bounded<T>(command: () => Promise<T>): Promise<T> {
    if (!client.isReady) throw unavailable("not connected");
    let guard: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([
        command(),
        new Promise<never>((_, reject) => {
          guard = setTimeout(
            () => reject(new Error(`no answer within ${timeoutMs} ms`)),
            timeoutMs + 50,
          );
        }),
      ]);
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      // A Lua error is a bug in a script, not an outage.
      if (/^ERR /.test(message)) throw error;
      throw unavailable(message);
    } finally {
      clearTimeout(guard);
    }
  }

  return {
    instanceId: crypto.randomUUID(),
    eval: (script, keys, args) =>
      bounded(() => client.eval(script, { keys, arguments: args })),
    publish: async (channel, message) => {
      await bounded(() => client.publish(channel, message));
    },
    subscribe: (channel, listener) => {
      subscriber.subscribe(channel, (message: string) => listener(message))
        .catch((error: Error) =>
          onError(`Cannot subscribe to ${channel}: ${error.message}`)
        );
    },
    onReconnect: (listener) => void reconnected.add(listener),
    upFor: () =>
      client.isReady && subscriber.isReady ? performance.now() - upSince : 0,
    get ready() {
      return client.isReady;
    },
    close: async () => {
      reconnected.clear();
      await Promise.allSettled([client.close(), subscriber.close()]);
      for (const connection of [client, subscriber]) {
        // close() waits for Redis; while it is away, the socket is cut.
        if (connection.isOpen) connection.destroy();
      }
    },
  };
}

/** The URL without its password, for messages. */
export function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.href;
  } catch {
    return JSON.stringify(url);
  }
}
