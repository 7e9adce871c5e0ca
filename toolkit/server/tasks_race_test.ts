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
  server.tool({
    name: "race",
    description: "Ends after a random few milliseconds",
    task: true,
    // It ignores its signal, so a cancelled task's handler still ends later.
    handler: async (args) => {
      const { ms } = args as { ms: number };
      await new Promise((resolve) => setTimeout(resolve, ms));
      ended++;
      return text(`after ${ms} ms`);
    },
  });
  await using client = await connectStateless(server, { capabilities: TASKS });
  // Each task is cancelled at about the moment it ends, a little before or after.
  const ids = await Promise.all(
    Array.from({ length: 300 }, async (_, i) => {
      const ms = 3 + (i % 10);
      const { taskId } = await client.call("race", { ms }) as unknown as {
        taskId: string;
      };
      // Time is the race itself: the cancel lands near the handler's end.
      await new Promise((resolve) => setTimeout(resolve, ms + (i % 5) - 2));
      await client.request("tasks/cancel", { taskId });
      return taskId;
    }),
  );
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
  const cancelled = first.filter((task) => task.status === "cancelled").length;
  assert.ok(cancelled > 0, "some cancels won the race");
  assert.ok(cancelled < 300, "some tasks ended before their cancel");
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
