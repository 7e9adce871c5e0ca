import assert from "node:assert/strict";
import { createServer, text } from "../../mod.ts";
import { createHttpHandler } from "./handler.ts";
import { decodeHeaderValue, isStatelessHttp } from "./_stateless.ts";
import { RPC_ERROR } from "../jsonrpc/errors.ts";
import { INITIALIZE, messages } from "./_test_helpers.ts";
import { until } from "../testing/_until.ts";

const VERSION = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
};

function makeHandler() {
  const server = createServer({ name: "stateless-test", version: "1" });
  server.tool({
    name: "echo",
    description: "Echoes its text",
    input: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    },
    handler: (args) => text((args as { text: string }).text),
  });
  server.tool({
    name: "steps",
    description: "Reports progress, then answers",
    handler: async (_args, ctx) => {
      await ctx.progress(1, 2);
      return text("done");
    },
  });
  return { server, handler: createHttpHandler(server) };
}

/** A 2026-07-28 POST with the headers SEP-2243 asks for, overridable. */
function request(
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string | undefined> = {},
  id: number | string = 1,
): Request {
  const name = params.name ?? params.uri;
  const all: Record<string, string | undefined> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": VERSION,
    "mcp-method": method,
    ...(typeof name === "string" ? { "mcp-name": name } : {}),
    ...headers,
  };
  return new Request("http://localhost/mcp", {
    method: "POST",
    headers: Object.fromEntries(
      Object.entries(all).filter(([, v]) => v !== undefined),
    ) as Record<string, string>,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method,
      params: { _meta: META, ...params },
    }),
  });
}

Deno.test("A 2026-07-28 POST without Mcp-Session-Id is served on its own, with no session kept", async () => {
  const { handler } = makeHandler();
  const response = await handler(
    request("tools/call", { name: "echo", arguments: { text: "hi" } }),
  );
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("mcp-session-id"), null);
  assert.deepEqual(await response.json(), {
    jsonrpc: "2.0",
    id: 1,
    result: { content: [{ type: "text", text: "hi" }], resultType: "complete" },
  });
  assert.equal(handler.sessionCount, 0);
  await handler.close();
});

Deno.test("A 2025 client keeps its session: initialize opens one, and a request without it is still refused", async () => {
  const { handler } = makeHandler();
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const init = await handler(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers,
      body: JSON.stringify(INITIALIZE),
    }),
  );
  assert.equal(init.status, 200);
  assert.ok(init.headers.get("mcp-session-id"));
  await init.body?.cancel();
  assert.equal(handler.sessionCount, 1);
  const orphan = await handler(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: { ...headers, "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    }),
  );
  assert.equal(orphan.status, 400);
  assert.match((await orphan.json()).error.message, /Mcp-Session-Id/);
  await handler.close();
});

Deno.test("The stateless path checks Mcp-Method, Mcp-Name and MCP-Protocol-Version against the body (SEP-2243)", async (t) => {
  const { handler } = makeHandler();
  const call = { name: "echo", arguments: { text: "x" } };
  const refused: [string, Request][] = [
    [
      "a mismatched Mcp-Method",
      request("tools/list", {}, { "mcp-method": "prompts/list" }),
    ],
    [
      "a missing Mcp-Method",
      request("tools/list", {}, { "mcp-method": undefined }),
    ],
    [
      "a method value in another case",
      request("tools/list", {}, { "mcp-method": "TOOLS/LIST" }),
    ],
    [
      "a mismatched Mcp-Name",
      request("tools/call", call, { "mcp-name": "wrong" }),
    ],
    [
      "a missing Mcp-Name",
      request("tools/call", call, { "mcp-name": undefined }),
    ],
    [
      "malformed Base64 in Mcp-Name",
      request("tools/call", call, { "mcp-name": "=?base64?ZWNo?=" }),
    ],
    [
      "a tasks/get without Mcp-Name (its taskId, SEP-2663)",
      request("tasks/get", { taskId: "t-1" }),
    ],
    [
      "a tasks/cancel whose Mcp-Name is another task",
      request("tasks/cancel", { taskId: "t-1" }, { "mcp-name": "t-2" }),
    ],
    [
      "a header version other than _meta's",
      request("tools/list", {}, { "mcp-protocol-version": "2026-01-01" }),
    ],
  ];
  for (const [name, refusedRequest] of refused) {
    await t.step(`${name}: 400 and -32020 with the request's id`, async () => {
      const response = await handler(refusedRequest);
      assert.equal(response.status, 400);
      const body = await response.json();
      assert.equal(body.id, 1);
      assert.equal(body.error.code, RPC_ERROR.HEADER_MISMATCH);
      assert.match(body.error.message, /^Header mismatch: /);
    });
  }
  const accepted: [string, Request][] = [
    [
      "whitespace around a value",
      request("tools/call", call, { "mcp-name": "  echo  " }),
    ],
    [
      "a Base64-encoded name",
      request("tools/call", call, { "mcp-name": `=?base64?${btoa("echo")}?=` }),
    ],
  ];
  for (const [name, acceptedRequest] of accepted) {
    await t.step(`${name} is accepted`, async () => {
      const response = await handler(acceptedRequest);
      assert.equal(response.status, 200);
      assert.ok((await response.json()).result);
    });
  }
  await handler.close();
});

Deno.test("The stateless path answers errors with the status 2026-07-28 gives them", async () => {
  const { handler } = makeHandler();
  const cases: [Request, number, number][] = [
    [request("ping"), 404, RPC_ERROR.METHOD_NOT_FOUND],
    [request("tools/call", { name: "nope" }), 400, RPC_ERROR.INVALID_PARAMS],
    [
      request("server/discover", {
        _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "v9" },
      }, { "mcp-protocol-version": "v9" }),
      400,
      RPC_ERROR.UNSUPPORTED_PROTOCOL_VERSION,
    ],
    [
      request("server/discover", { _meta: undefined }),
      400,
      RPC_ERROR.INVALID_PARAMS,
    ],
  ];
  for (const [req, status, code] of cases) {
    const response = await handler(req);
    const body = await response.json();
    assert.equal(response.status, status, JSON.stringify(body));
    assert.equal(body.error.code, code);
    assert.equal(body.id, 1);
  }
  await handler.close();
});

Deno.test("The stateless path answers a body over maxBodyBytes 413 and a slow one 408, not a parse error", async () => {
  const server = createServer({ name: "stateless-limits", version: "1" });
  const handler = createHttpHandler(server, {
    maxBodyBytes: 64,
    bodyDeadlineMs: 50,
  });
  const big = request("tools/call", { name: "echo", text: "x".repeat(100) });
  const tooLarge = await handler(big);
  assert.equal(tooLarge.status, 413);
  assert.match((await tooLarge.json()).error.message, /limit of 64 bytes/);

  const slow = new Request("http://localhost/mcp", {
    method: "POST",
    headers: Object.fromEntries(request("server/discover").headers),
    body: new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("{"));
      },
    }),
  });
  const tooSlow = await handler(slow);
  assert.equal(tooSlow.status, 408);
  assert.equal(tooSlow.headers.get("connection"), "close");
  await tooSlow.body?.cancel();
  await handler.close();
});

Deno.test("The stateless path refuses batches, accepts notifications with 202, and streams when notifications come first", async () => {
  const { handler } = makeHandler();
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": VERSION,
    "mcp-method": "tools/list",
  };
  const batch = await handler(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers,
      body: JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "tools/list" }]),
    }),
  );
  assert.equal(batch.status, 400);
  assert.match((await batch.json()).error.message, /no batches/);
  const notification = await handler(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 1 },
      }),
    }),
  );
  assert.equal(notification.status, 202);
  const streamed = await handler(
    request("tools/call", {
      name: "steps",
      _meta: { ...META, progressToken: "p" },
    }),
  );
  assert.equal(streamed.headers.get("content-type"), "text/event-stream");
  const got = await messages(streamed) as Record<string, unknown>[];
  assert.deepEqual(got.map((m) => m.method ?? "result"), [
    "notifications/progress",
    "result",
  ]);
  await handler.close();
});

Deno.test("subscriptions/listen over HTTP: the acknowledgement, then a list change, until the handler closes", async () => {
  const { server, handler } = makeHandler();
  const response = await handler(
    request(
      "subscriptions/listen",
      { notifications: { toolsListChanged: true } },
      {},
      "l",
    ),
  );
  assert.equal(response.headers.get("content-type"), "text/event-stream");
  const reader = response.body!.pipeThrough(new TextDecoderStream())
    .getReader();
  let seen = "";
  while (!seen.includes("acknowledged")) seen += (await reader.read()).value;
  server.tool({ name: "later", description: "Added", handler: () => text("") });
  while (!seen.includes("list_changed")) seen += (await reader.read()).value;
  const events = seen.split("\n").filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)));
  assert.deepEqual(events.map((e) => e.method), [
    "notifications/subscriptions/acknowledged",
    "notifications/tools/list_changed",
  ]);
  assert.equal(
    events[1].params._meta["io.modelcontextprotocol/subscriptionId"],
    "l",
  );
  await handler.close();
  assert.equal((await reader.read()).done, true);
});

Deno.test("isStatelessHttp() routes by MCP-Protocol-Version and Mcp-Session-Id", () => {
  const make = (headers: Record<string, string>, method = "POST") =>
    new Request("http://localhost/mcp", { method, headers });
  assert.equal(
    isStatelessHttp(make({ "mcp-protocol-version": VERSION })),
    true,
  );
  assert.equal(isStatelessHttp(make({ "mcp-protocol-version": "v999" })), true);
  assert.equal(
    isStatelessHttp(make({ "mcp-protocol-version": "2025-11-25" })),
    false,
  );
  assert.equal(isStatelessHttp(make({})), false);
  assert.equal(
    isStatelessHttp(
      make({ "mcp-protocol-version": VERSION, "mcp-session-id": "s" }),
    ),
    false,
  );
  assert.equal(
    isStatelessHttp(make({ "mcp-protocol-version": VERSION }, "GET")),
    false,
  );
});

Deno.test("decodeHeaderValue() decodes =?base64?…?=, treats anything else as literal, and refuses bad Base64", () => {
  assert.equal(decodeHeaderValue("plain"), "plain");
  assert.equal(decodeHeaderValue(`=?base64?${btoa("Hello")}?=`), "Hello");
  assert.equal(decodeHeaderValue("=?base64?w6k=?="), "é");
  assert.equal(decodeHeaderValue(btoa("Hello")), btoa("Hello"));
  assert.equal(
    decodeHeaderValue(`=?base64?${btoa("Hello")}`),
    `=?base64?${btoa("Hello")}`,
  );
  assert.equal(decodeHeaderValue("=?base64?SGVsbG8?="), undefined);
  assert.equal(decodeHeaderValue("=?base64?SGVs!!!bG8=?="), undefined);
  assert.equal(decodeHeaderValue("=?base64?/w==?="), undefined);
});

Deno.test("The stateless path checks Mcp-Param-* headers against the arguments a tool marks x-mcp-header, and hears the tool list change", async (t) => {
  const server = createServer({ name: "param-test", version: "1" });
  const input: Record<string, unknown> = {
    type: "object",
    properties: {
      region: { type: "string", "x-mcp-header": "Region" },
      limit: { type: "integer", "x-mcp-header": "Limit" },
      query: { type: "string" },
    },
    required: ["region"],
  };
  const marked = server.tool({
    name: "lookup",
    description: "Looks up in a region",
    input,
    handler: () => text("ok"),
  });
  const handler = createHttpHandler(server);
  const call = (
    args: Record<string, unknown>,
    headers: Record<string, string>,
  ) =>
    handler(
      request("tools/call", { name: "lookup", arguments: args }, headers),
    );
  await t.step(
    "a matching header, literal or Base64, is accepted",
    async () => {
      for (const value of ["eu-west", `=?base64?${btoa("eu-west")}?=`]) {
        const response = await call({ region: "eu-west" }, {
          "mcp-param-region": value,
        });
        assert.equal(response.status, 200);
        assert.ok((await response.json()).result);
      }
      const numbered = await call({ region: "eu", limit: 5 }, {
        "mcp-param-region": "eu",
        "mcp-param-limit": "5",
      });
      assert.equal(numbered.status, 200);
      await numbered.body?.cancel();
    },
  );
  const refused: [string, Record<string, unknown>, Record<string, string>][] = [
    ["a missing header", { region: "eu" }, {}],
    ["another value", { region: "eu" }, { "mcp-param-region": "us" }],
    ["malformed Base64", { region: "eu" }, {
      "mcp-param-region": "=?base64?ZX?=",
    }],
    ["a number that differs", { region: "eu", limit: 5 }, {
      "mcp-param-region": "eu",
      "mcp-param-limit": "6",
    }],
  ];
  for (const [name, args, headers] of refused) {
    await t.step(`${name}: 400 and -32020`, async () => {
      const response = await call(args, headers);
      assert.equal(response.status, 400);
      const body = await response.json();
      assert.equal(body.error.code, RPC_ERROR.HEADER_MISMATCH);
      assert.match(
        body.error.message,
        /^Header mismatch: Mcp-Param-(Region|Limit) /,
      );
    });
  }
  await t.step(
    "after the tool loses its mark, the header is no longer required",
    async () => {
      const unmarked: Record<string, unknown> = {
        type: "object",
        properties: { region: { type: "string" } },
        required: ["region"],
      };
      marked.update({ input: unmarked });
      // The layer asks for the tool list again once it hears list_changed;
      // nothing tells the test when that is done.
      await until("a call without the header is answered 200", async () => {
        const response = await call({ region: "eu" }, {});
        await response.body?.cancel();
        return response.status === 200;
      }, { timeoutMs: 1000 });
    },
  );
  await handler.close();
});

Deno.test("Instances sharing requestStateKey resume each other's multi-round requests; others refuse the state", async () => {
  const key = crypto.getRandomValues(new Uint8Array(32));
  const make = (requestStateKey: Uint8Array) => {
    const server = createServer({ name: "replica", version: "1" }, {
      requestStateKey,
      cache: { ttlMs: 30_000, cacheScope: "public" },
    });
    server.tool({
      name: "ask",
      description: "Asks two questions in turn",
      handler: async (_args, ctx) => {
        const schema = { type: "object", properties: {} };
        const a = await ctx.elicit({ message: "A?", requestedSchema: schema });
        const b = await ctx.elicit({ message: "B?", requestedSchema: schema });
        return text(`${a.action} ${b.action}`);
      },
    });
    return createHttpHandler(server);
  };
  const one = make(key);
  const two = make(key);
  const stranger = make(crypto.getRandomValues(new Uint8Array(32)));
  const capabilities = {
    ...META,
    "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  };
  const ask = async (
    handler: ReturnType<typeof make>,
    extra: Record<string, unknown>,
  ) =>
    await (await handler(
      request("tools/call", { name: "ask", _meta: capabilities, ...extra }),
    )).json();
  const first = (await ask(one, {})).result;
  assert.deepEqual(Object.keys(first.inputRequests), ["elicitation"]);
  const second = (await ask(two, {
    requestState: first.requestState,
    inputResponses: { elicitation: { action: "accept", content: {} } },
  })).result;
  assert.deepEqual(Object.keys(second.inputRequests), ["elicitation-2"]);
  const third = (await ask(one, {
    requestState: second.requestState,
    inputResponses: { "elicitation-2": { action: "decline" } },
  })).result;
  assert.deepEqual(third.content, [{ type: "text", text: "accept decline" }]);
  const refused = await ask(stranger, {
    requestState: second.requestState,
    inputResponses: { "elicitation-2": { action: "decline" } },
  });
  assert.equal(refused.error.code, RPC_ERROR.INVALID_PARAMS);
  const listed = (await (await one(request("tools/list"))).json()).result;
  assert.equal(listed.ttlMs, 30_000);
  assert.equal(listed.cacheScope, "public");
  for (const handler of [one, two, stranger]) await handler.close();
});

Deno.test("createServer() refuses a short requestStateKey and bad cache hints", () => {
  assert.throws(
    () =>
      createServer({ name: "s", version: "1" }, {
        requestStateKey: new Uint8Array(8),
      }),
    /requestStateKey must be at least 32 bytes, got 8/,
  );
  assert.throws(
    () => createServer({ name: "s", version: "1" }, { cache: { ttlMs: -5 } }),
    /cache\.ttlMs must be a whole number of milliseconds >= 0, got -5/,
  );
});

Deno.test("A 2026-07-28 request to a host that cannot take it is 503 with its id, not a crash", async () => {
  const handler = createHttpHandler({
    connect: () => Promise.reject(new Error("closing")),
  });
  const response = await handler(request("tools/list", {}, {}, "q"));
  assert.equal(response.status, 503);
  const body = await response.json();
  assert.equal(body.id, "q");
  assert.match(body.error.message, /cannot take the request: closing/);
  await handler.close();
});

Deno.test("With jsonResponse a 2026-07-28 answer is one JSON body even when progress came first", async () => {
  const server = createServer({ name: "json", version: "1" });
  server.tool({
    name: "steps",
    description: "Reports progress, then answers",
    handler: async (_args, ctx) => {
      await ctx.progress(1, 2);
      return text("done");
    },
  });
  const handler = createHttpHandler(server, { jsonResponse: true });
  const response = await handler(
    request("tools/call", {
      name: "steps",
      _meta: { ...META, progressToken: "p" },
    }),
  );
  assert.match(response.headers.get("content-type") ?? "", /application\/json/);
  const body = await response.json();
  assert.deepEqual(body.result.content, [{ type: "text", text: "done" }]);
  await handler.close();
});
