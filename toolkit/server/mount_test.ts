// server.mount(prefix, other): a mounted server's tools and prompts under
// its prefix, its resources under their URIs, its calls through its own
// pipeline in the parent's request, its later changes in the parent's lists,
// and every name collision refused naming both sides.

import assert from "node:assert/strict";
import { z } from "zod";
import { createServer, type ToolServer } from "./server.ts";
import { error, text, ToolError } from "../result/result.ts";
import { registerPatternTool } from "../probe.ts";
import { META_SUPPORTS_PERMISSION_PATTERNS } from "../patterns/probe_meta.ts";
import { connect, RpcError, type TestClient } from "../testing/testing.ts";
import { connectStateless } from "./_stateless_test_helpers.ts";
import { createHttpHandler } from "../http/handler.ts";

/** A round trip: the end-of-tick list_changed is sent before the answer to a later request. */
async function settle(client: TestClient): Promise<void> {
  await client.request("ping");
}

function listChanged(client: TestClient): string[] {
  return client.notifications.map((n) => n.method).filter((m) =>
    m.endsWith("/list_changed")
  );
}

async function rpcError(promise: Promise<unknown>): Promise<RpcError> {
  const cause = await promise.then(
    () => assert.fail("expected a JSON-RPC error"),
    (cause: unknown) => cause,
  );
  assert.ok(cause instanceof RpcError, String(cause));
  return cause;
}

function throwsNaming(run: () => unknown, ...parts: string[]): void {
  assert.throws(run, (cause: unknown) => {
    assert.ok(cause instanceof TypeError, String(cause));
    for (const part of parts) {
      assert.ok(cause.message.includes(part), `${cause.message} names ${part}`);
    }
    return true;
  });
}

/** A files server with a tool, a pattern tool, a prompt, a resource and a template. */
function filesServer(runs: string[]): ToolServer {
  const files = createServer({ name: "files", version: "1" });
  files.tool({
    name: "read",
    description: "Reads a file",
    input: z.object({ path: z.string() }),
    handler: ({ path }) => {
      runs.push(`read ${path}`);
      return text(`contents of ${path}`);
    },
  });
  registerPatternTool(files, {
    name: "write",
    description: "Writes a file",
    input: z.object({ path: z.string() }),
    patterns: ({ path }) => [`write:${path}`],
    handler: ({ path }) => {
      runs.push(`write ${path}`);
      return text("written");
    },
  });
  files.prompt({
    name: "summarise",
    arguments: [{
      name: "path",
      required: true,
      complete: (typed) => ["a.md", "b.md"].filter((p) => p.startsWith(typed)),
    }],
    handler: ({ path }) => ({
      messages: [{
        role: "user",
        content: { type: "text", text: `Summarise ${path}` },
      }],
    }),
  });
  files.resource({
    uri: "file:///readme",
    name: "readme",
    read: (uri) => ({ uri: uri.href, text: "# Readme" }),
  });
  files.resourceTemplate({
    uriTemplate: "file:///notes/{name}",
    name: "note",
    complete: { name: (typed) => ["todo"].filter((n) => n.startsWith(typed)) },
    read: (uri, { name }) => ({ uri: uri.href, text: `note ${name}` }),
  });
  return files;
}

Deno.test("a mounted server's tools and prompts take its prefix, its resources keep their URIs", async (t) => {
  const runs: string[] = [];
  const app = createServer({ name: "app", version: "1" });
  app.tool({ name: "ping", description: "Pong", handler: () => text("pong") });
  app.mount("files", filesServer(runs));
  await using client = await connect(app);

  await t.step(
    "tools/list shows the parent's, then the mount's prefixed",
    async () => {
      const tools = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name), [
        "ping",
        "files_read",
        "files_write",
      ]);
      // The probe claim stays on the listed tool.
      const write = tools.find((tool) => tool.name === "files_write");
      assert.equal(write?._meta?.[META_SUPPORTS_PERMISSION_PATTERNS], true);
      assert.deepEqual(
        write?.inputSchema.properties,
        { path: { type: "string" } },
      );
    },
  );

  await t.step("the parent offers what the mount has", () => {
    const capabilities = client.initializeResult.capabilities as Record<
      string,
      unknown
    >;
    assert.ok(capabilities.prompts !== undefined);
    assert.ok(capabilities.resources !== undefined);
    assert.ok(capabilities.completions !== undefined);
  });

  await t.step("a call runs the mounted tool", async () => {
    assert.deepEqual(await client.call("files_read", { path: "a.md" }), {
      content: [{ type: "text", text: "contents of a.md" }],
    });
    assert.deepEqual(runs, ["read a.md"]);
  });

  await t.step(
    "prompts are prefixed, got and completed through the mount",
    async () => {
      const { prompts } = await client.request("prompts/list");
      assert.deepEqual(
        (prompts as { name: string }[]).map((p) => p.name),
        ["files_summarise"],
      );
      const got = await client.request("prompts/get", {
        name: "files_summarise",
        arguments: { path: "a.md" },
      });
      assert.deepEqual(got.messages, [{
        role: "user",
        content: { type: "text", text: "Summarise a.md" },
      }]);
      const completed = await client.request("completion/complete", {
        ref: { type: "ref/prompt", name: "files_summarise" },
        argument: { name: "path", value: "b" },
      });
      assert.deepEqual(
        (completed.completion as { values: string[] }).values,
        ["b.md"],
      );
      // The child's own name is not the parent's.
      const unknown = await rpcError(
        client.request("prompts/get", { name: "summarise" }),
      );
      assert.equal(unknown.code, -32602);
    },
  );

  await t.step(
    "resources and templates keep their URIs and are read from the mount",
    async () => {
      const { resources } = await client.request("resources/list");
      assert.deepEqual(
        (resources as { uri: string }[]).map((r) => r.uri),
        ["file:///readme"],
      );
      const { resourceTemplates } = await client.request(
        "resources/templates/list",
      );
      assert.deepEqual(
        (resourceTemplates as { uriTemplate: string }[]).map((r) =>
          r.uriTemplate
        ),
        ["file:///notes/{name}"],
      );
      const read = await client.request("resources/read", {
        uri: "file:///notes/todo",
      });
      assert.deepEqual(read.contents, [{
        uri: "file:///notes/todo",
        text: "note todo",
      }]);
      const completed = await client.request("completion/complete", {
        ref: { type: "ref/resource", uri: "file:///notes/{name}" },
        argument: { name: "name", value: "t" },
      });
      assert.deepEqual(
        (completed.completion as { values: string[] }).values,
        ["todo"],
      );
      const missing = await rpcError(
        client.request("resources/read", { uri: "file:///nope" }),
      );
      assert.equal(missing.code, -32002);
    },
  );
});

Deno.test("a mounted tool's call runs the parent's layers, then the child's pipeline in the parent's request", async (t) => {
  const seen: string[] = [];
  const child = createServer({ name: "child", version: "1" });
  child.use((call, next) => {
    seen.push(`child layer ${call.name}`);
    return next();
  });
  child.tool({
    name: "greet",
    description: "Greets after asking the user",
    input: z.object({ times: z.number().int() }),
    handler: async ({ times }, ctx) => {
      await ctx.progress(1, 2, "asking");
      ctx.log.info("greeting");
      const answer = await ctx.elicit({
        message: "Your name?",
        requestedSchema: {
          type: "object",
          properties: { name: { type: "string" } },
        },
      });
      return text(`hello ${answer.content?.name} x${times}`);
    },
  });
  const parent = createServer({ name: "parent", version: "1" });
  parent.use((call, next) => {
    seen.push(`parent layer ${call.name}`);
    return next();
  });
  parent.mount("c", child);
  await using client = await connect(parent, {
    capabilities: { elicitation: { form: {} } },
    onRequest: (method) =>
      method === "elicitation/create"
        ? { action: "accept", content: { name: "Ada" } }
        : {},
  });
  await client.request("logging/setLevel", { level: "info" });

  await t.step(
    "layers of both, progress, log and elicitation reach the parent's client",
    async () => {
      const result = await client.call("c_greet", { times: 2 }, {
        meta: { progressToken: "p1" },
      });
      assert.deepEqual(result, {
        content: [{ type: "text", text: "hello Ada x2" }],
      });
      assert.deepEqual(seen, ["parent layer c_greet", "child layer greet"]);
      const methods = client.notifications.map((n) => n.method);
      assert.ok(methods.includes("notifications/progress"), String(methods));
      assert.ok(methods.includes("notifications/message"), String(methods));
    },
  );

  await t.step(
    "the child decodes the arguments: a bad one is its domain error",
    async () => {
      const result = await client.call("c_greet", { times: "two" });
      assert.equal(result.isError, true);
      assert.match(
        (result.content[0] as { text: string }).text,
        /times: expected number/,
      );
    },
  );
});

Deno.test("a mounted call ends with the parent's: its time limit aborts the child's handler", async () => {
  const child = createServer({ name: "child", version: "1" });
  const aborted = Promise.withResolvers<unknown>();
  child.tool({
    name: "wait",
    description: "Waits until aborted",
    handler: (_args, ctx) =>
      new Promise((_resolve, reject) => {
        ctx.signal.addEventListener("abort", () => {
          aborted.resolve(ctx.signal.reason);
          reject(ctx.signal.reason);
        });
      }),
  });
  const parent = createServer({ name: "parent", version: "1" }, {
    timeoutMs: 20,
  });
  parent.mount("c", child);
  await using client = await connect(parent);
  const refused = await rpcError(client.call("c_wait"));
  assert.equal(refused.code, -32001);
  assert.match(String(await aborted.promise), /timed out after 20 ms/);
});

Deno.test("a probe of a mounted pattern tool answers the child's patterns and runs nothing", async () => {
  const runs: string[] = [];
  const app = createServer({ name: "app", version: "1" });
  app.mount("files", filesServer(runs));
  await using client = await connect(app);
  assert.deepEqual(await client.probe("files_write", { path: "notes/a.md" }), {
    patterns: ["write:notes/a.md"],
    always: [],
  });
  assert.deepEqual(runs, []);
  // A tool without the probe refuses it, as it would unmounted.
  const refused = await rpcError(client.probe("files_read", { path: "a" }));
  assert.equal(refused.code, -32602);
  assert.match(refused.message, /does not support permission-pattern probes/);
  assert.deepEqual(runs, []);
});

Deno.test("what a mounted server changes later changes the parent's lists, announced once per tick", async (t) => {
  const child = createServer({ name: "child", version: "1" });
  const parent = createServer({ name: "parent", version: "1" });
  parent.tool({ name: "own", description: "d", handler: () => text("own") });
  parent.mount("c", child);
  await using client = await connect(parent);
  const names = async () => (await client.listTools()).map((tool) => tool.name);

  let late: ReturnType<ToolServer["tool"]> | undefined;
  await t.step(
    "a tool registered after mounting is listed and callable",
    async () => {
      late = child.tool({
        name: "late",
        description: "d",
        handler: () => text("late"),
      });
      // A parent change in the same tick: still one notification.
      parent.tool({ name: "own2", description: "d", handler: () => text("") });
      await settle(client);
      assert.deepEqual(listChanged(client), [
        "notifications/tools/list_changed",
      ]);
      assert.deepEqual(await names(), ["own", "own2", "c_late"]);
      assert.deepEqual(await client.call("c_late"), {
        content: [{ type: "text", text: "late" }],
      });
    },
  );

  await t.step(
    "disable, enable, update and remove reach the parent",
    async () => {
      late!.disable();
      await settle(client);
      assert.deepEqual(await names(), ["own", "own2"]);
      assert.equal((await rpcError(client.call("c_late"))).code, -32602);
      late!.enable();
      late!.update({ name: "later" });
      await settle(client);
      assert.deepEqual(await names(), ["own", "own2", "c_later"]);
      late!.remove();
      await settle(client);
      assert.deepEqual(await names(), ["own", "own2"]);
      assert.equal(listChanged(client).length, 4);
    },
  );

  await t.step(
    "a prompt the child adds announces the parent's prompts list",
    async () => {
      const before = listChanged(client).length;
      child.prompt({ name: "p", handler: () => ({ messages: [] }) });
      await settle(client);
      // The session was offered no prompts at initialize, so it hears none.
      assert.deepEqual(listChanged(client).slice(before), []);
      await using fresh = await connect(parent);
      const { prompts } = await fresh.request("prompts/list");
      assert.deepEqual((prompts as { name: string }[]).map((p) => p.name), [
        "c_p",
      ]);
    },
  );
});

Deno.test("a mounted name that collides is refused naming both sides", async (t) => {
  await t.step("at mount time, against the parent's own tool", () => {
    const parent = createServer({ name: "parent", version: "1" });
    parent.tool({
      name: "files_read",
      description: "d",
      handler: () => text(""),
    });
    const child = createServer({ name: "child", version: "1" });
    child.tool({ name: "read", description: "d", handler: () => text("") });
    throwsNaming(
      () => parent.mount("files", child),
      '"files_read"',
      'tool "read" of mount "files" (server "child")',
      'tool "files_read" of server "parent"',
    );
    // Nothing was mounted.
    assert.deepEqual(parent.listTools().map((t) => t.name), ["files_read"]);
  });

  await t.step("without a prefix, only when no name collides", () => {
    const parent = createServer({ name: "parent", version: "1" });
    parent.tool({ name: "read", description: "d", handler: () => text("") });
    const a = createServer({ name: "a", version: "1" });
    a.tool({ name: "write", description: "d", handler: () => text("") });
    parent.mount("", a);
    assert.deepEqual(parent.listTools().map((t) => t.name), ["read", "write"]);
    const b = createServer({ name: "b", version: "1" });
    b.tool({ name: "write", description: "d", handler: () => text("") });
    throwsNaming(
      () => parent.mount("", b),
      '"write"',
      'mount "" (server "b")',
      'mount "" (server "a")',
    );
  });

  await t.step("at a later registration, in the child or the parent", () => {
    const parent = createServer({ name: "parent", version: "1" });
    parent.tool({ name: "files_x", description: "d", handler: () => text("") });
    const child = createServer({ name: "child", version: "1" });
    child.tool({ name: "y", description: "d", handler: () => text("") });
    parent.mount("files", child);
    throwsNaming(
      () =>
        child.tool({ name: "x", description: "d", handler: () => text("") }),
      "Cannot register tool x",
      '"files_x"',
      'tool "files_x" of server "parent"',
    );
    throwsNaming(
      () =>
        parent.tool({
          name: "files_y",
          description: "d",
          handler: () => text(""),
        }),
      "Cannot register tool files_y",
      'tool "y" of mount "files"',
    );
    const z = child.tool({
      name: "z",
      description: "d",
      handler: () => text(""),
    });
    throwsNaming(() => z.update({ name: "x" }), '"files_x"');
    // A refused registration left nothing behind.
    assert.deepEqual(parent.listTools().map((t) => t.name), [
      "files_x",
      "files_y",
      "files_z",
    ]);
  });

  await t.step("prompts likewise", () => {
    const parent = createServer({ name: "parent", version: "1" });
    parent.prompt({ name: "c_p", handler: () => ({ messages: [] }) });
    const child = createServer({ name: "child", version: "1" });
    child.prompt({ name: "p", handler: () => ({ messages: [] }) });
    throwsNaming(() => parent.mount("c", child), 'prompt "p"', 'prompt "c_p"');
  });

  await t.step("a bad prefix, a name too long, or a cycle", () => {
    const parent = createServer({ name: "parent", version: "1" });
    const child = createServer({ name: "child", version: "1" });
    throwsNaming(() => parent.mount("a b", child), 'invalid prefix "a b"');
    throwsNaming(() => parent.mount("_a", child), 'invalid prefix "_a"');
    assert.throws(
      () => parent.mount("x", {} as ToolServer),
      TypeError,
    );
    child.tool({
      name: "t".repeat(126),
      description: "d",
      handler: () => text(""),
    });
    throwsNaming(() => parent.mount("abc", child), "would be named");
    throwsNaming(() => parent.mount("p", parent), "would contain itself");
    const grandchild = createServer({ name: "g", version: "1" });
    child.mount("g", grandchild);
    throwsNaming(() => grandchild.mount("c", child), "would contain itself");
  });
});

Deno.test("a mounted server's errors keep the wire contract", async () => {
  const child = createServer({ name: "child", version: "1" });
  child.tool({ name: "read", description: "d", handler: () => text("") });
  child.tool({
    name: "refuse",
    description: "d",
    handler: () => {
      throw new ToolError("no such file");
    },
  });
  child.tool({ name: "soft", description: "d", handler: () => error("soft") });
  child.tool({
    name: "bug",
    description: "d",
    handler: () => {
      throw new Error("boom");
    },
  });
  const parent = createServer({ name: "parent", version: "1" });
  parent.mount("files", child);
  await using client = await connect(parent);
  const unknown = await rpcError(client.call("files_raed"));
  assert.equal(unknown.code, -32602);
  assert.equal(
    unknown.message,
    'Unknown tool: "files_raed"; did you mean "files_read"?',
  );
  assert.deepEqual(await client.call("files_refuse"), {
    content: [{ type: "text", text: "no such file" }],
    isError: true,
  });
  assert.equal((await client.call("files_soft")).isError, true);
  const originalError = console.error;
  console.error = () => {};
  try {
    const bug = await rpcError(client.call("files_bug"));
    assert.equal(bug.code, -32603);
    assert.match(bug.message, /boom/);
  } finally {
    console.error = originalError;
  }
});

Deno.test("a server mounted in a mounted server is reached through both", async () => {
  const inner = createServer({ name: "inner", version: "1" });
  const seen: string[] = [];
  inner.tool({
    name: "x",
    description: "d",
    handler: (_args, ctx) => {
      seen.push(ctx.toolName);
      return text("inner x");
    },
  });
  const middle = createServer({ name: "middle", version: "1" });
  middle.use((call, next) => {
    seen.push(`middle layer ${call.name}`);
    return next();
  });
  middle.mount("in", inner);
  const outer = createServer({ name: "outer", version: "1" });
  outer.mount("mid", middle);
  await using client = await connect(outer);
  assert.deepEqual((await client.listTools()).map((t) => t.name), [
    "mid_in_x",
  ]);
  assert.deepEqual(await client.call("mid_in_x"), {
    content: [{ type: "text", text: "inner x" }],
  });
  assert.deepEqual(seen, ["middle layer in_x", "x"]);
  // A name registered deep down is checked all the way up.
  outer.tool({ name: "mid_in_y", description: "d", handler: () => text("") });
  throwsNaming(
    () => inner.tool({ name: "y", description: "d", handler: () => text("") }),
    '"mid_in_y"',
  );
});

Deno.test("a mounted tool answers 2026-07-28 requests, a task tool running to completion", async () => {
  const child = createServer({ name: "child", version: "1" });
  child.tool({
    name: "slow",
    description: "Runs as a task when it can",
    task: { support: "optional" },
    handler: () => text("done"),
  });
  child.tool({ name: "read", description: "d", handler: () => text("read") });
  const parent = createServer({ name: "parent", version: "1" });
  parent.mount("c", child);
  await using client = await connectStateless(parent, {
    capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } },
  });
  const tools = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["c_slow", "c_read"]);
  // Listed without execution: the parent keeps no record of the child's tasks.
  assert.equal(tools[0].execution, undefined);
  const read = await client.call("c_read");
  assert.deepEqual(read.content, [{ type: "text", text: "read" }]);
  const slow = await client.call("c_slow");
  assert.deepEqual(slow.content, [{ type: "text", text: "done" }]);
});

Deno.test("a mounted server's resourceUpdated reaches the parent's subscribers", async () => {
  const child = createServer({ name: "child", version: "1" });
  child.resource({
    uri: "notes://today",
    name: "today",
    read: (uri) => ({ uri: uri.href, text: "" }),
  });
  const parent = createServer({ name: "parent", version: "1" });
  parent.mount("c", child);
  await using client = await connect(parent);
  await client.request("resources/subscribe", { uri: "notes://today" });
  await child.resourceUpdated("notes://today");
  await child.resourceUpdated("notes://other");
  await settle(client);
  assert.deepEqual(
    client.notifications.filter((n) =>
      n.method === "notifications/resources/updated"
    ),
    [{
      method: "notifications/resources/updated",
      params: { uri: "notes://today" },
    }],
  );
});

Deno.test("pages of a list run on through the mounted entries", async () => {
  const child = createServer({ name: "child", version: "1" });
  for (const name of ["a", "b", "c"]) {
    child.tool({ name, description: "d", handler: () => text(name) });
  }
  const parent = createServer({ name: "parent", version: "1" }, {
    pageSize: 2,
  });
  for (const name of ["x", "y"]) {
    parent.tool({ name, description: "d", handler: () => text(name) });
  }
  parent.mount("c", child);
  await using client = await connect(parent);
  const pages: string[][] = [];
  let cursor: unknown = undefined;
  do {
    const page = await client.request(
      "tools/list",
      cursor === undefined ? {} : { cursor },
    );
    pages.push((page.tools as { name: string }[]).map((t) => t.name));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  assert.deepEqual(pages, [["x", "y"], ["c_a", "c_b"], ["c_c"]]);
});

Deno.test("the parent's close gives a mounted call its grace, then aborts it", async () => {
  const child = createServer({ name: "child", version: "1" });
  const started = Promise.withResolvers<void>();
  const aborted = Promise.withResolvers<unknown>();
  child.tool({
    name: "work",
    description: "Works until aborted",
    handler: (_args, ctx) => {
      started.resolve();
      return new Promise((_resolve, reject) => {
        ctx.signal.addEventListener("abort", () => {
          aborted.resolve(ctx.signal.reason);
          reject(ctx.signal.reason);
        });
      });
    },
  });
  const parent = createServer({ name: "parent", version: "1" }, {
    graceMs: 10,
  });
  parent.mount("c", child);
  await using client = await connect(parent);
  const call = rpcError(client.call("c_work"));
  await started.promise;
  await parent.close();
  assert.match(String(await aborted.promise), /shut down before the tool/);
  const refused = await call;
  assert.equal(refused.code, -32603);
  assert.match(refused.message, /shut down before the tool finished/);
});

Deno.test("a mounted tool answers a 2026-07-28 POST through the HTTP handler", async () => {
  const child = createServer({ name: "child", version: "1" });
  child.tool({
    name: "echo",
    description: "Echoes its text",
    input: z.object({ text: z.string() }),
    handler: ({ text: said }) => text(said),
  });
  const parent = createServer({ name: "parent", version: "1" });
  parent.mount("c", child);
  const handler = createHttpHandler(parent);
  try {
    const response = await handler(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "c_echo",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": {},
            },
            name: "c_echo",
            arguments: { text: "hi" },
          },
        }),
      }),
    );
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), {
      jsonrpc: "2.0",
      id: 1,
      result: {
        content: [{ type: "text", text: "hi" }],
        resultType: "complete",
      },
    });
  } finally {
    await handler.close();
  }
});
