import assert from "node:assert/strict";
import { z } from "zod";
import { createServer, json, text } from "../../mod.ts";
import { wrapProbe } from "../probe.ts";
import { connect, type RpcError } from "../testing/testing.ts";
import type { McpTransport } from "../jsonrpc/types.ts";
import { until } from "../testing/_until.ts";

Deno.test("server.tool() refuses bad definitions at registration", async (t) => {
  const server = createServer({ name: "s", version: "1" });
  const ok = { description: "d", handler: () => text("x") };
  await t.step("an invalid name is a TypeError naming the rule", () => {
    assert.throws(() => server.tool({ ...ok, name: "has space" }), {
      name: "TypeError",
      message:
        /invalid name "has space": expected 1-128 characters of A-Z a-z 0-9 \. _ -/,
    });
    assert.throws(
      () => server.tool({ ...ok, name: "x".repeat(129) }),
      TypeError,
    );
  });
  await t.step("a duplicate name is a TypeError", () => {
    server.tool({ ...ok, name: "dup" });
    assert.throws(() => server.tool({ ...ok, name: "dup" }), {
      name: "TypeError",
      message: "Cannot register tool: duplicate name: dup",
    });
  });
  await t.step("a non-object input schema is a TypeError", () => {
    assert.throws(
      () => server.tool({ ...ok, name: "str", input: z.string() }),
      {
        name: "TypeError",
        message:
          /Cannot register tool str: .*expected an object at the root, got type "string"/,
      },
    );
  });
  await t.step("a timeout that is not positive is a RangeError", () => {
    assert.throws(
      () => server.tool({ ...ok, name: "t", timeoutMs: 0 }),
      RangeError,
    );
  });
});

Deno.test("a tool's signal aborts when the client cancels the call", async () => {
  const server = createServer({ name: "s", version: "1" });
  let aborted: (reason: unknown) => void;
  const abortedPromise = new Promise((resolve) => (aborted = resolve));
  const started = Promise.withResolvers<void>();
  server.tool({
    name: "wait",
    description: "Waits for cancellation",
    handler: (_args, ctx) =>
      new Promise((_, reject) => {
        started.resolve();
        ctx.signal.addEventListener("abort", () => {
          aborted(ctx.signal.reason);
          reject(ctx.signal.reason);
        });
      }),
  });
  await using client = await connect(server);
  const controller = new AbortController();
  const call = client.call("wait", {}, { signal: controller.signal });
  await started.promise;
  controller.abort("user pressed stop");
  await assert.rejects(call);
  assert.ok(await abortedPromise);
});

Deno.test("a tool past its timeoutMs answers a JSON-RPC error and its signal aborts", async () => {
  const server = createServer({ name: "s", version: "1" });
  let sawAbort = false;
  server.tool({
    name: "stuck",
    description: "Never finishes",
    timeoutMs: 50,
    handler: (_args, ctx) =>
      new Promise(() => {
        ctx.signal.addEventListener("abort", () => (sawAbort = true));
      }),
  });
  await using client = await connect(server);
  await assert.rejects(client.call("stuck"), (error: RpcError) => {
    assert.equal(error.code, -32001);
    assert.equal(error.message, "Tool stuck timed out after 50 ms");
    return true;
  });
  assert.equal(sawAbort, true);
});

Deno.test("ctx.progress() and ctx.log reach the client as notifications", async (t) => {
  const server = createServer({ name: "s", version: "1" });
  server.tool({
    name: "work",
    description: "Reports progress and logs",
    handler: async (_args, ctx) => {
      await ctx.progress(1, 2, "half");
      await ctx.progress(2, 2);
      ctx.log.debug("details");
      ctx.log.warning("careful", { disk: "low" });
      return text("ok");
    },
  });
  await t.step(
    "progress only with a progressToken, logs at every level by default",
    async () => {
      await using client = await connect(server);
      await client.call("work", {}, { meta: { progressToken: "p1" } });
      await until(
        "two progress and two log notifications",
        () => client.notifications.length >= 4,
      );
      assert.deepEqual(client.notifications, [
        {
          method: "notifications/progress",
          params: {
            progressToken: "p1",
            progress: 1,
            total: 2,
            message: "half",
          },
        },
        {
          method: "notifications/progress",
          params: { progressToken: "p1", progress: 2, total: 2 },
        },
        {
          method: "notifications/message",
          params: { level: "debug", logger: "work", data: "details" },
        },
        {
          method: "notifications/message",
          params: {
            level: "warning",
            logger: "work",
            data: { message: "careful", data: { disk: "low" } },
          },
        },
      ]);
    },
  );
  await t.step(
    "logging/setLevel filters less severe messages; no token, no progress",
    async () => {
      await using client = await connect(server);
      await client.request("logging/setLevel", { level: "warning" });
      await client.call("work");
      // Sent in order, so a debug message that was not filtered would come first.
      await until("the warning", () => client.notifications.length >= 1);
      assert.deepEqual(client.notifications.map((n) => n.params?.level), [
        "warning",
      ]);
    },
  );
  await t.step("an unknown level is refused", async () => {
    await using client = await connect(server);
    await assert.rejects(
      client.request("logging/setLevel", { level: "loud" }),
      /Invalid log level/,
    );
  });
});

Deno.test("a handler's invalid result is an infrastructure error, not a silent success", async (t) => {
  const server = createServer({ name: "s", version: "1" });
  server.tool({
    name: "bad",
    description: "Returns a string",
    handler: (() => "plain string") as never,
  });
  server.tool({
    name: "shaped",
    description: "Declares an output schema",
    input: z.object({ valid: z.boolean() }),
    output: z.object({ count: z.number() }),
    handler: ({ valid }) => valid ? json({ count: 1 }) : json({ count: "one" }),
  });
  await using client = await connect(server);
  await t.step("a result without content", async () => {
    await assert.rejects(client.call("bad"), (error: RpcError) => {
      assert.equal(error.code, -32603);
      assert.match(error.message, /expected \{ content: \[\.\.\.\] \}/);
      return true;
    });
  });
  await t.step("structuredContent that fails the output schema", async () => {
    const good = await client.call("shaped", { valid: true });
    assert.deepEqual(good.structuredContent, { count: 1 });
    await assert.rejects(
      client.call("shaped", { valid: false }),
      (error: RpcError) => {
        assert.equal(error.code, -32603);
        assert.match(error.message, /does not match the output schema/);
        return true;
      },
    );
  });
  await t.step("tools/list carries the output schema", async () => {
    const [, shaped] = await client.listTools();
    assert.equal(shaped.outputSchema?.type, "object");
  });
});

Deno.test("a probe flag that is not exactly true is refused and nothing runs", async () => {
  const server = createServer({ name: "s", version: "1" });
  let ran = 0;
  server.tool({
    name: "t",
    description: "d",
    handler: () => (ran++, text("ran")),
  });
  await using client = await connect(server);
  await assert.rejects(
    client.call("t", {}, { meta: { "forge.permission_patterns": "yes" } }),
    (error: RpcError) =>
      error.code === -32602 && /must be true/.test(error.message),
  );
  assert.equal(ran, 0);
});

Deno.test("tools registered after connect are announced with list_changed", async () => {
  const server = createServer({ name: "s", version: "1" });
  await using client = await connect(server);
  server.tool({ name: "late", description: "d", handler: () => text("x") });
  await until("list_changed", () => client.notifications.length >= 1);
  assert.deepEqual(client.notifications, [{
    method: "notifications/tools/list_changed",
  }]);
  assert.deepEqual((await client.listTools()).map((t) => t.name), ["late"]);
});

Deno.test("close() refuses new calls and lets in-flight calls finish", async () => {
  const server = createServer({ name: "s", version: "1" }, { graceMs: 1000 });
  const started = Promise.withResolvers<void>();
  const release = Promise.withResolvers<void>();
  server.tool({
    name: "slow",
    description: "d",
    handler: async () => {
      started.resolve();
      await release.promise;
      return text("finished");
    },
  });
  const client = await connect(server);
  const inFlight = client.call("slow");
  await started.promise;
  const closing = server.close();
  release.resolve();
  assert.deepEqual(await inFlight, {
    content: [{ type: "text", text: "finished" }],
  });
  await closing;
  await client.close();
});

Deno.test("resources, templates, prompts and completion answer as MCP says", async (t) => {
  const server = createServer({ name: "s", version: "1" });
  server.resource({
    uri: "config://app",
    name: "app",
    mimeType: "application/json",
    read: (uri) => ({
      uri: uri.href,
      mimeType: "application/json",
      text: "{}",
    }),
  });
  server.resourceTemplate({
    uriTemplate: "notes://{name}",
    name: "note",
    list: () => [{ uri: "notes://todo", name: "todo" }],
    complete: {
      name: (typed) =>
        ["todo", "ideas", "tomorrow"].filter((n) => n.startsWith(typed)),
    },
    read: (uri, { name }) => ({ uri: uri.href, text: `# ${name}` }),
  });
  server.prompt({
    name: "review",
    description: "Reviews code",
    arguments: [{ name: "code", required: true }, {
      name: "style",
      complete: () => ["terse", "kind"],
    }],
    handler: ({ code, style }) => ({
      messages: [{
        role: "user",
        content: { type: "text", text: `${style ?? "plain"}: ${code}` },
      }],
    }),
  });
  await using client = await connect(server);
  await t.step("capabilities are declared for what is registered", () => {
    assert.deepEqual(client.initializeResult.capabilities, {
      tools: { listChanged: true },
      logging: {},
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    });
  });
  await t.step("resources/list includes what templates list", async () => {
    const { resources } = await client.request("resources/list");
    assert.deepEqual(resources, [
      { uri: "config://app", name: "app", mimeType: "application/json" },
      { uri: "notes://todo", name: "todo" },
    ]);
  });
  await t.step(
    "resources/read by URI and by template; unknown URI is -32002",
    async () => {
      assert.deepEqual(
        await client.request("resources/read", { uri: "notes://ideas" }),
        {
          contents: [{ uri: "notes://ideas", text: "# ideas" }],
        },
      );
      // Template variables arrive percent-decoded.
      assert.deepEqual(
        await client.request("resources/read", { uri: "notes://to%20do" }),
        {
          contents: [{ uri: "notes://to%20do", text: "# to do" }],
        },
      );
      await assert.rejects(
        client.request("resources/read", { uri: "other://x" }),
        (error: RpcError) => error.code === -32002,
      );
    },
  );
  await t.step(
    "prompts/get renders, and a missing required argument is -32602",
    async () => {
      const result = await client.request("prompts/get", {
        name: "review",
        arguments: { code: "x()", style: "terse" },
      });
      assert.deepEqual(result.messages, [{
        role: "user",
        content: { type: "text", text: "terse: x()" },
      }]);
      await assert.rejects(
        client.request("prompts/get", { name: "review", arguments: {} }),
        (error: RpcError) =>
          error.code === -32602 && /code: required/.test(error.message),
      );
    },
  );
  await t.step(
    "completion/complete for template variables and prompt arguments",
    async () => {
      const notes = await client.request("completion/complete", {
        ref: { type: "ref/resource", uri: "notes://{name}" },
        argument: { name: "name", value: "to" },
      });
      assert.deepEqual(notes.completion, {
        values: ["todo", "tomorrow"],
        total: 2,
        hasMore: false,
      });
      const styles = await client.request("completion/complete", {
        ref: { type: "ref/prompt", name: "review" },
        argument: { name: "style", value: "" },
      });
      assert.deepEqual((styles.completion as { values: string[] }).values, [
        "terse",
        "kind",
      ]);
    },
  );
  await t.step(
    "subscribers hear resourceUpdated(); others do not",
    async () => {
      await using other = await connect(server);
      await client.request("resources/subscribe", { uri: "config://app" });
      await server.resourceUpdated("config://app");
      await until(
        "resources/updated",
        () =>
          client.notifications.at(-1)?.method ===
            "notifications/resources/updated",
      );
      assert.deepEqual(client.notifications.at(-1), {
        method: "notifications/resources/updated",
        params: { uri: "config://app" },
      });
      assert.equal(other.notifications.length, 0);
    },
  );
});

Deno.test("ctx.sample() and ctx.elicit() ask the client", async () => {
  const server = createServer({ name: "s", version: "1" });
  server.tool({
    name: "ask",
    description: "Asks the model and the user",
    handler: async (_args, ctx) => {
      const sampled = await ctx.sample({
        messages: [{ role: "user", content: { type: "text", text: "2+2?" } }],
        maxTokens: 5,
      });
      const elicited = await ctx.elicit({
        message: "Your name?",
        requestedSchema: {
          type: "object",
          properties: { name: { type: "string" } },
        },
      });
      return text(
        `${sampled.content.text as string} / ${elicited.content?.name}`,
      );
    },
  });
  const seen: string[] = [];
  await using client = await connect(server, {
    capabilities: { sampling: {}, elicitation: {} },
    onRequest: (method) => {
      seen.push(method);
      return method === "sampling/createMessage"
        ? {
          role: "assistant",
          content: { type: "text", text: "4" },
          model: "test",
        }
        : { action: "accept", content: { name: "Ada" } };
    },
  });
  assert.deepEqual(await client.call("ask"), {
    content: [{ type: "text", text: "4 / Ada" }],
  });
  assert.deepEqual(seen, ["sampling/createMessage", "elicitation/create"]);
});

Deno.test("malformed request params get -32602 with a sentence, not a crash", async (t) => {
  const server = createServer({ name: "s", version: "1" });
  server.tool({ name: "t", description: "d", handler: () => text("ran") });
  await using client = await connect(server);
  await t.step("tools/call without a name", async () => {
    await assert.rejects(
      client.request("tools/call", { arguments: {} }),
      (error: RpcError) => {
        assert.equal(error.code, -32602);
        assert.equal(
          error.message,
          "Invalid params for tools/call: name: expected string, got nothing",
        );
        return true;
      },
    );
  });
  await t.step(
    "tools/call with array arguments is a domain error the model can fix",
    async () => {
      const result = await client.request("tools/call", {
        name: "t",
        arguments: [1],
      });
      assert.equal(result.isError, true);
      assert.match(
        JSON.stringify(result.content),
        /arguments: expected object, got array/,
      );
    },
  );
  await t.step("the server still answers afterwards", async () => {
    assert.deepEqual(await client.call("t"), {
      content: [{ type: "text", text: "ran" }],
    });
  });
});

Deno.test("only handlers made by wrapProbe may claim probe support, so a probe never acts", async (t) => {
  const server = createServer({ name: "s", version: "1" });
  await t.step("a hand-set _meta flag without wrapProbe is a TypeError", () => {
    assert.throws(
      () =>
        server.tool({
          name: "sneaky",
          description: "d",
          _meta: { "forge.supports_permission_patterns": true },
          handler: () => text("acted"),
        }),
      {
        name: "TypeError",
        message:
          /does not answer probes \(use registerPatternTool or wrapProbe\)/,
      },
    );
  });
  await t.step(
    "a wrapProbe handler registered with tool() is flagged and answers probes",
    async () => {
      let acted = 0;
      server.tool({
        name: "wrapped",
        description: "d",
        input: z.object({ path: z.string() }),
        handler: wrapProbe({
          patterns: ({ path }: { path: string }) => [`delete:${path}`],
        }, () => {
          acted++;
          return text("deleted");
        }),
      });
      await using client = await connect(server);
      const [tool] = await client.listTools();
      assert.equal(tool._meta?.["forge.supports_permission_patterns"], true);
      assert.deepEqual(await client.probe("wrapped", { path: "a" }), {
        patterns: ["delete:a"],
        always: [],
      });
      assert.equal(acted, 0);
    },
  );
});

Deno.test("a misspelt argument with two letters swapped still gets a did-you-mean", async () => {
  const server = createServer({ name: "s", version: "1" });
  server.tool({
    name: "greet",
    description: "d",
    input: z.object({ name: z.string() }),
    handler: ({ name }) => text(name),
  });
  await using client = await connect(server);
  const result = await client.call("greet", { nmae: "Ada" });
  assert.equal(
    (result.content[0] as { text: string }).text,
    'Invalid arguments for tool "greet":\nname: required\nnmae: unknown argument; did you mean "name"?',
  );
});

Deno.test("a cancelled call stops counting as in flight even if its handler ignores the signal", async () => {
  const server = createServer({ name: "s", version: "1" }, { graceMs: 5_000 });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const running = Promise.withResolvers<void>();
  const aborted = Promise.withResolvers<void>();
  server.tool({
    name: "deaf",
    description: "Ignores its signal",
    handler: async (_args, ctx) => {
      // Heard, for the test to know the cancel arrived, but not obeyed.
      ctx.signal.addEventListener("abort", () => aborted.resolve());
      running.resolve();
      await released;
      return text("late");
    },
  });
  const client = await connect(server);
  const controller = new AbortController();
  const call = client.call("deaf", {}, { signal: controller.signal });
  await running.promise;
  controller.abort("stop");
  await assert.rejects(call);
  await aborted.promise;
  const started = performance.now();
  await server.close();
  // Shutdown would wait for the 5 s grace period if the cancelled call still counted.
  assert.ok(performance.now() - started < 1_000);
  release();
  await client.close();
});

Deno.test("serve() returns when close() is called, also when close() came first", async (t) => {
  // Tells when the server reads its input, that is, serves.
  let reading = Promise.withResolvers<void>();
  const never = () =>
    new ReadableStream<Uint8Array>({
      pull() {
        reading.resolve();
        return new Promise(() => {});
      },
    });
  const sink = () => new WritableStream<Uint8Array>();
  const options = { exit: false, handleSignals: false } as const;
  await t.step("close() while serving", async () => {
    const server = createServer({ name: "s", version: "1" });
    const serving = server.serve({
      ...options,
      readable: never(),
      writable: sink(),
    });
    await reading.promise;
    await server.close();
    await serving;
  });
  await t.step("close() before serving", async () => {
    const server = createServer({ name: "s", version: "1" });
    reading = Promise.withResolvers<void>();
    await server.close();
    await server.serve({ ...options, readable: never(), writable: sink() });
  });
});

Deno.test("resourceTemplate() refuses a malformed URI template at registration", () => {
  const server = createServer({ name: "s", version: "1" });
  assert.throws(
    () =>
      server.resourceTemplate({
        uriTemplate: "notes://{name",
        name: "note",
        read: (uri) => ({ uri: uri.href, text: "" }),
      }),
    {
      name: "TypeError",
      message:
        `Cannot register resource template: invalid URI template "notes://{name": Unclosed '{' at column 9`,
    },
  );
});

Deno.test("serve({ transport }) serves a custom transport until it closes", async () => {
  const sent: unknown[] = [];
  const started = Promise.withResolvers<void>();
  const transport: McpTransport = {
    start: () => (started.resolve(), Promise.resolve()),
    send: (message) => {
      sent.push(message);
      return Promise.resolve();
    },
    close: () => {
      transport.onclose?.();
      return Promise.resolve();
    },
  };
  const server = createServer({ name: "custom", version: "1" });
  const serving = server.serve({
    transport,
    exit: false,
    handleSignals: false,
  });
  await started.promise;
  transport.onmessage?.({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {} },
  });
  await transport.close();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([
    serving.then(() => "ended"),
    new Promise((resolve) => {
      timer = setTimeout(() => resolve("still serving"), 2_000);
    }),
  ]);
  clearTimeout(timer);
  assert.equal(outcome, "ended");
  assert.equal((sent[0] as { id: number }).id, 1);
});
