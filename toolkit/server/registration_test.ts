import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ResourceListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { createServer, text } from "../../mod.ts";
import { connect, RpcError, type TestClient } from "../testing/testing.ts";

/**
 * A round trip after a change: the server sends its end-of-tick
 * list_changed before it reads a request that comes later, and answers in
 * order, so what the change set off has arrived once the answers have.
 */
async function settle(...clients: TestClient[]): Promise<void> {
  await Promise.all(clients.map((client) => client.request("ping")));
}

function listChanged(client: TestClient): string[] {
  return client.notifications.map((n) => n.method).filter((m) =>
    m.endsWith("/list_changed")
  );
}

async function unknownToolError(
  client: TestClient,
  name: string,
): Promise<RpcError> {
  try {
    await client.call(name);
  } catch (error) {
    if (error instanceof RpcError) return error;
    throw error;
  }
  throw new Error(`Expected tools/call ${name} to fail`);
}

Deno.test("a disabled tool is unlisted and answers as an unknown tool until enabled", async () => {
  const server = createServer({ name: "s", version: "1" });
  const send = server.tool({
    name: "send",
    description: "Sends",
    handler: () => text("sent"),
  });
  await using client = await connect(server);
  assert.equal(send.enabled, true);
  send.disable();
  assert.equal(send.enabled, false);
  assert.deepEqual(await client.listTools(), []);
  const disabled = await unknownToolError(client, "send");
  const unknown = await unknownToolError(client, "never-registered");
  assert.equal(disabled.code, unknown.code);
  assert.equal(disabled.code, -32602);
  assert.equal(disabled.message, 'Unknown tool: "send"');
  assert.equal(unknown.message, 'Unknown tool: "never-registered"');
  send.enable();
  assert.deepEqual((await client.listTools()).map((t) => t.name), ["send"]);
  assert.deepEqual(await client.call("send"), {
    content: [{ type: "text", text: "sent" }],
  });
});

Deno.test("update() changes a tool whole, or not at all when the patch is bad", async (t) => {
  const server = createServer({ name: "s", version: "1" });
  server.tool({ name: "other", description: "Other", handler: () => text("") });
  const greet = server.tool({
    name: "greet",
    description: "Greets",
    input: z.object({ name: z.string() }),
    handler: ({ name }) => text(`Hello, ${name}`),
  });
  await using client = await connect(server);

  await t.step(
    "a new description, schema and handler take effect",
    async () => {
      greet.update({
        description: "Greets loudly",
        input: z.object({ name: z.string(), times: z.number() }),
        handler: (args) => {
          const { name, times } = args as { name: string; times: number };
          return text(`HELLO, ${name}`.repeat(times));
        },
      });
      const listed = (await client.listTools()).find((t) => t.name === "greet");
      assert.equal(listed?.description, "Greets loudly");
      assert.deepEqual(listed?.inputSchema.required, ["name", "times"]);
      assert.deepEqual(await client.call("greet", { name: "Ada", times: 2 }), {
        content: [{ type: "text", text: "HELLO, AdaHELLO, Ada" }],
      });
    },
  );

  await t.step(
    "a bad patch is a TypeError or RangeError and changes nothing",
    async () => {
      const before = await client.listTools();
      assert.throws(() => greet.update({ name: "has space" }), {
        name: "TypeError",
        message:
          /^Cannot update tool "greet": invalid name "has space": expected 1-128 characters/,
      });
      assert.throws(() => greet.update({ timeoutMs: -1 }), {
        name: "RangeError",
        message: 'Cannot update tool "greet": timeoutMs must be > 0, got -1',
      });
      assert.throws(() => greet.update({ name: "other" }), {
        name: "TypeError",
        message: 'Cannot update tool "greet": duplicate name: other',
      });
      assert.throws(
        () => greet.update(null as unknown as Record<string, never>),
        {
          name: "TypeError",
          message:
            'Cannot update tool "greet": expected a patch object, got null',
        },
      );
      assert.deepEqual(await client.listTools(), before);
    },
  );

  await t.step(
    "a new name frees the old one and keeps the tool's place",
    async () => {
      greet.update({ name: "hail" });
      assert.deepEqual((await client.listTools()).map((t) => t.name), [
        "other",
        "hail",
      ]);
      assert.equal((await unknownToolError(client, "greet")).code, -32602);
      server.tool({
        name: "greet",
        description: "New",
        handler: () => text(""),
      });
      assert.deepEqual((await client.listTools()).map((t) => t.name), [
        "other",
        "hail",
        "greet",
      ]);
    },
  );
});

Deno.test("remove() unregisters for good; the handle then refuses changes", async () => {
  const server = createServer({ name: "s", version: "1" });
  const temp = server.tool({
    name: "temp",
    description: "Temporary",
    handler: () => text("1"),
  });
  await using client = await connect(server);
  temp.remove();
  temp.remove(); // a second call does nothing
  assert.equal(temp.removed, true);
  assert.equal(temp.enabled, false);
  assert.deepEqual(await client.listTools(), []);
  assert.equal((await unknownToolError(client, "temp")).code, -32602);
  for (const change of [() => temp.enable(), () => temp.update({})]) {
    assert.throws(change, {
      name: "TypeError",
      message: /^Cannot (enable|update) tool "temp": it was removed$/,
    });
  }
  const again = server.tool({
    name: "temp",
    description: "Again",
    handler: () => text("2"),
  });
  assert.equal(again.removed, false);
  assert.deepEqual(await client.call("temp"), {
    content: [{ type: "text", text: "2" }],
  });
});

Deno.test("a burst of changes in one tick sends one list_changed per list", async (t) => {
  const server = createServer({ name: "s", version: "1" });
  server.resource({
    uri: "notes://a",
    name: "a",
    read: (uri) => ({ uri: uri.href, text: "a" }),
  });
  server.prompt({ name: "p", handler: () => ({ messages: [] }) });
  await using client = await connect(server);

  await t.step("five tool changes: one notification", async () => {
    const a = server.tool({
      name: "a",
      description: "A",
      handler: () => text(""),
    });
    server.tool({ name: "b", description: "B", handler: () => text("") });
    a.update({ description: "A2" });
    a.disable();
    a.enable();
    await settle(client);
    assert.deepEqual(listChanged(client), ["notifications/tools/list_changed"]);
  });

  await t.step("each list announces its own change, once", async () => {
    client.notifications.length = 0;
    const note = server.resource({
      uri: "notes://b",
      name: "b",
      read: (uri) => ({ uri: uri.href, text: "b" }),
    });
    note.update({ description: "Note b" });
    server.resourceTemplate({
      uriTemplate: "notes://{id}/v",
      name: "version",
      read: (uri) => ({ uri: uri.href, text: "v" }),
    });
    server.prompt({ name: "q", handler: () => ({ messages: [] }) }).disable();
    await settle(client);
    assert.deepEqual(listChanged(client).sort(), [
      "notifications/prompts/list_changed",
      "notifications/resources/list_changed",
    ]);
  });

  await t.step("changes in separate ticks send one each", async () => {
    client.notifications.length = 0;
    const c = server.tool({
      name: "c",
      description: "C",
      handler: () => text(""),
    });
    await settle(client);
    c.remove();
    await settle(client);
    assert.deepEqual(listChanged(client), [
      "notifications/tools/list_changed",
      "notifications/tools/list_changed",
    ]);
  });

  await t.step("a change that changes no list is not announced", async () => {
    client.notifications.length = 0;
    const d = server.tool({
      name: "d",
      description: "D",
      handler: () => text(""),
    });
    d.disable();
    await settle(client);
    client.notifications.length = 0;
    d.disable(); // already disabled
    d.update({ description: "D2" }); // not listed while disabled
    await settle(client);
    assert.deepEqual(listChanged(client), []);
  });
});

Deno.test("list_changed reaches only sessions that were offered the list", async () => {
  const server = createServer({ name: "s", version: "1" });
  server.tool({ name: "a", description: "A", handler: () => text("") });
  await using toolsOnly = await connect(server);
  server.prompt({ name: "p", handler: () => ({ messages: [] }) });
  await using withPrompts = await connect(server);
  assert.equal(
    (toolsOnly.initializeResult.capabilities as Record<string, unknown>)
      .prompts,
    undefined,
  );
  await settle(toolsOnly, withPrompts);
  toolsOnly.notifications.length = 0;
  withPrompts.notifications.length = 0;
  server.prompt({ name: "q", handler: () => ({ messages: [] }) });
  await settle(toolsOnly, withPrompts);
  assert.deepEqual(listChanged(toolsOnly), []);
  assert.deepEqual(listChanged(withPrompts), [
    "notifications/prompts/list_changed",
  ]);
  // The first session was never told of prompts: it may not use them.
  await assert.rejects(
    toolsOnly.request("prompts/list"),
    (e) => e instanceof RpcError && e.code === -32601,
  );
});

Deno.test("a kind registered after connect but before initialize is offered (SDK client)", async () => {
  const server = createServer({ name: "s", version: "1" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  server.resource({
    uri: "notes://late",
    name: "late",
    read: (uri) => ({ uri: uri.href, text: "late" }),
  });
  const client = new Client({ name: "sdk", version: "1" });
  const changed = Promise.withResolvers<void>();
  client.setNotificationHandler(
    ResourceListChangedNotificationSchema,
    () => changed.resolve(),
  );
  await client.connect(clientSide);
  try {
    assert.deepEqual(client.getServerCapabilities()?.resources, {
      subscribe: true,
      listChanged: true,
    });
    assert.deepEqual(
      (await client.listResources()).resources.map((r: { uri: string }) =>
        r.uri
      ),
      ["notes://late"],
    );
    const late = server.resource({
      uri: "notes://later",
      name: "later",
      read: (uri) => ({ uri: uri.href, text: "later" }),
    });
    await changed.promise;
    late.disable();
    assert.deepEqual(
      (await client.listResources()).resources.map((r: { uri: string }) =>
        r.uri
      ),
      ["notes://late"],
    );
  } finally {
    await client.close();
  }
});

Deno.test("disabled resources, templates and prompts answer as unknown ones", async (t) => {
  const server = createServer({ name: "s", version: "1" });
  const fixed = server.resource({
    uri: "config://app",
    name: "app",
    read: (uri) => ({ uri: uri.href, text: "{}" }),
  });
  const template = server.resourceTemplate({
    uriTemplate: "notes://{name}",
    name: "note",
    list: () => [{ uri: "notes://todo", name: "todo" }],
    complete: { name: () => ["todo"] },
    read: (uri, { name }) => ({ uri: uri.href, text: `# ${name}` }),
  });
  const prompt = server.prompt({
    name: "review",
    arguments: [{ name: "code", complete: () => ["x"] }],
    handler: () => ({ messages: [] }),
  });
  await using client = await connect(server);
  const code = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (e) => (e as RpcError).code,
    );

  await t.step("a disabled resource is unlisted and not found", async () => {
    fixed.disable();
    const { resources } = await client.request("resources/list");
    assert.deepEqual((resources as { uri: string }[]).map((r) => r.uri), [
      "notes://todo",
    ]);
    assert.equal(
      await code(client.request("resources/read", { uri: "config://app" })),
      -32002,
    );
    fixed.enable();
    assert.deepEqual(
      await client.request("resources/read", { uri: "config://app" }),
      { contents: [{ uri: "config://app", text: "{}" }] },
    );
  });

  await t.step(
    "a disabled template lists, reads and completes nothing",
    async () => {
      template.disable();
      assert.deepEqual(await client.request("resources/templates/list"), {
        resourceTemplates: [],
      });
      const { resources } = await client.request("resources/list");
      assert.deepEqual((resources as { uri: string }[]).map((r) => r.uri), [
        "config://app",
      ]);
      assert.equal(
        await code(client.request("resources/read", { uri: "notes://todo" })),
        -32002,
      );
      assert.equal(
        await code(client.request("completion/complete", {
          ref: { type: "ref/resource", uri: "notes://{name}" },
          argument: { name: "name", value: "" },
        })),
        -32602,
      );
      template.enable();
      template.update({ uriTemplate: "memo://{name}" });
      assert.deepEqual(
        await client.request("resources/read", { uri: "memo://ideas" }),
        { contents: [{ uri: "memo://ideas", text: "# ideas" }] },
      );
      assert.equal(
        await code(client.request("resources/read", { uri: "notes://ideas" })),
        -32002,
      );
    },
  );

  await t.step(
    "a disabled prompt is unlisted, unknown and not completed",
    async () => {
      prompt.disable();
      assert.deepEqual(await client.request("prompts/list"), { prompts: [] });
      assert.equal(
        await code(client.request("prompts/get", { name: "review" })),
        -32602,
      );
      assert.equal(
        await code(client.request("completion/complete", {
          ref: { type: "ref/prompt", name: "review" },
          argument: { name: "code", value: "" },
        })),
        -32602,
      );
      prompt.enable();
      prompt.update({ name: "critique", description: "Critiques code" });
      assert.deepEqual(await client.request("prompts/list"), {
        prompts: [{
          name: "critique",
          description: "Critiques code",
          arguments: [{ name: "code", required: false }],
        }],
      });
    },
  );

  await t.step("bad patches and removed handles are refused", () => {
    assert.throws(() => fixed.update({ uri: "not a uri" }), {
      name: "TypeError",
      message:
        'Cannot update resource "config://app": invalid URI: "not a uri"',
    });
    assert.throws(() => template.update({ uriTemplate: "memo://{" }), {
      name: "TypeError",
      message:
        /^Cannot update resource template "memo:\/\/\{name\}": invalid URI template/,
    });
    const other = server.prompt({
      name: "other",
      handler: () => ({ messages: [] }),
    });
    assert.throws(() => other.update({ name: "critique" }), {
      name: "TypeError",
      message: 'Cannot update prompt "other": duplicate name: critique',
    });
    other.remove();
    assert.throws(() => other.disable(), {
      name: "TypeError",
      message: 'Cannot disable prompt "other": it was removed',
    });
    server.prompt({ name: "other", handler: () => ({ messages: [] }) });
  });
});
