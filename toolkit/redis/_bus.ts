// Internal: the notification bus on Redis pub/sub. One channel for every
// notification; each message names the instance that sent it, which
// ignores its own (it told its clients already). Pub/sub keeps nothing: a
// notification sent while an instance is cut off from Redis is lost to it,
// as a notification sent while a client is away is lost to that client.

import type { NotificationBus } from "../server/notification_bus.ts";
import type { Link } from "./_link.ts";

type Notification = Parameters<NotificationBus["publish"]>[0];

/** A bus over `link`, on `<prefix>events`. */
export class RedisBus implements NotificationBus {
  readonly #link: Link;
  readonly #channel: string;
  readonly #onError: (message: string) => void;
  #listeners = new Set<(notification: Notification) => void>();
  /** Whether the last publish failed, so that an outage is reported once. */
  #failing = false;

  constructor(
    link: Link,
    options: { prefix: string; onError: (message: string) => void },
  ) {
    this.#link = link;
    this.#channel = `${options.prefix}events`;
    this.#onError = options.onError;
    link.subscribe(this.#channel, (message) => {
      let parsed: { from?: unknown; method?: unknown; params?: unknown };
      try {
        parsed = JSON.parse(message);
      } catch {
        return; // Not ours: someone else publishes on this channel.
      }
      if (parsed.from === link.instanceId) return;
      if (typeof parsed.method !== "string") return;
      this.#deliver({
        method: parsed.method,
        ...(isRecord(parsed.params) ? { params: parsed.params } : {}),
      });
    });
  }

  async publish(notification: Notification): Promise<void> {
    try {
      await this.#link.publish(
        this.#channel,
        JSON.stringify({ from: this.#link.instanceId, ...notification }),
      );
      this.#failing = false;
    } catch (error) {
      if (!this.#failing) {
        this.#onError(
          `Cannot tell the other instances ${notification.method}: ${
            (error as Error).message
          }`,
        );
      }
      this.#failing = true;
    }
  }

  subscribe(deliver: (notification: Notification) => void): () => void {
    const listener = (notification: Notification) => deliver(notification);
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** A change this instance found itself (a lapsed lease): here and everywhere. */
  announce(notification: Notification): void {
    this.#deliver(notification);
    this.publish(notification);
  }

  #deliver(notification: Notification): void {
    for (const listener of this.#listeners) {
      try {
        listener(notification);
      } catch (error) {
        this.#onError(`A bus listener failed: ${(error as Error).message}`);
      }
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
