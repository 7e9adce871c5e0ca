import assert from "node:assert/strict";
import { createServer } from "./server.ts";
import { text } from "../result/result.ts";
import { RpcError } from "../testing/testing.ts";
import { until } from "../testing/_until.ts";
import { connectStateless } from "./_stateless_test_helpers.ts";

const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };

Deno.test("a cancel racing a task's own end leaves one final status that never changes, over 300 tasks", async () => {
  const server = createServer({ name: "race", version: "1" });
  let ended = 0;
  // Held handlers end only once every cancel has been sent.
  const release = Promise.withResolvers<void>();
  server.tool({
    name: "race",
    description: "Ends after a random few milliseconds",
    task: true,
    // It ignores its signal, so a cancelled task's handler still ends later.
    handler: async (args) => {
      const { ms, hold } = args as { ms: number; hold: boolean };
      if (hold) await release.promise;
      else await new Promise((resolve) => setTimeout(resolve, ms));
      ended++;
      return text(`after ${ms} ms`);
    },
  });
  await using client = await connectStateless(server, { capabilities: TASKS });
  const status = async (taskId: string) =>
    (await client.request("tasks/get", { taskId })).status;
  // Most tasks are cancelled at about the moment they end, a little before or
  // after. Two in ten are anchors whatever the machine's load: one is
  // cancelled only once it has completed, one while its handler is held.
  const started = Array.from({ length: 300 }, async (_, i) => {
    const ms = 3 + (i % 10);
    const kind = i % 10 === 0 ? "ended" : i % 10 === 1 ? "held" : "racing";
    const { taskId } = await client.call("race", {
      ms,
      hold: kind === "held",
    }) as unknown as { taskId: string };
    if (kind === "ended") {
      await until(
        "an anchor task to complete",
        async () => await status(taskId) === "completed",
      );
    } else if (kind === "racing") {
      // Time is the race itself: the cancel lands near the handler's end.
      await new Promise((resolve) => setTimeout(resolve, ms + (i % 5) - 2));
    }
    await client.request("tasks/cancel", { taskId });
    return { taskId, kind };
  });
  const tasks = await Promise.all(started);
  release.resolve();
  const ids = tasks.map((task) => task.taskId);
  assert.equal(new Set(ids).size, 300, "every task id is its own");
  const read = () =>
    Promise.all(ids.map((taskId) => client.request("tasks/get", { taskId })));
  await until(
    "every task to reach a final status",
    async () =>
      (await read()).every((task) =>
        task.status === "completed" || task.status === "cancelled"
      ),
  );
  const first = await read();
  for (const task of first) {
    assert.ok(
      task.status === "completed" || task.status === "cancelled",
      `final status, got ${task.status}`,
    );
    assert.equal("result" in task, task.status === "completed");
  }
  // Late handlers (those that ignored the abort) must not change anything.
  // The memory store writes in microtasks, so once until() sees the last
  // handler ended (in a later timer turn), what it wrote has been written.
  await until("every handler to end", () => ended === 300);
  const again = await read();
  assert.deepEqual(again, first);
  for (const [i, task] of first.entries()) {
    if (tasks[i].kind === "held") assert.equal(task.status, "cancelled");
    if (tasks[i].kind === "ended") assert.equal(task.status, "completed");
  }
});

Deno.test("a flood of tasks/get, tasks/update and tasks/cancel for ids the server never issued is refused -32602 and the server keeps serving", async () => {
  const server = createServer({ name: "flood", version: "1" });
  server.tool({
    name: "quick",
    description: "d",
    task: true,
    handler: () => text("ok"),
  });
  await using client = await connectStateless(server, { capabilities: TASKS });
  const { taskId } = await client.call("quick") as unknown as {
    taskId: string;
  };
  const guesses = Array.from({ length: 3000 }, (_, i) => {
    const method = ["tasks/get", "tasks/update", "tasks/cancel"][i % 3];
    // Near misses of the real id (one character off), and arbitrary strings.
    const last = "0123456789abcdef".replace(taskId.at(-1)!, "")[i % 15];
    const id = i % 2 === 0 ? `${taskId.slice(0, -1)}${last}` : `task-${i}`;
    return client.request(method, { taskId: id, inputResponses: {} }).then(
      () => "answered",
      (cause) => cause instanceof RpcError ? cause.code : cause,
    );
  });
  const codes = await Promise.all(guesses);
  assert.deepEqual(codes.filter((code) => code !== -32602), []);
  const done = await client.request("tasks/get", { taskId });
  assert.equal(done.status, "completed");
});
