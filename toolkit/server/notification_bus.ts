/**
 * A bus between the instances of one server behind a load balancer: each
 * publishes the notifications its own changes cause (a list changed, a
 * resource updated, a task moved on) and delivers those of the others to
 * its own clients, so that a listen stream held by one instance hears a
 * change made through another. `@forge/toolkit/redis` has one over Redis.
 *
 * @module
 */

/**
 * Where a server sends the notifications its changes cause, and hears those
 * of its other instances (the `notificationBus` server option). A bus never
 * hands an instance back its own notifications: it tells its clients itself.
 *
 * @example An in-process bus joining two servers, as Redis pub/sub would
 * ```ts
 * import { createServer } from "@forge/toolkit";
 * import type { NotificationBus } from "@forge/toolkit/server";
 *
 * type Notification = { method: string; params?: Record<string, unknown> };
 * const listeners = new Set<(n: Notification) => void>();
 * function bus(): NotificationBus {
 *   let mine: ((n: Notification) => void) | undefined;
 *   return {
 *     publish: (n) => listeners.forEach((l) => l !== mine && l(n)),
 *     subscribe: (deliver) => {
 *       mine = deliver;
 *       listeners.add(deliver);
 *       return () => void listeners.delete(deliver);
 *     },
 *   };
 * }
 * const a = createServer({ name: "s", version: "1" }, { notificationBus: bus() });
 * const b = createServer({ name: "s", version: "1" }, { notificationBus: bus() });
 * await Promise.all([a.close(), b.close()]);
 * ```
 */
export interface NotificationBus {
  /**
   * Sends a notification to the other instances: what a client will get
   * (`notifications/{tools,prompts,resources}/list_changed`,
   * `notifications/resources/updated`, `notifications/tasks`), without a
   * listen stream's `_meta`. A failure is this bus's to report.
   */
  publish(
    notification: { method: string; params?: Record<string, unknown> },
  ): void | Promise<void>;
  /** Calls `deliver` with each notification of another instance; returns how to stop. */
  subscribe(
    deliver: (
      notification: { method: string; params?: Record<string, unknown> },
    ) => void,
  ): () => void;
}
