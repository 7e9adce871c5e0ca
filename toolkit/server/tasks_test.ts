import assert from "node:assert/strict";
import { createServer, type ToolServer } from "./server.ts";
import { error, text } from "../result/result.ts";
import { connect, RpcError } from "../testing/testing.ts";
import { createHttpHandler } from "../http/handler.ts";
import type { StoredTask, TaskStore } from "./tasks.ts";
import { TaskManager } from "./_tasks.ts";
import { LazyAbort } from "../_util/abort.ts";
import { registerPatternTool } from "../probe.ts";
import { acknowledged, checkListenFilter } from "./_era.ts";
import { until } from "../testing/_until.ts";
import {
  connectStateless,
  type StatelessClient,
} from "./_stateless_test_helpers.ts";

const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };

/** A handler that waits until the test lets it go, and says whether it was aborted. */
function gated() {
  const release = Promise.withResolvers<void>();
  const started = Promise.withResolvers<AbortSignal>();
  const aborted = Promise.withResolvers<unknown>();
  const ended = Promise.withResolvers<void>();
  return {
    release: () => release.resolve(),
    started: started.promise,
    aborted: aborted.promise,
    /** Resolves as the handler returns, after its release. */
    ended: ended.promise,
    handler: async (_args: unknown, ctx: { signal: AbortSignal }) => {
      ctx.signal.addEventListener(
        "abort",
        () => aborted.resolve(ctx.signal.reason),
      );
      started.resolve(ctx.signal);
      await release.promise;
      ended.resolve();
      return text("done");
    },
  };
}

/** Polls tasks/get until the status is one of `statuses`. */
async function untilStatus(
  client: Pick<StatelessClient, "request">,
  taskId: unknown,
  ...statuses: string[]
): Promise<Record<string, unknown>> {
  let task: Record<string, unknown> = {};
  await until(
    `task ${taskId} to reach ${statuses.join(" or ")}`,
    async () => {
      task = await client.request("tasks/get", { taskId: taskId as string });
      return statuses.includes(task.status as string);
    },
  );
  return task;
}

async function rpcError(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise;
  } catch (cause) {
    if (cause instanceof RpcError) return cause;
    throw cause;
  }
  throw new Error("expected a JSON-RPC error");
}

function server(): ToolServer {
  return createServer({ name: "tasks", version: "1" });
}

Deno.test("a task tool answers a task at once, tasks/get shows it working, then completed with the result inlined", async () => {
  const s = server();
  const gate = gated();
  s.tool({ name: "slow", description: "d", task: true, handler: gate.handler });
  await using client = await connectStateless(s, { capabilities: TASKS });
  const created = await client.call("slow") as unknown as Record<
    string,
    unknown
  >;
  assert.equal(created.resultType, "task");
  assert.equal(created.status, "working");
  assert.equal(typeof created.taskId, "string");
  assert.equal(created.ttlMs, 3_600_000);
  assert.equal(created.pollIntervalMs, 1_000);
  assert.ok(!("result" in created) && !("task" in created));
  assert.ok(!Number.isNaN(Date.parse(created.createdAt as string)));
  await gate.started;
  const working = await client.request("tasks/get", {
    taskId: created.taskId as string,
  });
  assert.equal(working.status, "working");
  assert.equal(working.resultType, "complete");
  assert.ok(!("result" in working));
  gate.release();
  const done = await untilStatus(client, created.taskId, "completed");
  assert.deepEqual(done.result, { content: [{ type: "text", text: "done" }] });
  assert.equal(done.taskId, created.taskId);
});

Deno.test("a 2026-07-28 request sees execution.taskSupport and server/discover offers the tasks extension", async () => {
  const s = server();
  s.tool({ name: "plain", description: "d", handler: () => text("x") });
  s.tool({
    name: "may",
    description: "d",
    task: true,
    handler: () => text("x"),
  });
  s.tool({
    name: "must",
    description: "d",
    task: "required",
    handler: () => text("x"),
  });
  await using client = await connectStateless(s);
  const tools = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.execution), [
    undefined,
    { taskSupport: "optional" },
    { taskSupport: "required" },
  ]);
  const discovered = await client.request("server/discover");
  const capabilities = discovered.capabilities as Record<string, unknown>;
  assert.deepEqual(capabilities.extensions, {
    "io.modelcontextprotocol/tasks": {},
  });
  assert.equal(capabilities.tasks, undefined);
});

Deno.test("a 2025-11-25 session is not offered tasks: no extension, no taskSupport, every call runs to its end", async (t) => {
  const s = server();
  s.tool({ name: "plain", description: "d", handler: () => text("x") });
  s.tool({
    name: "may",
    description: "d",
    task: true,
    handler: () => text("may done"),
  });
  s.tool({
    name: "must",
    description: "d",
    task: { support: "required", detach: "manual" },
    handler: async (_args, ctx) => {
      await ctx.detach(); // nothing to detach into: the call goes on
      assert.equal(ctx.taskId, undefined);
      return text("must done");
    },
  });
  s.tool({
    name: "crash",
    description: "d",
    task: "required",
    handler: () => Promise.reject(new Error("worker died")),
  });
  s.tool({
    name: "refuse",
    description: "d",
    task: "required",
    handler: () => error("no such report"),
  });
  // Even a client that declares the extension: it is a 2026-07-28 one.
  for (const capabilities of [{}, TASKS]) {
    await t.step(`declaring ${JSON.stringify(capabilities)}`, async () => {
      await using client = await connect(s, { capabilities });
      const offered = client.initializeResult.capabilities as Record<
        string,
        unknown
      >;
      assert.equal(offered.extensions, undefined);
      assert.equal(offered.tasks, undefined);
      const tools = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.execution), [
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
      ]);
      assert.deepEqual(await client.call("may"), {
        content: [{ type: "text", text: "may done" }],
      });
      assert.deepEqual(await client.call("must"), {
        content: [{ type: "text", text: "must done" }],
      });
      const crashed = await rpcError(client.call("crash"));
      assert.equal(crashed.code, -32603);
      assert.equal(crashed.message, "Tool crash failed: worker died");
      assert.deepEqual(await client.call("refuse"), {
        content: [{ type: "text", text: "no such report" }],
        isError: true,
      });
      for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
        const refused = await rpcError(
          client.request(method, { taskId: "x", inputResponses: {} }),
        );
        assert.equal(refused.code, -32601, method);
        assert.match(
          refused.message,
          /io\.modelcontextprotocol\/tasks extension is served to 2026-07-28 requests only/,
        );
      }
    });
  }
});

Deno.test("a 2026-07-28 client without the tasks extension gets plain answers, -32021 for a required tool and for the tasks methods", async (t) => {
  const s = server();
  let ran = 0;
  s.tool({
    name: "may",
    description: "d",
    task: true,
    handler: async (_args, ctx) => {
      assert.equal(ctx.taskId, undefined);
      await ctx.detach(); // nothing to detach into: the call goes on
      ran++;
      return text("plain");
    },
  });
  s.tool({
    name: "must",
    description: "d",
    task: "required",
    handler: () => {
      ran++;
      return text("never");
    },
  });
  await using client = await connectStateless(s);
  await t.step("optional: the plain result", async () => {
    const result = await client.call("may");
    assert.deepEqual(result.content, [{ type: "text", text: "plain" }]);
    assert.equal(
      (result as unknown as Record<string, unknown>).taskId,
      undefined,
    );
  });
  await t.step(
    "required: -32021 naming the extension, nothing runs",
    async () => {
      const refused = await rpcError(client.call("must"));
      assert.equal(refused.code, -32021);
      assert.deepEqual(refused.data, {
        requiredCapabilities: {
          extensions: { "io.modelcontextprotocol/tasks": {} },
        },
      });
      assert.match(
        refused.message,
        /tool "must" needs the io\.modelcontextprotocol\/tasks extension/,
      );
    },
  );
  await t.step("tasks/get, tasks/update, tasks/cancel: -32021", async () => {
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const refused = await rpcError(
        client.request(method, { taskId: "x", inputResponses: {} }),
      );
      assert.equal(refused.code, -32021, method);
    }
  });
  assert.equal(ran, 1);
});

Deno.test("tasks/list and tasks/result are not methods (-32601); an unknown or malformed task id is -32602", async () => {
  const s = server();
  s.tool({
    name: "may",
    description: "d",
    task: true,
    handler: () => text("x"),
  });
  await using client = await connectStateless(s, { capabilities: TASKS });
  for (const method of ["tasks/list", "tasks/result"]) {
    assert.equal(
      (await rpcError(client.request(method, { taskId: "x" }))).code,
      -32601,
    );
  }
  for (const method of ["tasks/get", "tasks/cancel"]) {
    const unknown = await rpcError(client.request(method, { taskId: "nope" }));
    assert.equal(unknown.code, -32602);
    assert.match(unknown.message, /unknown task "nope"/);
    const malformed = await rpcError(client.request(method, { taskId: 7 }));
    assert.equal(malformed.code, -32602);
    assert.match(malformed.message, /taskId: expected string, got number/);
  }
  const bad = await rpcError(
    client.request("tasks/update", { taskId: "nope", inputResponses: [] }),
  );
  assert.match(
    bad.message,
    /inputResponses: expected an object of answers by key, got array/,
  );
});

Deno.test("tasks/cancel aborts the handler's ctx.signal, the task ends cancelled and a later result does not overwrite it", async () => {
  const s = server();
  const gate = gated();
  s.tool({ name: "slow", description: "d", task: true, handler: gate.handler });
  await using client = await connectStateless(s, { capabilities: TASKS });
  const { taskId } = await client.call("slow") as unknown as { taskId: string };
  await gate.started;
  const ack = await client.request("tasks/cancel", { taskId });
  assert.deepEqual(ack, { resultType: "complete" });
  const reason = await gate.aborted;
  assert.match(String(reason), /cancelled by the client/);
  const cancelled = await client.request("tasks/get", { taskId });
  assert.equal(cancelled.status, "cancelled");
  gate.release(); // the handler ends anyway; the final status stays
  await gate.ended;
  assert.equal(
    (await client.request("tasks/get", { taskId })).status,
    "cancelled",
  );
  assert.deepEqual(await client.request("tasks/cancel", { taskId }), {
    resultType: "complete",
  });
});

Deno.test("a tool error completes the task with isError; a crash fails it with the JSON-RPC error and no result", async () => {
  const s = server();
  s.tool({
    name: "bad",
    description: "d",
    task: true,
    handler: () => error("no input"),
  });
  s.tool({
    name: "crash",
    description: "d",
    task: true,
    handler: () => Promise.reject(new Error("worker died")),
  });
  await using client = await connectStateless(s, { capabilities: TASKS });
  const bad = await client.call("bad") as unknown as { taskId: string };
  const completed = await untilStatus(
    client,
    bad.taskId,
    "completed",
    "failed",
  );
  assert.equal(completed.status, "completed");
  assert.deepEqual(completed.result, {
    content: [{ type: "text", text: "no input" }],
    isError: true,
  });
  const crash = await client.call("crash") as unknown as { taskId: string };
  const failed = await untilStatus(client, crash.taskId, "completed", "failed");
  assert.equal(failed.status, "failed");
  assert.deepEqual(failed.error, {
    code: -32603,
    message: "Tool crash failed: worker died",
  });
  assert.ok(!("result" in failed));
});

Deno.test("a task's input requests wait in input_required until tasks/update answers each; unknown keys are ignored", async () => {
  const s = server();
  const schema = { type: "object", properties: { name: { type: "string" } } };
  s.tool({
    name: "two",
    description: "d",
    task: true,
    handler: async (_args, ctx) => {
      const [a, b] = await Promise.all([
        ctx.elicit({ message: "A?", requestedSchema: schema }),
        ctx.elicit({
          message: "B?",
          requestedSchema: schema,
          _meta: { "forge.input_key": "b" },
        }),
      ]);
      return text(`${a.content?.name} ${b.content?.name}`);
    },
  });
  await using client = await connectStateless(s, {
    capabilities: { ...TASKS, elicitation: {} },
    onRequest: () => {
      throw new Error("a task asks through tasks/get, not input-required");
    },
  });
  const { taskId } = await client.call("two") as unknown as { taskId: string };
  let waiting = await untilStatus(client, taskId, "input_required");
  for (
    let i = 0;
    i < 100 && Object.keys(waiting.inputRequests as object).length < 2;
    i++
  ) {
    waiting = await client.request("tasks/get", { taskId });
  }
  const requests = waiting.inputRequests as Record<
    string,
    Record<string, unknown>
  >;
  assert.deepEqual(Object.keys(requests).sort(), ["b", "elicitation-1"]);
  assert.deepEqual(requests.b, {
    method: "elicitation/create",
    params: { message: "B?", requestedSchema: schema },
  });
  const ack = await client.request("tasks/update", {
    taskId,
    inputResponses: {
      "elicitation-1": { action: "accept", content: { name: "Ada" } },
      "not-asked": { action: "accept" },
    },
  });
  assert.deepEqual(ack, { resultType: "complete" });
  const partly = await client.request("tasks/get", { taskId });
  assert.equal(partly.status, "input_required");
  assert.deepEqual(Object.keys(partly.inputRequests as object), ["b"]);
  await client.request("tasks/update", {
    taskId,
    inputResponses: { b: { action: "accept", content: { name: "Grace" } } },
  });
  const done = await untilStatus(client, taskId, "completed");
  assert.deepEqual(done.result, {
    content: [{ type: "text", text: "Ada Grace" }],
  });
});

Deno.test("a task survives its client: a new session, or a new stateless request, polls the task another one created", async (t) => {
  const s = server();
  const gate = gated();
  s.tool({ name: "slow", description: "d", task: true, handler: gate.handler });
  await t.step(
    "in-memory clients (2026-07-28 over one connection each)",
    async () => {
      const first = await connectStateless(s, { capabilities: TASKS });
      const { taskId } = await first.call("slow") as unknown as {
        taskId: string;
      };
      const signal = await gate.started;
      await first.close();
      assert.equal(
        signal.aborted,
        false,
        "closing the connection must not stop the task",
      );
      await using second = await connectStateless(s, { capabilities: TASKS });
      assert.equal(
        (await second.request("tasks/get", { taskId })).status,
        "working",
      );
      gate.release();
      const done = await untilStatus(second, taskId, "completed");
      assert.deepEqual(done.result, {
        content: [{ type: "text", text: "done" }],
      });
    },
  );
  await t.step("stateless HTTP requests (2026-07-28)", async () => {
    const handler = createHttpHandler(s);
    const created = await post(handler, "tools/call", {
      name: "slow",
      arguments: {},
    });
    assert.equal(created.resultType, "task");
    const done = await post(handler, "tasks/get", { taskId: created.taskId });
    assert.equal(done.status, "completed"); // the gate stays open
    assert.equal(done.resultType, "complete");
  });
});

/** One 2026-07-28 request over the HTTP handler, its result (or a thrown RpcError). */
async function post(
  handler: ReturnType<typeof createHttpHandler>,
  method: string,
  params: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const name = (params.name ?? params.taskId) as string;
  const response = await handler(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
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
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": TASKS,
          },
        },
      }),
    }),
  );
  const body = await response.json();
  if (body.error !== undefined) {
    throw new RpcError(body.error.code, body.error.message, body.error.data);
  }
  return body.result;
}

Deno.test("a task store of one's own is shared: a second instance reads, answers and cancels a task running on the first", async () => {
  const rows = new Map<string, string>();
  const store: TaskStore = {
    put: async (task: StoredTask) => {
      await Promise.resolve(); // as a database would, later
      rows.set(task.taskId, JSON.stringify(task));
    },
    get: (taskId) => {
      const row = rows.get(taskId);
      return row === undefined ? undefined : JSON.parse(row);
    },
    delete: (taskId) => void rows.delete(taskId),
  };
  const aborted = Promise.withResolvers<void>();
  const answered = Promise.withResolvers<string>();
  const make = () => {
    const s = createServer({ name: "tasks", version: "1" }, {
      taskStore: store,
    });
    s.tool({
      name: "ask",
      description: "d",
      task: { pollIntervalMs: 10 },
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit({
          message: "Go?",
          requestedSchema: {},
        });
        answered.resolve(answer.action);
        await new Promise<void>((resolve) => {
          ctx.signal.addEventListener("abort", () => {
            aborted.resolve();
            resolve();
          });
        });
        return text(String(answer.action));
      },
    });
    return s;
  };
  await using one = await connectStateless(make(), {
    capabilities: { ...TASKS, elicitation: {} },
  });
  await using two = await connectStateless(make(), {
    capabilities: { ...TASKS, elicitation: {} },
  });
  const { taskId } = await one.call("ask") as unknown as { taskId: string };
  assert.ok(rows.has(taskId), "stored before the answer");
  const waiting = await untilStatus(two, taskId, "input_required");
  const [key] = Object.keys(waiting.inputRequests as object);
  await two.request("tasks/update", {
    taskId,
    inputResponses: { [key]: { action: "accept" } },
  });
  assert.equal((await two.request("tasks/get", { taskId })).status, "working");
  // The first instance picks the answer up from the store.
  assert.equal(await answered.promise, "accept");
  await two.request("tasks/cancel", { taskId });
  await aborted.promise; // the first instance saw the cancel in the store
  assert.equal(
    (await one.request("tasks/get", { taskId })).status,
    "cancelled",
  );
});

Deno.test("a task stays readable for ttlMs after its last change and is gone after", async () => {
  const s = server();
  s.tool({
    name: "quick",
    description: "d",
    task: { ttlMs: 150 },
    handler: () => text("ok"),
  });
  await using client = await connectStateless(s, { capabilities: TASKS });
  const { taskId, ttlMs } = await client.call("quick") as unknown as {
    taskId: string;
    ttlMs: number;
  };
  assert.equal(ttlMs, 150);
  const done = await untilStatus(client, taskId, "completed");
  const changed = Date.parse(done.lastUpdatedAt as string);
  // Time is what is tested: readable before ttlMs has passed, gone after.
  await new Promise((resolve) => setTimeout(resolve, 100));
  if (Date.now() < changed + 150) {
    assert.equal(
      (await client.request("tasks/get", { taskId })).status,
      "completed",
    );
  }
  await new Promise((resolve) =>
    setTimeout(resolve, Math.max(0, changed + 160 - Date.now()))
  );
  const gone = await rpcError(client.request("tasks/get", { taskId }));
  assert.equal(gone.code, -32602);
});

Deno.test("detach: manual runs the handler within the request until ctx.detach(), then as a task", async (t) => {
  const s = server();
  const asked: string[] = [];
  s.tool({
    name: "gather",
    description: "d",
    task: { support: "required", detach: "manual" },
    handler: async (args, ctx) => {
      const answer = await ctx.elicit({ message: "Who?", requestedSchema: {} });
      if ((args as { now?: boolean }).now === true) {
        return text(`at once for ${answer.content?.name}`);
      }
      assert.equal(ctx.taskId, undefined);
      await ctx.detach();
      assert.equal(typeof ctx.taskId, "string");
      await ctx.detach(); // already a task: nothing more
      return text(`later for ${answer.content?.name}`);
    },
  });
  await using client = await connectStateless(s, {
    capabilities: { ...TASKS, elicitation: {} },
    onRequest: (method) => {
      asked.push(method);
      return { action: "accept", content: { name: "Ada" } };
    },
  });
  await t.step(
    "it detaches: the request's input-required round, then a task",
    async () => {
      const created = await client.call("gather") as unknown as Record<
        string,
        unknown
      >;
      assert.equal(created.resultType, "task");
      const done = await untilStatus(client, created.taskId, "completed");
      assert.deepEqual(done.result, {
        content: [{ type: "text", text: "later for Ada" }],
      });
    },
  );
  await t.step("it never detaches: the call answers itself", async () => {
    const result = await client.call("gather", { now: true });
    assert.deepEqual(result.content, [{
      type: "text",
      text: "at once for Ada",
    }]);
  });
  assert.deepEqual(asked, ["elicitation/create", "elicitation/create"]);
});

Deno.test("ctx.detach() rejects for a tool without task", async () => {
  const s = server();
  s.tool({
    name: "plain",
    description: "d",
    handler: async (_args, ctx) => {
      await ctx.detach();
      return text("unreachable");
    },
  });
  await using client = await connectStateless(s, { capabilities: TASKS });
  const failed = await rpcError(client.call("plain"));
  assert.match(
    failed.message,
    /Cannot detach: tool plain does not run as a task/,
  );
});

Deno.test("a listen stream naming a task hears notifications/tasks as its status changes", async () => {
  const s = server();
  const gate = gated();
  s.tool({ name: "slow", description: "d", task: true, handler: gate.handler });
  await using client = await connectStateless(s, { capabilities: TASKS });
  const { taskId } = await client.call("slow") as unknown as { taskId: string };
  await client.listen({ taskIds: [taskId] });
  gate.release();
  await untilStatus(client, taskId, "completed");
  await until(
    "notifications/tasks",
    () => client.notifications.some((n) => n.method === "notifications/tasks"),
  );
  const heard = client.notifications.filter((n) =>
    n.method === "notifications/tasks"
  );
  assert.deepEqual(heard.map((n) => n.params?.status), ["completed"]);
  assert.equal(heard[0].params?.taskId, taskId);
  assert.deepEqual(heard[0].params?.result, {
    content: [{ type: "text", text: "done" }],
  });
  assert.equal(heard[0].params?.resultType, undefined);
});

Deno.test("a detached task's progress is its statusMessage, the latest report winning, gone once it ends", async (t) => {
  let puts = 0;
  const rows = new Map<string, string>();
  const store: TaskStore = {
    put: async (task: StoredTask) => {
      puts++;
      // A slow store is the point: its writes take real time, so reports pile up.
      await new Promise((resolve) => setTimeout(resolve, 1));
      rows.set(task.taskId, JSON.stringify(task));
    },
    get: (taskId) => {
      const row = rows.get(taskId);
      return row === undefined ? undefined : JSON.parse(row);
    },
    delete: (taskId) => void rows.delete(taskId),
  };
  const s = createServer({ name: "tasks", version: "1" }, { taskStore: store });
  const reports: [number, number | undefined, string | undefined][] = [];
  let reported = Promise.withResolvers<void>();
  let release = Promise.withResolvers<void>();
  s.tool({
    name: "copy",
    description: "d",
    task: true,
    handler: async (_args, ctx) => {
      for (;;) {
        const burst = reports.splice(0);
        // Not awaited one by one: a loop reporting faster than the store.
        await Promise.all(burst.map((r) => ctx.progress(...r)));
        reported.resolve();
        const go = release.promise;
        if (burst.length === 0) return text("done");
        await go;
      }
    },
  });
  await using client = await connectStateless(s, { capabilities: TASKS });
  const next = async (...burst: typeof reports) => {
    reports.push(...burst);
    reported = Promise.withResolvers<void>();
    const previous = release;
    release = Promise.withResolvers<void>();
    previous.resolve();
    await reported.promise;
  };
  reports.push([1, 3, "Copying"], [2, 3, "Copying"], [3, 3, "Copying"]);
  const { taskId } = await client.call("copy") as unknown as {
    taskId: string;
  };
  await reported.promise;
  await client.listen({ taskIds: [taskId] });

  await t.step("the last report of a burst is the status message", async () => {
    const task = await client.request("tasks/get", { taskId });
    assert.equal(task.status, "working");
    assert.equal(task.statusMessage, "Copying (3/3)");
  });

  await t.step(
    "a burst of reports is written a few times, not once each",
    async () => {
      const before = puts;
      const burst: typeof reports = [];
      for (let i = 1; i <= 200; i++) burst.push([i, 200, "Copying"]);
      await next(...burst);
      assert.equal(
        (await client.request("tasks/get", { taskId })).statusMessage,
        "Copying (200/200)",
      );
      assert.ok(puts - before <= 3, `${puts - before} writes for 200 reports`);
    },
  );

  await t.step(
    "a report without a message or total still says how far",
    async () => {
      await next([7, undefined, undefined]);
      assert.equal(
        (await client.request("tasks/get", { taskId })).statusMessage,
        "Progress: 7",
      );
      await next([2, 4, ""]);
      assert.equal(
        (await client.request("tasks/get", { taskId })).statusMessage,
        "Progress: 2/4",
      );
    },
  );

  await t.step(
    "a listen stream hears the progress in notifications/tasks",
    () => {
      const heard = client.notifications
        .filter((n) => n.method === "notifications/tasks")
        .map((n) => n.params?.statusMessage);
      assert.ok(heard.includes("Copying (200/200)"), JSON.stringify(heard));
      assert.ok(heard.includes("Progress: 7"), JSON.stringify(heard));
    },
  );

  await t.step("the ended task has no status message", async () => {
    await next();
    const done = await untilStatus(client, taskId, "completed");
    assert.equal("statusMessage" in done, false);
  });
});

Deno.test("a task tool's time limit fails the task with -32001", async () => {
  const s = server();
  s.tool({
    name: "stuck",
    description: "d",
    task: true,
    timeoutMs: 20,
    handler: (_args, ctx) =>
      new Promise((_, reject) =>
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))
      ),
  });
  await using client = await connectStateless(s, { capabilities: TASKS });
  const { taskId } = await client.call("stuck") as unknown as {
    taskId: string;
  };
  const failed = await untilStatus(client, taskId, "failed");
  assert.deepEqual(failed.error, {
    code: -32001,
    message: "Tool stuck timed out after 20 ms",
  });
});

Deno.test("a task belongs to whoever created it: another owner's tasks/get, update and cancel see an unknown task", async () => {
  const tasks = new TaskManager(undefined);
  const mode = {
    support: "optional",
    ttlMs: 1000,
    pollIntervalMs: 100,
    detach: "start",
  } as const;
  const created = await tasks.create({
    toolName: "t",
    mode,
    owner: "sub:alice",
    abort: new LazyAbort(),
    capabilities: {},
  });
  const taskId = created.taskId as string;
  assert.equal((await tasks.get(taskId, "sub:alice")).status, "working");
  for (const owner of ["sub:mallory", undefined]) {
    await assert.rejects(tasks.get(taskId, owner), /unknown task/);
    await assert.rejects(tasks.cancel(taskId, owner), /unknown task/);
    await assert.rejects(tasks.update(taskId, {}, owner), /unknown task/);
  }
  await tasks.complete(taskId, { content: [] });
});

Deno.test("task options and the task store are checked at registration", async (t) => {
  await t.step("a bad task option names the tool and the field", () => {
    const s = server();
    const tool = (task: unknown) => () =>
      s.tool({
        name: "t",
        description: "d",
        task: task as true,
        handler: () => text("x"),
      });
    assert.throws(tool("sometimes"), {
      name: "TypeError",
      message:
        /Cannot register tool t: task: expected true, "optional", "required" or \{ support, ttlMs, pollIntervalMs, detach \}, got "sometimes"/,
    });
    assert.throws(tool({ support: "always" }), {
      name: "TypeError",
      message: /task\.support: expected "optional" or "required", got "always"/,
    });
    assert.throws(tool({ detach: "later" }), {
      name: "TypeError",
      message: /task\.detach/,
    });
    assert.throws(tool({ ttlMs: 0 }), {
      name: "RangeError",
      message:
        /task\.ttlMs must be a whole number of milliseconds >= 1 or null, got 0/,
    });
    assert.throws(tool({ pollIntervalMs: 1.5 }), {
      name: "RangeError",
      message: /task\.pollIntervalMs/,
    });
    s.tool({
      name: "forever",
      description: "d",
      task: { ttlMs: null },
      handler: () => text("x"),
    });
    s.tool({
      name: "never",
      description: "d",
      task: false,
      handler: () => text("x"),
    });
    assert.deepEqual(s.listTools().map((tool) => tool.execution), [{
      taskSupport: "optional",
    }, undefined]);
  });
  await t.step("a task store without its methods is a TypeError", () => {
    assert.throws(
      () =>
        createServer({ name: "s", version: "1" }, {
          taskStore: {} as TaskStore,
        }),
      {
        name: "TypeError",
        message:
          /taskStore must be an object with put\(task\), get\(taskId\) and delete\(taskId\) methods/,
      },
    );
  });
});

Deno.test("a probe of a task tool answers its patterns at once, never as a task", async () => {
  const s = server();
  let ran = 0;
  registerPatternTool(s, {
    name: "publish",
    description: "d",
    task: "required",
    patterns: () => ["net:https://example.com"],
    handler: () => {
      ran++;
      return text("published");
    },
  });
  await using client = await connect(s);
  const answer = await client.probe("publish");
  assert.deepEqual(answer.patterns, ["net:https://example.com"]);
  assert.equal(ran, 0);
  await using undeclared = await connectStateless(s);
  assert.equal((await rpcError(undeclared.call("publish"))).code, -32021);
  await using declaring = await connectStateless(s, { capabilities: TASKS });
  const probed = await declaring.call("publish", {}, {
    "forge.permission_patterns": true,
  });
  assert.equal(probed.resultType, "complete");
  assert.equal(probed.taskId, undefined);
  assert.deepEqual(
    (probed._meta as Record<string, unknown>)["forge.patterns"],
    ["net:https://example.com"],
  );
  assert.equal(ran, 0);
});

Deno.test("a 2026-07-28 subscriptions/listen naming a task's id hears its notifications/tasks; one naming another id does not", async () => {
  const s = server();
  const gate = gated();
  s.tool({ name: "slow", description: "d", task: true, handler: gate.handler });
  const handler = createHttpHandler(s);
  const created = await post(handler, "tools/call", {
    name: "slow",
    arguments: {},
  });
  const listen = (taskIds: string[]) =>
    handler(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "subscriptions/listen",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: `listen-${taskIds.length}`,
          method: "subscriptions/listen",
          params: {
            notifications: { taskIds },
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": TASKS,
            },
          },
        }),
      }),
    ).then((response) =>
      response.body!.pipeThrough(new TextDecoderStream()).getReader()
    );
  const mine = await listen([created.taskId as string]);
  const other = await listen(["someone-else", "and-another"]);
  let heard = "";
  while (!heard.includes("acknowledged")) heard += (await mine.read()).value;
  let overheard = "";
  while (!overheard.includes("acknowledged")) {
    overheard += (await other.read()).value;
  }
  gate.release();
  while (!heard.includes("notifications/tasks")) {
    heard += (await mine.read()).value;
  }
  const events = heard.split("\n").filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)));
  assert.deepEqual(events[0].params.notifications, {
    taskIds: [created.taskId],
  });
  const status = events.find((e) => e.method === "notifications/tasks");
  assert.equal(status.params.taskId, created.taskId);
  assert.equal(status.params.status, "completed");
  assert.deepEqual(status.params.result, {
    content: [{ type: "text", text: "done" }],
  });
  assert.equal(
    status.params._meta["io.modelcontextprotocol/subscriptionId"],
    "listen-1",
  );
  await handler.close();
  while (true) {
    const { value, done } = await other.read();
    if (done) break;
    overheard += value;
  }
  assert.ok(!overheard.includes("notifications/tasks"), overheard);
  await mine.cancel();
});

Deno.test("subscriptions/listen's taskIds must be an array of strings, and the acknowledgement echoes it", () => {
  assert.throws(
    () => checkListenFilter({ notifications: { taskIds: ["a", 1] } }),
    /notifications\.taskIds: expected an array of task id strings/,
  );
  assert.throws(
    () => checkListenFilter({ notifications: { taskIds: "a" } }),
    /notifications\.taskIds/,
  );
  const filter = checkListenFilter({ notifications: { taskIds: ["a"] } });
  assert.deepEqual(acknowledged(filter), { taskIds: ["a"] });
  assert.deepEqual(
    acknowledged(
      checkListenFilter({ notifications: { toolsListChanged: true } }),
    ),
    { toolsListChanged: true },
  );
});
