import assert from "node:assert/strict";
import { text } from "../result/result.ts";
import { until } from "../testing/_until.ts";
import { connectStateless } from "./_stateless_test_helpers.ts";
import type { NotificationBus } from "./notification_bus.ts";

type BusNotification = Parameters<NotificationBus["publish"]>[0];
import { createServer } from "./server.ts";
import type { StoredTask, TaskStore } from "./tasks.ts";

/** Buses joined in memory, as pub/sub joins instances: none hears itself. */
function buses(count: number): { buses: NotificationBus[]; sent: string[] } {
  const sent: string[] = [];
  const listeners = new Map<number, (n: BusNotification) => void>();
  return {
    sent,
    buses: Array.from({ length: count }, (_, i) => ({
      publish(n: BusNotification) {
        sent.push(n.method);
        for (const [j, deliver] of listeners) if (j !== i) deliver(n);
      },
      subscribe(deliver: (n: BusNotification) => void) {
        listeners.set(i, deliver);
        return () => void listeners.delete(i);
      },
    })),
  };
}

const INFO = { name: "s", version: "1" };
const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };

Deno.test("A list change on one instance reaches a listen stream on another through the bus", async () => {
  const joined = buses(2);
  const a = createServer(INFO, { notificationBus: joined.buses[0] });
  const b = createServer(INFO, { notificationBus: joined.buses[1] });
  a.tool({ name: "t", description: "d", handler: () => text("t") });
  await using client = await connectStateless(b);
  await client.listen({ toolsListChanged: true });
  a.tool({ name: "u", description: "d", handler: () => text("u") });
  await until(
    "tools/list_changed on b",
    () =>
      client.notifications.some((n) =>
        n.method === "notifications/tools/list_changed"
      ),
  );
  assert.ok(joined.sent.includes("notifications/tools/list_changed"));
  await Promise.all([a.close(), b.close()]);
});

Deno.test("A bus does not echo: what came from another instance is not published again", async () => {
  const joined = buses(2);
  const a = createServer(INFO, { notificationBus: joined.buses[0] });
  const b = createServer(INFO, { notificationBus: joined.buses[1] });
  await a.resourceUpdated("test://x");
  assert.deepEqual(joined.sent, ["notifications/resources/updated"]);
  await Promise.all([a.close(), b.close()]);
});

Deno.test("A closed server stops hearing its bus", async () => {
  const joined = buses(2);
  let subscribed = 0;
  const bus: NotificationBus = {
    publish: joined.buses[0].publish,
    subscribe(deliver) {
      subscribed++;
      const stop = joined.buses[0].subscribe(deliver);
      return () => {
        subscribed--;
        stop();
      };
    },
  };
  const a = createServer(INFO, { notificationBus: bus });
  assert.equal(subscribed, 1);
  await a.close();
  assert.equal(subscribed, 0);
});

Deno.test("A notificationBus without publish and subscribe is a TypeError", () => {
  assert.throws(
    () =>
      createServer(INFO, {
        notificationBus: {} as unknown as NotificationBus,
      }),
    TypeError,
  );
});

Deno.test("A store with watch() tells the running instance of a cancel without polling", async () => {
  const rows = new Map<string, string>();
  const watchers = new Map<string, () => void>();
  let gets = 0;
  const store: TaskStore = {
    put: (task: StoredTask) => void rows.set(task.taskId, JSON.stringify(task)),
    get: (id: string) => {
      gets++;
      const row = rows.get(id);
      return row === undefined ? undefined : JSON.parse(row);
    },
    delete: (id: string) => void rows.delete(id),
    watch: (id, changed) => {
      watchers.set(id, changed);
      return () => void watchers.delete(id);
    },
  };
  const aborted = Promise.withResolvers<void>();
  const s = createServer(INFO, { taskStore: store });
  s.tool({
    name: "slow",
    description: "d",
    // An hour between polls: only watch() can tell it in time.
    task: { pollIntervalMs: 3_600_000 },
    handler: (_args, ctx) =>
      new Promise((resolve) => {
        ctx.signal.addEventListener("abort", () => {
          aborted.resolve();
          resolve(text("stopped"));
        });
      }),
  });
  await using client = await connectStateless(s, { capabilities: TASKS });
  const { taskId } = await client.call("slow") as unknown as { taskId: string };
  assert.equal(watchers.size, 1);
  // Another instance cancels: it writes the record, the store pushes.
  const task = JSON.parse(rows.get(taskId)!) as StoredTask;
  rows.set(taskId, JSON.stringify({ ...task, status: "cancelled" }));
  const before = gets;
  watchers.get(taskId)!();
  await aborted.promise;
  assert.ok(gets > before);
  await until("unwatched", () => watchers.size === 0);
  await s.close();
});
