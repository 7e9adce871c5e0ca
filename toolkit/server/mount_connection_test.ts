// server.mount(prefix, connection): a client connection to another MCP
// server (here a scripted fake over an in-memory channel) mounted in a
// toolkit server: its lists under the prefix, its calls, prompts, reads
// and completions forwarded with cancellation and progress, its
// list_changed turned into the mounting server's, names that collide left
// out naming both, and the connection closed with the server.

import assert from "node:assert/strict";
import { createServer, type ToolServer } from "./server.ts";
import { text } from "../result/result.ts";
import { connect, RpcError, type TestClient } from "../testing/testing.ts";
import { until } from "../testing/_until.ts";
import {
  messageChannel,
  type MessageTransport,
} from "../jsonrpc/_message_channel.ts";
import type { JsonRpcMessage } from "../jsonrpc/types.ts";
import { connectServer, type McpClientConnection } from "../client/mod.ts";
import { connectStateless } from "./_stateless_test_helpers.ts";

type Params = Record<string, unknown>;
type Request = { id: string | number; method: string; params: Params };
type Answer = { result?: Params; error?: { code: number; message: string } };

/** A scripted MCP server on one end of a channel: its lists are `state`, it records what it got. */
class FakeServer {
  readonly end: MessageTransport;
  readonly received: JsonRpcMessage[] = [];
  state = {
    tools: [
      { name: "echo", description: "Echoes", inputSchema: { type: "object" } },
      {
        name: "slow",
        description: "Waits to be cancelled",
        inputSchema: { type: "object" },
        execution: { taskSupport: "optional" },
      },
    ] as Params[],
    prompts: [{ name: "greet", arguments: [{ name: "who" }] }] as Params[],
    resources: [{ uri: "memo://one", name: "one" }] as Params[],
    templates: [{
      uriTemplate: "memo://notes/{name}",
      name: "note",
    }] as Params[],
  };
  /** Requests answered by the test itself, by method. */
  held = new Map<string, PromiseWithResolvers<Request>>();
  #theirs: MessageTransport;
  #next = new Map<string, PromiseWithResolvers<Request>>();
  #asked = new Map<string, PromiseWithResolvers<Answer>>();
  #askId = 0;

  constructor() {
    const [ours, theirs] = messageChannel();
    this.end = ours;
    this.#theirs = theirs;
    theirs.onmessage = (message) => {
      this.received.push(message);
      if (!("method" in message) && "id" in message) {
        const asked = this.#asked.get(message.id as string);
        this.#asked.delete(message.id as string);
        asked?.resolve(message as unknown as Answer);
      }
      if ("method" in message) {
        const waiting = this.#next.get(message.method);
        this.#next.delete(message.method);
        waiting?.resolve(message as unknown as Request);
      }
      if ("method" in message && "id" in message) {
        this.#answer(message as Request);
      }
    };
    theirs.start();
  }

  /** Resolves with the next request of `method` that the test answers itself. */
  hold(method: string): Promise<Request> {
    const held = Promise.withResolvers<Request>();
    this.held.set(method, held);
    return held.promise;
  }

  /** Resolves with the next message of `method` (a request or a notification). */
  next(method: string): Promise<Request> {
    const waiting = Promise.withResolvers<Request>();
    this.#next.set(method, waiting);
    return waiting.promise;
  }

  send(message: Params): Promise<void> {
    return this.#theirs.send({ jsonrpc: "2.0", ...message } as JsonRpcMessage);
  }

  answer(id: string | number, result: Params): Promise<void> {
    return this.send({ id, result });
  }

  /** Sends the client a request of the server's own; resolves with its answer (result or error). */
  async ask(method: string, params: Params): Promise<Answer> {
    const id = `fake-${++this.#askId}`;
    const answered = Promise.withResolvers<Answer>();
    this.#asked.set(id, answered);
    await this.send({ id, method, params });
    return await answered.promise;
  }

  close(): Promise<void> {
    return this.#theirs.close();
  }

  get ended(): Promise<void> {
    return new Promise((resolve) => {
      const previous = this.#theirs.onend;
      this.#theirs.onend = () => {
        previous?.();
        resolve();
      };
    });
  }

  requests(method: string): Request[] {
    return this.received.filter((m) => "method" in m && m.method === method)
      .map((m) => m as unknown as Request);
  }

  #answer(request: Request): void {
    const { id, method, params } = request;
    const held = this.held.get(method);
    if (held !== undefined) {
      this.held.delete(method);
      held.resolve(request);
      return;
    }
    const reply = (result: Params) => this.answer(id, result);
    // Lists come one item a page, so the client must follow cursors.
    const page = (key: string, items: Params[]) => {
      const at = Number(params?.cursor ?? 0);
      return reply({
        [key]: items.slice(at, at + 1),
        ...(at + 1 < items.length ? { nextCursor: String(at + 1) } : {}),
      });
    };
    switch (method) {
      case "initialize":
        return void reply({
          protocolVersion: "2025-11-25",
          capabilities: {
            tools: { listChanged: true },
            prompts: { listChanged: true },
            resources: { listChanged: true },
            completions: {},
          },
          serverInfo: { name: "fake", version: "1" },
        });
      case "ping":
        return void reply({});
      case "tools/list":
        return void page("tools", this.state.tools);
      case "prompts/list":
        return void page("prompts", this.state.prompts);
      case "resources/list":
        return void page("resources", this.state.resources);
      case "resources/templates/list":
        return void page("resourceTemplates", this.state.templates);
      case "tools/call":
        return void reply({
          content: [{
            type: "text",
            text: `${params.name} ${JSON.stringify(params.arguments)}`,
          }],
        });
      case "prompts/get":
        if ((params.arguments as Params)?.who === "nobody") {
          return void this.send({
            id,
            error: { code: -32602, message: "Invalid params: who: nobody" },
          });
        }
        return void reply({
          messages: [{
            role: "user",
            content: {
              type: "text",
              text: `${params.name} ${JSON.stringify(params.arguments)}`,
            },
          }],
        });
      case "resources/read":
        return void reply({
          contents: [{ uri: params.uri, text: `read ${params.uri}` }],
        });
      case "completion/complete":
        return void reply({
          completion: {
            values: [`${(params.argument as Params).value}-done`],
          },
        });
    }
    this.send({
      id,
      error: { code: -32601, message: `Method not found: ${method}` },
    });
  }
}

async function mounted(
  options: { own?: (app: ToolServer) => void } = {},
): Promise<
  {
    fake: FakeServer;
    app: ToolServer;
    client: TestClient;
    connection: McpClientConnection;
  }
> {
  const fake = new FakeServer();
  const connection = await connectServer({ transport: fake.end });
  const app = createServer({ name: "app", version: "1" });
  options.own?.(app);
  app.mount("fake", connection);
  const client = await connect(app);
  return { fake, app, client, connection };
}

function toolNames(tools: { name: string }[]): string[] {
  return tools.map((tool) => tool.name);
}

Deno.test("a mounted connection's lists show under the prefix, every page of them", async () => {
  const { app, client } = await mounted();
  try {
    const tools = await client.listTools();
    assert.deepEqual(toolNames(tools), ["fake_echo", "fake_slow"]);
    // Forwarded calls run to completion: no task support is listed.
    assert.equal("execution" in tools[1], false);
    const prompts = await client.request("prompts/list");
    assert.deepEqual(prompts.prompts, [{
      name: "fake_greet",
      arguments: [{ name: "who" }],
    }]);
    const resources = await client.request("resources/list");
    assert.deepEqual(resources.resources, [{ uri: "memo://one", name: "one" }]);
    const templates = await client.request("resources/templates/list");
    assert.deepEqual(templates.resourceTemplates, [{
      uriTemplate: "memo://notes/{name}",
      name: "note",
    }]);
    const capabilities = client.initializeResult.capabilities as Params;
    assert.ok(capabilities.prompts && capabilities.resources);
    assert.ok(capabilities.completions);
  } finally {
    await client.close();
    await app.close();
  }
});

Deno.test("a mounted connection gets the calls, prompts, reads and completions of its names", async (t) => {
  const { fake, app, client } = await mounted();
  try {
    await t.step("tools/call under the server's own name", async () => {
      const result = await client.call("fake_echo", { say: "hi" });
      assert.deepEqual(result.content, [{
        type: "text",
        text: 'echo {"say":"hi"}',
      }]);
      const [call] = fake.requests("tools/call");
      assert.equal(call.params.name, "echo");
    });
    await t.step("prompts/get", async () => {
      const result = await client.request("prompts/get", {
        name: "fake_greet",
        arguments: { who: "ada" },
      });
      assert.deepEqual(result.messages, [{
        role: "user",
        content: { type: "text", text: 'greet {"who":"ada"}' },
      }]);
    });
    await t.step(
      "resources/read of a listed URI and a template's",
      async () => {
        for (const uri of ["memo://one", "memo://notes/todo"]) {
          const result = await client.request("resources/read", { uri });
          assert.deepEqual(result.contents, [{ uri, text: `read ${uri}` }]);
        }
        const unknown = await client.request("resources/read", {
          uri: "memo://elsewhere",
        }).catch((e) => e);
        assert.ok(unknown instanceof RpcError);
        assert.equal(unknown.code, -32002);
        assert.equal(
          fake.requests("resources/read").some((r) =>
            r.params.uri === "memo://elsewhere"
          ),
          false,
        );
      },
    );
    await t.step("completion/complete of a prompt and a template", async () => {
      const prompt = await client.request("completion/complete", {
        ref: { type: "ref/prompt", name: "fake_greet" },
        argument: { name: "who", value: "a" },
      });
      assert.deepEqual((prompt.completion as Params).values, ["a-done"]);
      const template = await client.request("completion/complete", {
        ref: { type: "ref/resource", uri: "memo://notes/{name}" },
        argument: { name: "name", value: "t" },
      });
      assert.deepEqual((template.completion as Params).values, ["t-done"]);
      const asked = fake.requests("completion/complete").map((r) => r.params);
      assert.deepEqual(asked[0].ref, { type: "ref/prompt", name: "greet" });
    });
    await t.step(
      "a JSON-RPC error keeps the server's code and message",
      async () => {
        const error = await client.request("prompts/get", {
          name: "fake_greet",
          arguments: { who: "nobody" },
        }).catch((e) => e);
        assert.ok(error instanceof RpcError);
        assert.equal(error.code, -32602);
        assert.equal(error.message, "Invalid params: who: nobody");
      },
    );
  } finally {
    await client.close();
    await app.close();
  }
});

Deno.test("cancelling a forwarded call sends notifications/cancelled to the server", async () => {
  const { fake, app, client, connection } = await mounted();
  try {
    const arrived = fake.hold("tools/call");
    const abort = new AbortController();
    const call = client.call("fake_slow", {}, { signal: abort.signal });
    const request = await arrived;
    abort.abort(new Error("the user gave up"));
    await assert.rejects(call);
    // The channel keeps order: what was sent before this ping has arrived.
    await connection.request("ping");
    const [{ params }] = fake.requests("notifications/cancelled");
    assert.equal(params.requestId, request.id);
    assert.match(String(params.reason), /the user gave up/);
    // A late answer is dropped; the session goes on.
    await fake.answer(request.id, { content: [] });
    assert.equal((await client.call("fake_echo")).isError, undefined);
  } finally {
    await client.close();
    await app.close();
  }
});

Deno.test("progress of a forwarded call reaches the client under its own token", async () => {
  const { fake, app, client } = await mounted();
  try {
    const arrived = fake.hold("tools/call");
    const call = client.call("fake_slow", {}, {
      meta: { progressToken: "mine" },
    });
    const request = await arrived;
    const token = (request.params._meta as Params).progressToken;
    assert.equal(typeof token, "string");
    assert.notEqual(token, "mine");
    await fake.send({
      method: "notifications/progress",
      params: { progressToken: token, progress: 1, total: 2, message: "half" },
    });
    await fake.answer(request.id, { content: [{ type: "text", text: "ok" }] });
    assert.deepEqual((await call).content, [{ type: "text", text: "ok" }]);
    const progress = client.notifications.filter((n) =>
      n.method === "notifications/progress"
    );
    assert.deepEqual(progress.map((n) => n.params), [{
      progressToken: "mine",
      progress: 1,
      total: 2,
      message: "half",
    }]);
  } finally {
    await client.close();
    await app.close();
  }
});

Deno.test("a list_changed of the connected server becomes one of the mounting server, with the new list", async () => {
  const { fake, app, client } = await mounted();
  try {
    const initialized = client.notifications.length;
    fake.state.tools.push({
      name: "later",
      description: "Came later",
      inputSchema: { type: "object" },
    });
    const listed = fake.next("tools/list");
    await fake.send({ method: "notifications/tools/list_changed" });
    await listed;
    await until(
      "the client hears tools/list_changed",
      () =>
        client.notifications.some((n) =>
          n.method === "notifications/tools/list_changed"
        ),
    );
    assert.deepEqual(toolNames(await client.listTools()), [
      "fake_echo",
      "fake_slow",
      "fake_later",
    ]);
    assert.deepEqual(
      client.notifications.slice(initialized).map((n) => n.method),
      ["notifications/tools/list_changed"],
    );
    const result = await client.call("fake_later", { n: 1 });
    assert.deepEqual(result.content, [{ type: "text", text: 'later {"n":1}' }]);
  } finally {
    await client.close();
    await app.close();
  }
});

Deno.test("a mounted connection's name that collides is refused naming both", async (t) => {
  await t.step("at the mount: a TypeError", async () => {
    const fake = new FakeServer();
    const connection = await connectServer({ transport: fake.end });
    const app = createServer({ name: "app", version: "1" });
    app.tool({
      name: "fake_echo",
      description: "Mine",
      handler: () => text("mine"),
    });
    assert.throws(
      () => app.mount("fake", connection),
      (error: unknown) =>
        error instanceof TypeError &&
        error.message.includes('"fake_echo"') &&
        error.message.includes('mount "fake" (server "fake")') &&
        error.message.includes('server "app"'),
    );
    await connection.close();
  });

  await t.step(
    "listed later: left out, said on stderr naming both",
    async () => {
      const { fake, app, client } = await mounted({
        own: (app) =>
          app.tool({
            name: "fake_new",
            description: "Mine",
            handler: () => text("mine"),
          }),
      });
      const said: string[] = [];
      const consoleError = console.error;
      console.error = (...args: unknown[]) => said.push(args.join(" "));
      try {
        fake.state.tools.push(
          {
            name: "new",
            description: "Theirs",
            inputSchema: { type: "object" },
          },
          {
            name: "fresh",
            description: "Theirs",
            inputSchema: { type: "object" },
          },
        );
        const listed = fake.next("tools/list");
        await fake.send({ method: "notifications/tools/list_changed" });
        await listed;
        await until(
          "the client hears tools/list_changed",
          () =>
            client.notifications.some((n) =>
              n.method === "notifications/tools/list_changed"
            ),
        );
      } finally {
        console.error = consoleError;
      }
      assert.deepEqual(toolNames(await client.listTools()), [
        "fake_new",
        "fake_echo",
        "fake_slow",
        "fake_fresh",
      ]);
      assert.equal(said.length, 1, said.join("\n"));
      assert.match(said[0], /"fake_new"/);
      assert.match(said[0], /tool "new" of mount "fake" \(server "fake"\)/);
      assert.match(said[0], /tool "fake_new" of server "app"/);
      assert.match(said[0], /left out/);
      // The name stays the mounting server's own.
      assert.deepEqual((await client.call("fake_new")).content, [{
        type: "text",
        text: "mine",
      }]);
      // A later registration that would take one of the connection's names is refused.
      assert.throws(
        () =>
          app.tool({
            name: "fake_fresh",
            description: "Mine",
            handler: () => text("mine"),
          }),
        (error: unknown) =>
          error instanceof TypeError &&
          error.message.includes(
            'tool "fresh" of mount "fake" (server "fake")',
          ),
      );
      await client.close();
      await app.close();
    },
  );
});

Deno.test("a connected server that ends takes its names away, and its call in flight answers a tool error", async () => {
  const { fake, app, client } = await mounted();
  try {
    const arrived = fake.hold("tools/call");
    const call = client.call("fake_slow");
    await arrived;
    await fake.close();
    const result = await call;
    assert.equal(result.isError, true);
    assert.match(
      (result.content[0] as { text: string }).text,
      /Server "fake" is not available: it closed the connection/,
    );
    await until(
      "the client hears tools/list_changed",
      () =>
        client.notifications.some((n) =>
          n.method === "notifications/tools/list_changed"
        ),
    );
    assert.deepEqual(await client.listTools(), []);
    const unknown = await client.call("fake_echo").catch((e) => e);
    assert.ok(unknown instanceof RpcError);
    assert.match(unknown.message, /Unknown tool/);
  } finally {
    await client.close();
    await app.close();
  }
});

Deno.test("closing the mounting server closes the connection", async () => {
  const { fake, app, client, connection } = await mounted();
  const ended = fake.ended;
  await client.close();
  await app.close();
  await ended;
  await connection.closed;
  await assert.rejects(
    connection.request("ping"),
    /Server "fake" is not available: the connection was closed/,
  );
});

Deno.test("a connection is mounted once", async () => {
  const { app, client, connection } = await mounted();
  try {
    const other = createServer({ name: "other", version: "1" });
    assert.throws(
      () => other.mount("again", connection),
      /Cannot mount server: the connection to server "fake" is mounted already/,
    );
  } finally {
    await client.close();
    await app.close();
  }
});

Deno.test("a 2026-07-28 call is forwarded to the connection's session without its era keys", async () => {
  const { fake, app, client } = await mounted();
  try {
    await using stateless = await connectStateless(app);
    const result = await stateless.call("fake_echo", { n: 2 }, {
      trace: "kept",
    });
    assert.deepEqual(result.content, [{ type: "text", text: 'echo {"n":2}' }]);
    const [call] = fake.requests("tools/call");
    assert.deepEqual(call.params._meta, { trace: "kept" });
  } finally {
    await client.close();
    await app.close();
  }
});

Deno.test("a connection that declares elicitation passes its server's question to the client of the call under way", async (t) => {
  const fake = new FakeServer();
  const connection = await connectServer({
    transport: fake.end,
    capabilities: { elicitation: {} },
  });
  const [initialize] = fake.requests("initialize");
  assert.deepEqual(initialize.params.capabilities, { elicitation: {} });
  const app = createServer({ name: "app", version: "1" });
  app.mount("fake", connection);
  const asked: Params[] = [];
  await using client = await connect(app, {
    capabilities: { elicitation: {} },
    onRequest: (method, params) => {
      asked.push({ method, params });
      return { action: "accept", content: { sure: true } };
    },
  });
  const QUESTION = {
    message: "Delete it?",
    requestedSchema: {
      type: "object",
      properties: { sure: { type: "boolean" } },
    },
  };

  await t.step("asked during one call: the client answers it", async () => {
    const held = fake.hold("tools/call");
    const calling = client.call("fake_echo", {});
    const call = await held;
    const answer = await fake.ask("elicitation/create", QUESTION);
    assert.deepEqual(answer.result, {
      action: "accept",
      content: { sure: true },
    });
    assert.deepEqual(asked, [{
      method: "elicitation/create",
      params: QUESTION,
    }]);
    await fake.answer(call.id, { content: [{ type: "text", text: "gone" }] });
    assert.deepEqual((await calling).content, [{ type: "text", text: "gone" }]);
  });

  await t.step(
    "asked with no call under way: an error, nobody asked",
    async () => {
      const answer = await fake.ask("elicitation/create", QUESTION);
      assert.equal(answer.error?.code, -32603);
      assert.match(answer.error?.message ?? "", /no call to it is under way/);
      assert.equal(asked.length, 1);
    },
  );

  await t.step(
    "asked during two calls: an error, for it cannot say whose",
    async () => {
      const first = fake.hold("tools/call");
      const one = client.call("fake_echo", { n: 1 });
      const a = await first;
      const second = fake.hold("tools/call");
      const two = client.call("fake_echo", { n: 2 });
      const b = await second;
      const answer = await fake.ask("elicitation/create", QUESTION);
      assert.match(
        answer.error?.message ?? "",
        /2 calls to it are under way, and a request names none/,
      );
      assert.equal(asked.length, 1);
      await fake.answer(a.id, { content: [] });
      await fake.answer(b.id, { content: [] });
      await Promise.all([one, two]);
    },
  );

  await t.step("what it did not declare is refused as ever", async () => {
    const held = fake.hold("tools/call");
    const calling = client.call("fake_echo", {});
    const call = await held;
    const answer = await fake.ask("sampling/createMessage", {
      messages: [],
      maxTokens: 1,
    });
    assert.equal(answer.error?.code, -32601);
    assert.match(
      answer.error?.message ?? "",
      /this client answers elicitation\/create, ping only/,
    );
    await fake.answer(call.id, { content: [] });
    await calling;
  });
});

Deno.test("connectServer() refuses capabilities it cannot pass on", async (t) => {
  for (
    const [capabilities, wanted] of [
      [
        { roots: {} },
        /capabilities\.roots: unknown capability: expected elicitation or sampling/,
      ],
      [{ sampling: true }, /capabilities\.sampling: expected an object/],
    ] as const
  ) {
    await t.step(JSON.stringify(capabilities), async () => {
      const fake = new FakeServer();
      await assert.rejects(
        () =>
          connectServer({
            transport: fake.end,
            capabilities: capabilities as never,
          }),
        (error: Error) =>
          error instanceof TypeError && wanted.test(error.message),
      );
      assert.equal(fake.received.length, 0);
    });
  }
});
