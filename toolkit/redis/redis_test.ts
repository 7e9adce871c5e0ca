// Two servers in this process, each with its own connection to a real
// redis-server started here: what instances behind a load balancer share.

import assert from "node:assert/strict";
import { text } from "../result/result.ts";
import { connectStateless } from "../server/_stateless_test_helpers.ts";
import { createServer } from "../server/server.ts";
import type { StoredTask } from "../server/tasks.ts";
import { RpcError } from "../testing/testing.ts";
import { until } from "../testing/_until.ts";
import { connectRedis, type RedisConnection } from "./mod.ts";
import { freePort, haveRedis, startRedis } from "./_test_redis.ts";
import { LEASE_LAPSED } from "./_task_store.ts";

const ignore = !haveRedis();
const INFO = { name: "s", version: "1" };
const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };
const quiet = { onError: () => {} };

function task(taskId: string, status: StoredTask["status"]): StoredTask {
  const now = new Date().toISOString();
  return {
    taskId,
    status,
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 60_000,
    pollIntervalMs: 100,
    expiresAt: Date.now() + 60_000,
    toolName: "t",
  };
}

/** A tool that waits for its client's answer, then for a cancel or a release. */
function serverWith(redis: RedisConnection) {
  const server = createServer(INFO, {
    // A handler left waiting is aborted at close, not waited for.
    graceMs: 0,
    taskStore: redis.taskStore,
    notificationBus: redis.notificationBus,
  });
  const started = Promise.withResolvers<void>();
  const aborted = Promise.withResolvers<void>();
  server.tool({
    name: "ask",
    description: "Asks its client a question, then waits to be cancelled",
    // An hour between polls: only a push from Redis tells it in time.
    task: { pollIntervalMs: 3_600_000 },
    handler: async (_args, ctx) => {
      started.resolve();
      const answer = await ctx.elicit({
        message: "Name?",
        requestedSchema: {
          type: "object",
          properties: { name: { type: "string" } },
        },
      });
      await ctx.progress(1, 2, `Hello ${answer.content?.name}`);
      await new Promise((resolve) => {
        ctx.signal.addEventListener("abort", () => {
          aborted.resolve();
          resolve(undefined);
        });
      });
      return text("stopped");
    },
  });
  server.tool({ name: "plain", description: "d", handler: () => text("ok") });
  return { server, started, aborted };
}

Deno.test({
  name: "Redis task store: a put is read whole, and a final status stays",
  ignore,
  fn: async () => {
    await using redis = await startRedis();
    await using a = await connectRedis(redis.url, quiet);
    await a.taskStore.put(task("t1", "working"));
    assert.equal((await a.taskStore.get("t1"))?.status, "working");
    await a.taskStore.put({ ...task("t1", "cancelled") });
    await a.taskStore.put({ ...task("t1", "completed") });
    assert.equal((await a.taskStore.get("t1"))?.status, "cancelled");
    assert.equal(await a.taskStore.get("nope"), undefined);
    await a.taskStore.delete("t1");
    assert.equal(await a.taskStore.get("t1"), undefined);
  },
});

Deno.test({
  name: "Redis task store: an answer written meanwhile survives a stale write",
  ignore,
  fn: async () => {
    await using redis = await startRedis();
    await using a = await connectRedis(redis.url, quiet);
    await using b = await connectRedis(redis.url, quiet);
    await a.taskStore.put(task("t2", "input_required"));
    const stale = (await a.taskStore.get("t2"))!;
    const read = (await b.taskStore.get("t2"))!;
    await b.taskStore.put({
      ...read,
      inputResponses: { q: { action: "accept" } },
    });
    await a.taskStore.put({ ...stale, statusMessage: "still here" });
    const now = (await a.taskStore.get("t2"))!;
    assert.equal(now.statusMessage, "still here");
    assert.deepEqual(now.inputResponses, { q: { action: "accept" } });
    // The reader that saw the answer consumes it.
    delete now.inputResponses;
    await a.taskStore.put(now);
    assert.equal((await b.taskStore.get("t2"))!.inputResponses, undefined);
  },
});

Deno.test({
  name:
    "Redis: a task created on one instance is answered and cancelled through another, pushed, not polled",
  ignore,
  fn: async () => {
    await using redis = await startRedis();
    await using redisA = await connectRedis(redis.url, quiet);
    await using redisB = await connectRedis(redis.url, quiet);
    const a = serverWith(redisA);
    const b = serverWith(redisB);
    await using onA = await connectStateless(a.server, {
      capabilities: { ...TASKS, elicitation: {} },
    });
    await using onB = await connectStateless(b.server, {
      capabilities: { ...TASKS, elicitation: {} },
    });
    const { taskId } = await onA.call("ask") as unknown as { taskId: string };
    await onB.listen({ taskIds: [taskId] });
    await a.started.promise;
    let asked: Record<string, unknown> = {};
    await until("input_required on B", async () => {
      asked = await onB.request("tasks/get", { taskId });
      return asked.status === "input_required";
    });
    const [key] = Object.keys(asked.inputRequests as object);
    await onB.request("tasks/update", {
      taskId,
      inputResponses: { [key]: { action: "accept", content: { name: "Ada" } } },
    });
    // A hears the answer by a push, sets its progress; B's listen hears it.
    await until(
      "B's listen stream hears the progress made on A",
      () =>
        onB.notifications.some((n) =>
          n.method === "notifications/tasks" &&
          n.params?.statusMessage === "Hello Ada (1/2)"
        ),
    );
    await onB.request("tasks/cancel", { taskId });
    await a.aborted.promise;
    assert.equal(
      (await onA.request("tasks/get", { taskId })).status,
      "cancelled",
    );
    await Promise.all([a.server.close(), b.server.close()]);
  },
});

Deno.test({
  name:
    "Redis: a list change on one instance is heard on another's listen stream",
  ignore,
  fn: async () => {
    await using redis = await startRedis();
    await using redisA = await connectRedis(redis.url, quiet);
    await using redisB = await connectRedis(redis.url, quiet);
    const a = serverWith(redisA);
    const b = serverWith(redisB);
    await using onB = await connectStateless(b.server);
    await onB.listen({ toolsListChanged: true });
    a.server.tool({ name: "new", description: "d", handler: () => text("") })
      .remove();
    await until(
      "tools/list_changed on B",
      () =>
        onB.notifications.some((n) =>
          n.method === "notifications/tools/list_changed"
        ),
    );
    await Promise.all([a.server.close(), b.server.close()]);
  },
});

Deno.test({
  name:
    "Redis: the task of an instance that stopped is failed within one and a half leases",
  ignore,
  fn: async () => {
    await using redis = await startRedis();
    const leaseMs = 600;
    const redisA = await connectRedis(redis.url, { ...quiet, leaseMs });
    await using redisB = await connectRedis(redis.url, { ...quiet, leaseMs });
    const a = serverWith(redisA);
    const b = serverWith(redisB);
    await using onA = await connectStateless(a.server, {
      capabilities: { ...TASKS, elicitation: {} },
    });
    await using onB = await connectStateless(b.server, { capabilities: TASKS });
    const { taskId } = await onA.call("ask") as unknown as { taskId: string };
    await onB.listen({ taskIds: [taskId] });
    await a.started.promise;
    // A dies: its connection goes, its lease is no longer renewed.
    await redisA.close();
    const died = performance.now();
    await until(
      "B's listen stream hears the task failed",
      () =>
        onB.notifications.some((n) =>
          n.method === "notifications/tasks" && n.params?.status === "failed"
        ),
      { timeoutMs: 5_000, intervalMs: 20 },
    );
    const elapsed = performance.now() - died;
    assert.ok(elapsed < leaseMs * 1.5 + 300, `failed after ${elapsed} ms`);
    const polled = await onB.request("tasks/get", { taskId });
    assert.equal(polled.status, "failed");
    assert.equal(polled.statusMessage, LEASE_LAPSED);
    await Promise.all([a.server.close(), b.server.close()]);
  },
});

Deno.test({
  name:
    "Redis away: tasks fail fast with a JSON-RPC error, other calls work, and it comes back",
  ignore,
  fn: async () => {
    await using redis = await startRedis();
    await using owner = await connectRedis(redis.url, quiet);
    await using connection = await connectRedis(redis.url, {
      ...quiet,
      timeoutMs: 300,
    });
    const a = serverWith(owner);
    const { server } = serverWith(connection);
    await using onA = await connectStateless(a.server, {
      capabilities: { ...TASKS, elicitation: {} },
    });
    // Polled on another instance: the one running it knows its own state.
    await using client = await connectStateless(server, {
      capabilities: { ...TASKS, elicitation: {} },
    });
    const { taskId } = await onA.call("ask") as unknown as {
      taskId: string;
    };
    await until(
      "input_required",
      async () =>
        (await client.request("tasks/get", { taskId })).status ===
          "input_required",
    );
    await redis.stop();
    const asked = performance.now();
    const failure = await client.request("tasks/get", { taskId }).then(
      () => undefined,
      (error) => error,
    );
    assert.ok(failure instanceof RpcError, String(failure));
    assert.equal(failure.code, -32603);
    assert.match(failure.message, /Redis is unavailable/);
    assert.ok(performance.now() - asked < 1_000);
    assert.deepEqual((await client.call("plain")).content, [
      { type: "text", text: "ok" },
    ]);
    await redis.start();
    await until(
      "tasks/get answers again",
      () =>
        client.request("tasks/get", { taskId }).then(
          (task) => task.status === "input_required",
          () => false,
        ),
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    await Promise.all([a.server.close(), server.close()]);
  },
});

Deno.test({
  name: "connectRedis rejects, in bounded time, when nothing listens",
  ignore,
  fn: async () => {
    const started = performance.now();
    await assert.rejects(
      connectRedis(`redis://127.0.0.1:${freePort()}`, {
        ...quiet,
        connectTimeoutMs: 500,
      }),
      /Cannot connect to Redis at redis:\/\/127\.0\.0\.1:\d+\/?: no answer within 500 ms/,
    );
    assert.ok(performance.now() - started < 2_000);
  },
});

Deno.test("connectRedis refuses what is not a Redis URL", async () => {
  await assert.rejects(
    connectRedis("http://localhost:6379"),
    TypeError,
  );
  await assert.rejects(
    connectRedis("redis://x", { leaseMs: 0 }),
    RangeError,
  );
});

Deno.test("The main, server and stdio entries never load the Redis client", async () => {
  const root = new URL("../../", import.meta.url);
  for (
    const entry of ["mod.ts", "toolkit/server/mod.ts", "toolkit/stdio/mod.ts"]
  ) {
    const { stdout } = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", new URL(entry, root).pathname],
      stdout: "piped",
      stderr: "null",
    }).output();
    // The lock's packages are all listed; the modules are what loads.
    const { modules } = JSON.parse(new TextDecoder().decode(stdout)) as {
      modules: { specifier: string }[];
    };
    assert.ok(modules.length > 0, `deno info ${entry} printed no graph`);
    const loaded = modules.map((m) => m.specifier).filter((s) =>
      /^npm:\/?redis@/.test(s) || s.includes("/toolkit/redis/")
    );
    assert.deepEqual(loaded, [], entry);
  }
});
