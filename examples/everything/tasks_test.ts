import assert from "node:assert/strict";
import { until } from "../../toolkit/testing/_until.ts";
import { createHttpHandler } from "@forge/toolkit/http";
import { createEverythingServer } from "./server.ts";

const VERSION = "2026-07-28";
const TASKS = {
  elicitation: {},
  extensions: { "io.modelcontextprotocol/tasks": {} },
};

/** One 2026-07-28 request over the everything server's HTTP handler. */
async function rpc(
  handler: ReturnType<typeof createHttpHandler>,
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = TASKS,
): Promise<Record<string, unknown>> {
  const name = (params.name ?? params.taskId) as string;
  const response = await handler(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": VERSION,
        "mcp-method": method,
        "mcp-name": name,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method,
        params: {
          ...params,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": VERSION,
            "io.modelcontextprotocol/clientCapabilities": capabilities,
          },
        },
      }),
    }),
  );
  return await response.json();
}

async function settle(
  handler: ReturnType<typeof createHttpHandler>,
  taskId: unknown,
): Promise<Record<string, unknown>> {
  let task: Record<string, unknown> = {};
  // A client learns a task's end by polling tasks/get, as this does.
  await until(`task ${taskId} to end`, async () => {
    const { result } = await rpc(handler, "tasks/get", { taskId });
    task = result as Record<string, unknown>;
    return ["completed", "failed", "cancelled"].includes(task.status as string);
  }, { timeoutMs: 6000, intervalMs: 20 });
  return task;
}

Deno.test("the everything server's task tools run as tasks over stateless HTTP", async (t) => {
  const handler = createHttpHandler(createEverythingServer());
  await t.step("slow_compute: a task polled to completed", async () => {
    const { result } = await rpc(handler, "tools/call", {
      name: "slow_compute",
      arguments: { seconds: 0, label: "now" },
    });
    const created = result as Record<string, unknown>;
    assert.equal(created.resultType, "task");
    const done = await settle(handler, created.taskId);
    assert.deepEqual(done.result, {
      content: [{ type: "text", text: "now: done after 0 s" }],
    });
  });
  await t.step(
    "slow_compute without the extension: the plain result",
    async () => {
      const { result } = await rpc(handler, "tools/call", {
        name: "slow_compute",
        arguments: { seconds: 0 },
      }, { elicitation: {} });
      assert.equal((result as Record<string, unknown>).resultType, "complete");
    },
  );
  await t.step("failing_job without the extension: -32021", async () => {
    const { error } = await rpc(handler, "tools/call", {
      name: "failing_job",
      arguments: {},
    }, {});
    assert.equal((error as { code: number }).code, -32021);
  });
  await t.step(
    "confirm_delete: input_required, answered by tasks/update",
    async () => {
      const { result } = await rpc(handler, "tools/call", {
        name: "confirm_delete",
        arguments: { filename: "a.txt" },
      });
      const { taskId } = result as { taskId: string };
      let task: Record<string, unknown> = {};
      for (let i = 0; i < 100 && task.status !== "input_required"; i++) {
        task = (await rpc(handler, "tasks/get", { taskId })).result as Record<
          string,
          unknown
        >;
      }
      const [key] = Object.keys(task.inputRequests as object);
      await rpc(handler, "tasks/update", {
        taskId,
        inputResponses: {
          [key]: { action: "accept", content: { confirm: true } },
        },
      });
      const done = await settle(handler, taskId);
      assert.deepEqual(done.result, {
        content: [{ type: "text", text: "Deleted a.txt" }],
      });
    },
  );
  await t.step(
    "test_tool_with_task: a multi-round request first, then a task with the answer",
    async () => {
      const first = (await rpc(handler, "tools/call", {
        name: "test_tool_with_task",
        arguments: {},
      })).result as Record<string, unknown>;
      assert.equal(first.resultType, "input_required");
      assert.ok(!("taskId" in first));
      assert.deepEqual(Object.keys(first.inputRequests as object), [
        "user_name",
      ]);
      const second = (await rpc(handler, "tools/call", {
        name: "test_tool_with_task",
        arguments: {},
        inputResponses: {
          user_name: { action: "accept", content: { name: "Alice" } },
        },
        requestState: first.requestState,
      })).result as Record<string, unknown>;
      assert.equal(second.resultType, "task");
      assert.ok(!("requestState" in second) && !("inputRequests" in second));
      const done = await settle(handler, second.taskId);
      assert.deepEqual(done.result, {
        content: [{ type: "text", text: "Report ready for Alice" }],
      });
    },
  );
});
