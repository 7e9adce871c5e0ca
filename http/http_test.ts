import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createServer, type ToolServer } from "../server/server.ts";
import { text } from "../result/result.ts";
import {
  createHttpHandler,
  type HttpServer,
  serveHttp,
  type ServeHttpOptions,
} from "./http.ts";

const PROTOCOL = "2025-11-25";
const ACCEPT = "application/json, text/event-stream";

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: PROTOCOL,
    capabilities: {},
    clientInfo: { name: "http-test", version: "1.0.0" },
  },
};

/** A call that has started and waits to be let go, for shutdown tests. */
interface Gate {
  started: Promise<void>;
  release: () => void;
}

function gate(): Gate & { enter: () => Promise<void> } {
  let entered!: () => void;
  let release!: () => void;
  const started = new Promise<void>((resolve) => entered = resolve);
  const released = new Promise<void>((resolve) => release = resolve);
  return {
    started,
    release,
    enter: () => {
      entered();
      return released;
    },
  };
}

function makeServer(graceMs = 2000, held: Gate[] = []): ToolServer {
  const server = createServer({ name: "http-test", version: "1.0.0" }, {
    graceMs,
  });
  server.tool({
    name: "held",
    description: "Answers once the test lets it go, ignoring cancellation",
    handler: async () => {
      const next = held.shift() as ReturnType<typeof gate> | undefined;
      if (next === undefined) throw new Error("no gate prepared");
      await next.enter();
      return text("released");
    },
  });
  server.tool({
    name: "echo",
    description: "Echoes its text",
    input: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    },
    handler: (args) => text(String((args as { text: string }).text)),
  });
  server.tool({
    name: "whoami",
    description: "Answers the session id",
    handler: (_args, ctx) => text(ctx.sessionId ?? "none"),
  });
  server.tool({
    name: "slow",
    description: "Answers after ms milliseconds, ignoring cancellation",
    input: {
      type: "object",
      properties: { ms: { type: "number" } },
      required: ["ms"],
    },
    handler: async (args) => {
      const { ms } = args as { ms: number };
      await new Promise((resolve) => setTimeout(resolve, ms));
      return text(`slept ${ms}`);
    },
  });
  return server;
}

function start(
  options: ServeHttpOptions = {},
  server: ToolServer = makeServer(),
): HttpServer & { server: ToolServer } {
  const http = serveHttp(server, {
    port: 0,
    handleSignals: false,
    onListen: () => {},
    ...options,
  });
  return Object.assign(http, { server });
}

async function connectClient(
  url: URL,
  headers: Record<string, string> = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: "http-test-client", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers },
  });
  await client.connect(transport);
  return { client, transport };
}

function post(
  url: URL,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: ACCEPT,
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Opens a session by hand; answers its id. */
async function initialize(
  url: URL,
  headers: Record<string, string> = {},
): Promise<string> {
  const response = await post(url, INITIALIZE, headers);
  assert.equal(response.status, 200);
  const id = response.headers.get("mcp-session-id");
  assert.ok(id, "initialize answers an Mcp-Session-Id");
  await response.body?.cancel();
  const done = await post(
    url,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { "mcp-session-id": id, "mcp-protocol-version": PROTOCOL, ...headers },
  );
  assert.equal(done.status, 202);
  await done.body?.cancel();
  return id;
}

/** The JSON-RPC messages of an SSE or JSON response body. */
async function messages(response: Response): Promise<unknown[]> {
  const body = await response.text();
  if (response.headers.get("content-type")?.includes("application/json")) {
    const parsed = JSON.parse(body);
    return Array.isArray(parsed) ? parsed : [parsed];
  }
  return body.split("\n")
    .filter((line) => line.startsWith("data: ") && line.length > 6)
    .map((line) => JSON.parse(line.slice(6)));
}

async function errorOf(
  response: Response,
): Promise<{ code: number; message: string }> {
  const body = await response.json();
  assert.equal(body.jsonrpc, "2.0");
  return body.error;
}

/** A raw HTTP/1.1 exchange, for headers `fetch` will not send (Host). */
async function rawRequest(
  port: number,
  head: string[],
  body = "",
): Promise<{ status: number; text: string }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const bytes = new TextEncoder().encode(
    [
      ...head,
      `content-length: ${new TextEncoder().encode(body).length}`,
      "connection: close",
      "",
      body,
    ]
      .join("\r\n"),
  );
  await conn.write(bytes);
  const reply = await new Response(conn.readable).text();
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1]);
  return { status, text: reply };
}

function initializeHead(host: string, origin?: string): string[] {
  return [
    "POST /mcp HTTP/1.1",
    `host: ${host}`,
    ...(origin === undefined ? [] : [`origin: ${origin}`]),
    "content-type: application/json",
    `accept: ${ACCEPT}`,
  ];
}

Deno.test("serveHttp() serves MCP at /mcp on 127.0.0.1 and answers 404 elsewhere", async () => {
  await using http = start();
  assert.equal(http.addr.hostname, "127.0.0.1");
  assert.equal(http.url.pathname, "/mcp");
  const { client } = await connectClient(http.url);
  const tools = await client.listTools();
  assert.deepEqual(tools.tools.map((t: { name: string }) => t.name), [
    "held",
    "echo",
    "whoami",
    "slow",
  ]);
  const result = await client.callTool({
    name: "echo",
    arguments: { text: "hi" },
  });
  assert.deepEqual(result.content, [{ type: "text", text: "hi" }]);
  await client.close();

  const other = await post(new URL("/other", http.url), INITIALIZE);
  assert.equal(other.status, 404);
  assert.match((await errorOf(other)).message, /the MCP endpoint is \/mcp/);
});

Deno.test("serveHttp() refuses a port in use with a clear error", async () => {
  await using http = start();
  assert.throws(
    () =>
      serveHttp(makeServer(), {
        port: http.addr.port,
        handleSignals: false,
        onListen: () => {},
      }),
    (error: Error) => {
      assert.match(
        error.message,
        /^Cannot serve HTTP: address already in use: 127\.0\.0\.1:\d+$/,
      );
      return true;
    },
  );
});

Deno.test("DNS-rebinding protection refuses a foreign Host or Origin with 403", async (t) => {
  await using http = start();
  const port = http.addr.port;

  await t.step("a foreign Host is refused", async () => {
    const reply = await rawRequest(
      port,
      initializeHead("evil.example.com"),
      JSON.stringify(INITIALIZE),
    );
    assert.equal(reply.status, 403);
    assert.match(reply.text, /Host \\"evil\.example\.com\\" is not allowed/);
  });
  await t.step(
    "a foreign Origin is refused even with a local Host",
    async () => {
      const response = await post(http.url, INITIALIZE, {
        origin: "http://evil.example.com",
      });
      assert.equal(response.status, 403);
      assert.match((await errorOf(response)).message, /Origin/);
    },
  );
  await t.step("the opaque origin null is refused", async () => {
    const response = await post(http.url, INITIALIZE, { origin: "null" });
    assert.equal(response.status, 403);
    await response.body?.cancel();
  });
  await t.step(
    "localhost, 127.0.0.1 and [::1] hosts are accepted",
    async () => {
      for (
        const host of [
          `localhost:${port}`,
          `127.0.0.1:${port}`,
          `[::1]:${port}`,
        ]
      ) {
        const reply = await rawRequest(
          port,
          initializeHead(host, `http://${host}`),
          JSON.stringify(INITIALIZE),
        );
        assert.equal(reply.status, 200, host);
      }
    },
  );
});

Deno.test("DNS-rebinding protection follows allowedHosts and allowedOrigins", async (t) => {
  await using http = start({
    allowedHosts: ["mcp.example.com"],
    allowedOrigins: ["https://app.example.com"],
  });
  const port = http.addr.port;
  await t.step("a configured host is accepted on any port", async () => {
    const reply = await rawRequest(
      port,
      initializeHead("mcp.example.com:443"),
      JSON.stringify(INITIALIZE),
    );
    assert.equal(reply.status, 200);
  });
  await t.step("loopback names are no longer accepted", async () => {
    const reply = await rawRequest(
      port,
      initializeHead(`localhost:${port}`),
      JSON.stringify(INITIALIZE),
    );
    assert.equal(reply.status, 403);
  });
  await t.step("only the configured origins are accepted", async () => {
    const good = await rawRequest(
      port,
      initializeHead("mcp.example.com", "https://app.example.com"),
      JSON.stringify(INITIALIZE),
    );
    assert.equal(good.status, 200);
    const bad = await rawRequest(
      port,
      initializeHead("mcp.example.com", "https://mcp.example.com"),
      JSON.stringify(INITIALIZE),
    );
    assert.equal(bad.status, 403);
  });
});

Deno.test("DNS-rebinding protection can be turned off for a trusted proxy", async () => {
  await using http = start({ dnsRebindingProtection: false });
  const reply = await rawRequest(
    http.addr.port,
    initializeHead("anything.example.com", "https://elsewhere.example.com"),
    JSON.stringify(INITIALIZE),
  );
  assert.equal(reply.status, 200);
});

Deno.test("bearer auth answers 401 with WWW-Authenticate unless the token is right", async (t) => {
  const token = "s3cret-token_value.~+/==";
  await using http = start({ auth: { token, realm: "tests" } });

  await t.step("no token", async () => {
    const response = await post(http.url, INITIALIZE);
    assert.equal(response.status, 401);
    assert.equal(
      response.headers.get("www-authenticate"),
      'Bearer realm="tests"',
    );
    await response.body?.cancel();
  });
  await t.step("a wrong token, also one that shares a prefix", async () => {
    for (const wrong of ["nope", token.slice(0, -1), `${token}x`]) {
      const response = await post(http.url, INITIALIZE, {
        authorization: `Bearer ${wrong}`,
      });
      assert.equal(response.status, 401);
      assert.equal(
        response.headers.get("www-authenticate"),
        'Bearer realm="tests", error="invalid_token"',
      );
      assert.ok(!(await response.text()).includes(wrong));
    }
  });
  await t.step("another scheme", async () => {
    const response = await post(http.url, INITIALIZE, {
      authorization: `Basic ${btoa("user:pass")}`,
    });
    assert.equal(response.status, 401);
    await response.body?.cancel();
  });
  await t.step("the right token, with any case of the scheme", async () => {
    const { client } = await connectClient(http.url, {
      authorization: `bearer ${token}`,
    });
    const result = await client.callTool({
      name: "echo",
      arguments: { text: "in" },
    });
    assert.deepEqual(result.content, [{ type: "text", text: "in" }]);
    await client.close();
  });
});

Deno.test("bearer auth with a verify callback, which never sees the token logged", async () => {
  const seen: string[] = [];
  const logged: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) =>
    logged.push(args.map(String).join(" "));
  try {
    await using http = start({
      auth: {
        verify: (token) => {
          seen.push(token);
          if (token === "explode-now") throw new Error("backend down");
          return token === "letmein";
        },
      },
    });
    const good = await post(http.url, INITIALIZE, {
      authorization: "Bearer letmein",
    });
    assert.equal(good.status, 200);
    await good.body?.cancel();
    const bad = await post(http.url, INITIALIZE, {
      authorization: "Bearer wrongpass",
    });
    assert.equal(bad.status, 401);
    await bad.body?.cancel();
    const broken = await post(http.url, INITIALIZE, {
      authorization: "Bearer explode-now",
    });
    assert.equal(broken.status, 500);
    assert.match((await errorOf(broken)).message, /could not be verified/);
  } finally {
    console.error = original;
  }
  assert.deepEqual(seen, ["letmein", "wrongpass", "explode-now"]);
  assert.ok(logged.some((line) => line.includes("backend down")));
  for (const secret of ["letmein", "wrongpass", "explode-now"]) {
    assert.ok(
      !logged.some((line) => line.includes(secret)),
      `token ${secret} was logged`,
    );
  }
});

Deno.test("createHttpHandler() rejects bad options with the reason, never echoing a token", async (t) => {
  const server = makeServer();
  await t.step("an unusable token", () => {
    assert.throws(
      () => createHttpHandler(server, { auth: { token: "has space" } }),
      (error: Error) =>
        error instanceof TypeError &&
        /auth.token must be/.test(error.message) &&
        !error.message.includes("has space"),
    );
  });
  await t.step("both token and verify", () => {
    assert.throws(
      () =>
        createHttpHandler(server, {
          auth: { token: "abc", verify: () => true },
        }),
      /exactly one of token and verify/,
    );
  });
  await t.step("out-of-range numbers", () => {
    assert.throws(
      () => createHttpHandler(server, { maxBodyBytes: 0 }),
      (error: Error) =>
        error instanceof RangeError &&
        error.message ===
          "Cannot create HTTP handler: maxBodyBytes must be a positive integer, got 0",
    );
    assert.throws(
      () => createHttpHandler(server, { eventHistory: -1 }),
      RangeError,
    );
    assert.throws(() => serveHttp(server, { port: 70000 }), RangeError);
  });
  await t.step("a path without a leading slash", () => {
    assert.throws(
      () => createHttpHandler(server, { path: "mcp" }),
      /path must start with "\/"/,
    );
  });
  await t.step("malformed allowed origins", () => {
    assert.throws(
      () => createHttpHandler(server, { allowedOrigins: ["not a url"] }),
      /allowedOrigins entries must be origins/,
    );
  });
  await t.step("something that is not a server", () => {
    assert.throws(
      () => createHttpHandler({} as ToolServer),
      /expected a ToolServer, got object/,
    );
  });
});

Deno.test("a body over the limit gets 413 before anything is parsed", async (t) => {
  await using http = start({ maxBodyBytes: 1024 });
  const big = JSON.stringify({
    ...INITIALIZE,
    params: { ...INITIALIZE.params, pad: "x".repeat(2000) },
  });
  await t.step("with Content-Length", async () => {
    const response = await post(http.url, big);
    assert.equal(response.status, 413);
    assert.match((await errorOf(response)).message, /limit of 1024 bytes/);
  });
  await t.step("streamed without Content-Length", async () => {
    const bytes = new TextEncoder().encode(big);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.subarray(0, 600));
        controller.enqueue(bytes.subarray(600));
        controller.close();
      },
    });
    const response = await fetch(http.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: ACCEPT },
      body,
    });
    assert.equal(response.status, 413);
    await response.body?.cancel();
  });
  await t.step("the default limit is 4 MiB", async () => {
    await using defaults = start();
    const response = await post(
      defaults.url,
      JSON.stringify({ ...INITIALIZE, pad: "x".repeat(4 * 1024 * 1024) }),
    );
    assert.equal(response.status, 413);
    await response.body?.cancel();
  });
});

Deno.test("wrong requests get the status codes the spec gives", async (t) => {
  await using http = start();
  const session = await initialize(http.url);
  const inSession = {
    "mcp-session-id": session,
    "mcp-protocol-version": PROTOCOL,
  };

  await t.step("406 when Accept lacks text/event-stream", async () => {
    const response = await post(http.url, INITIALIZE, {
      accept: "application/json",
    });
    assert.equal(response.status, 406);
    await response.body?.cancel();
  });
  await t.step("415 for a body that is not JSON", async () => {
    const response = await post(http.url, "a=1", {
      "content-type": "application/x-www-form-urlencoded",
    });
    assert.equal(response.status, 415);
    assert.match(
      (await errorOf(response)).message,
      /got application\/x-www-form-urlencoded/,
    );
  });
  await t.step(
    "400 with a JSON-RPC parse error for malformed JSON",
    async () => {
      const response = await post(http.url, '{"jsonrpc": "2.0",', inSession);
      assert.equal(response.status, 400);
      const error = await errorOf(response);
      assert.equal(error.code, -32700);
      assert.match(error.message, /^Parse error: /);
    },
  );
  await t.step(
    "400 with invalid request for JSON that is not JSON-RPC",
    async () => {
      const response = await post(
        http.url,
        { jsonrpc: "1.0", id: 1 },
        inSession,
      );
      assert.equal(response.status, 400);
      const error = await errorOf(response);
      assert.equal(error.code, -32600);
      assert.match(error.message, /expected "jsonrpc": "2.0", got "1.0"/);
    },
  );
  await t.step("405 with Allow for other methods", async () => {
    const response = await fetch(http.url, { method: "PUT", body: "{}" });
    assert.equal(response.status, 405);
    assert.equal(response.headers.get("allow"), "GET, POST, DELETE");
    await response.body?.cancel();
  });
  await t.step(
    "400 for a request without a session that is not initialize",
    async () => {
      const response = await post(http.url, {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/list",
      });
      assert.equal(response.status, 400);
      assert.match((await errorOf(response)).message, /Mcp-Session-Id/);
    },
  );
  await t.step("404 for an unknown session", async () => {
    const response = await post(
      http.url,
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { ...inSession, "mcp-session-id": "no-such-session" },
    );
    assert.equal(response.status, 404);
    assert.equal((await errorOf(response)).code, -32001);
  });
  await t.step("400 for an unsupported protocol version header", async () => {
    const response = await post(
      http.url,
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { ...inSession, "mcp-protocol-version": "1999-01-01" },
    );
    assert.equal(response.status, 400);
    await response.body?.cancel();
  });
  await t.step("202 for a notification", async () => {
    const response = await post(
      http.url,
      {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 99 },
      },
      inSession,
    );
    assert.equal(response.status, 202);
    await response.body?.cancel();
  });
  await t.step(
    "406 for a GET stream without Accept: text/event-stream",
    async () => {
      const response = await fetch(http.url, {
        headers: { accept: "application/json", ...inSession },
      });
      assert.equal(response.status, 406);
      await response.body?.cancel();
    },
  );
});

Deno.test("sessions are created, reused, deleted and expire", async (t) => {
  await using http = start({ sessionIdleMs: 150 });
  let id = "";
  const headers = () => ({
    "mcp-session-id": id,
    "mcp-protocol-version": PROTOCOL,
  });
  const call = (n: number) =>
    post(http.url, {
      jsonrpc: "2.0",
      id: n,
      method: "tools/call",
      params: { name: "whoami", arguments: {} },
    }, headers());

  await t.step("initialize creates a session", async () => {
    id = await initialize(http.url);
    assert.match(id, /^[0-9a-f-]{36}$/);
  });
  await t.step("later requests reuse it", async () => {
    for (const n of [2, 3]) {
      const response = await call(n);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("mcp-session-id"), id);
      const [answer] = await messages(response) as {
        result: { content: { text: string }[] };
      }[];
      assert.equal(answer.result.content[0].text, id);
    }
  });
  await t.step("DELETE ends it; later requests get 404", async () => {
    const deleted = await fetch(http.url, {
      method: "DELETE",
      headers: headers(),
    });
    assert.equal(deleted.status, 200);
    await deleted.body?.cancel();
    const after = await call(4);
    assert.equal(after.status, 404);
    await after.body?.cancel();
  });
  await t.step("an idle session expires", async () => {
    id = await initialize(http.url);
    const before = await call(5);
    assert.equal(before.status, 200);
    await before.body?.cancel();
    // Wait without requests: a request would keep the session alive.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const after = await call(6);
    assert.equal(after.status, 404);
    await after.body?.cancel();
  });
});

Deno.test("a session with an open stream does not expire while the stream is open", async () => {
  await using http = start({ sessionIdleMs: 100 });
  const id = await initialize(http.url);
  const headers = { "mcp-session-id": id, "mcp-protocol-version": PROTOCOL };
  const stream = await fetch(http.url, {
    headers: { accept: "text/event-stream", ...headers },
  });
  assert.equal(stream.status, 200);
  await new Promise((resolve) => setTimeout(resolve, 350));
  const during = await post(
    http.url,
    { jsonrpc: "2.0", id: 2, method: "ping" },
    headers,
  );
  assert.equal(during.status, 200);
  await during.body?.cancel();
  await stream.body?.cancel();
});

Deno.test("sessionCount and maxSessions bound the open sessions", async () => {
  const handler = createHttpHandler(makeServer(), { maxSessions: 2 });
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    handler,
  );
  const url = new URL(`http://127.0.0.1:${listener.addr.port}/mcp`);
  await initialize(url);
  const second = await initialize(url);
  assert.equal(handler.sessionCount, 2);
  const third = await post(url, INITIALIZE);
  assert.equal(third.status, 503);
  assert.equal(third.headers.get("retry-after"), "5");
  assert.match((await errorOf(third)).message, /2 sessions are open/);
  // Ending one makes room again.
  const ended = await fetch(url, {
    method: "DELETE",
    headers: { "mcp-session-id": second, "mcp-protocol-version": PROTOCOL },
  });
  assert.equal(ended.status, 200);
  await ended.body?.cancel();
  assert.equal(handler.sessionCount, 1);
  await initialize(url);
  await handler.close();
  assert.equal(handler.sessionCount, 0);
  await listener.shutdown();
});

Deno.test("two clients at once keep separate sessions", async () => {
  await using http = start();
  const a = await connectClient(http.url);
  const b = await connectClient(http.url);
  assert.ok(a.transport.sessionId && b.transport.sessionId);
  assert.notEqual(a.transport.sessionId, b.transport.sessionId);
  const [fromA, fromB] = await Promise.all([
    a.client.callTool({ name: "whoami", arguments: {} }),
    b.client.callTool({ name: "whoami", arguments: {} }),
  ]);
  assert.deepEqual(fromA.content, [{
    type: "text",
    text: a.transport.sessionId,
  }]);
  assert.deepEqual(fromB.content, [{
    type: "text",
    text: b.transport.sessionId,
  }]);
  await a.transport.terminateSession();
  // Ending one session leaves the other working.
  const still = await b.client.callTool({
    name: "echo",
    arguments: { text: "b" },
  });
  assert.deepEqual(still.content, [{ type: "text", text: "b" }]);
  await a.client.close();
  await b.client.close();
});

Deno.test("stateless mode answers each request on its own, without sessions", async (t) => {
  await using http = start({ stateless: true });
  await t.step("initialize answers no Mcp-Session-Id", async () => {
    const response = await post(http.url, INITIALIZE);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("mcp-session-id"), null);
    const [answer] = await messages(response) as {
      result: { serverInfo: { name: string } };
    }[];
    assert.equal(answer.result.serverInfo.name, "http-test");
  });
  await t.step("a call needs no session and no prior initialize", async () => {
    const responses = await Promise.all([1, 2, 3].map((n) =>
      post(http.url, {
        jsonrpc: "2.0",
        id: n,
        method: "tools/call",
        params: { name: "echo", arguments: { text: `n${n}` } },
      }, { "mcp-protocol-version": PROTOCOL })
    ));
    const texts = [];
    for (const response of responses) {
      assert.equal(response.status, 200);
      const [answer] = await messages(response) as {
        result: { content: { text: string }[] };
      }[];
      texts.push(answer.result.content[0].text);
    }
    assert.deepEqual(texts, ["n1", "n2", "n3"]);
  });
  await t.step("GET and DELETE get 405", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(http.url, {
        method,
        headers: { accept: "text/event-stream" },
      });
      assert.equal(response.status, 405);
      assert.equal(response.headers.get("allow"), "POST");
      await response.body?.cancel();
    }
  });
  await t.step("the SDK client works against it", async () => {
    const { client } = await connectClient(http.url);
    const result = await client.callTool({
      name: "echo",
      arguments: { text: "x" },
    });
    assert.deepEqual(result.content, [{ type: "text", text: "x" }]);
    await client.close();
  });
});

Deno.test("jsonResponse answers with one JSON body", async (t) => {
  await using http = start({ jsonResponse: true });
  let id = "";
  await t.step("initialize", async () => {
    const response = await post(http.url, INITIALIZE);
    assert.equal(response.status, 200);
    assert.match(
      response.headers.get("content-type") ?? "",
      /^application\/json/,
    );
    id = response.headers.get("mcp-session-id") ?? "";
    assert.ok(id);
    const body = await response.json();
    assert.equal(body.id, 1);
    assert.equal(body.result.protocolVersion, PROTOCOL);
  });
  const headers = () => ({
    "mcp-session-id": id,
    "mcp-protocol-version": PROTOCOL,
  });
  await t.step("a batch gets an array of its answers", async () => {
    const response = await post(http.url, [
      { jsonrpc: "2.0", id: 2, method: "ping" },
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "echo", arguments: { text: "b" } },
      },
    ], headers());
    assert.equal(response.status, 200);
    const body = await response.json();
    assert.deepEqual(body.map((m: { id: number }) => m.id).sort(), [2, 3]);
  });
  await t.step(
    "a call whose session ends answers 503 instead of hanging",
    async () => {
      const pending = post(http.url, {
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: { name: "slow", arguments: { ms: 400 } },
      }, headers());
      await new Promise((resolve) => setTimeout(resolve, 50));
      const deleted = await fetch(http.url, {
        method: "DELETE",
        headers: headers(),
      });
      assert.equal(deleted.status, 200);
      await deleted.body?.cancel();
      const response = await pending;
      assert.equal(response.status, 503);
      assert.match((await errorOf(response)).message, /session closed/);
    },
  );
});

Deno.test("shutdown lets a request in flight finish, then refuses new ones", async () => {
  const call = gate();
  const http = start({}, makeServer(5000, [call]));
  const { client } = await connectClient(http.url);
  const inFlight = client.callTool({ name: "held", arguments: {} });
  await call.started;
  const stopping = http.shutdown();
  const refused = await post(http.url, INITIALIZE).then(
    (response) => response.status,
    () => "connection refused",
  );
  assert.ok(
    refused === 503 || refused === "connection refused",
    `got ${refused}`,
  );
  call.release();
  const result = await inFlight;
  assert.deepEqual(result.content, [{ type: "text", text: "released" }]);
  await stopping;
  await http.finished;
  await client.close().catch(() => {});
});

Deno.test("shutdown answers a call that outlives the grace period with an error", async () => {
  const call = gate();
  const http = start({}, makeServer(100, [call]));
  const { client } = await connectClient(http.url);
  const inFlight = client.callTool({ name: "held", arguments: {} })
    .then(() => "answered", (error: Error) => error.message);
  await call.started;
  await http.shutdown();
  // The call was never released: only the grace period ended it.
  assert.match(await inFlight, /Server shut down before the tool finished/);
  call.release();
  await client.close().catch(() => {});
});

Deno.test("a client that lost an SSE stream resumes it with Last-Event-ID", async () => {
  await using http = start({ eventHistory: 50, retryMs: 500 });
  const id = await initialize(http.url);
  const headers = { "mcp-session-id": id, "mcp-protocol-version": PROTOCOL };
  const response = await post(http.url, {
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: { name: "slow", arguments: { ms: 200 } },
  }, headers);
  assert.equal(response.status, 200);
  const reader = response.body!.pipeThrough(new TextDecoderStream())
    .getReader();
  let first = "";
  while (!first.includes("\n\n")) first += (await reader.read()).value ?? "";
  // The priming event comes first: an id, a retry hint and no data.
  const primingId = /^id: (\S+)$/m.exec(first)?.[1];
  assert.ok(primingId, `no priming event in ${JSON.stringify(first)}`);
  assert.match(first, /^retry: 500$/m);
  await reader.cancel();

  await new Promise((resolve) => setTimeout(resolve, 350));
  const resumed = await fetch(http.url, {
    headers: {
      accept: "text/event-stream",
      "last-event-id": primingId,
      ...headers,
    },
  });
  assert.equal(resumed.status, 200);
  const replayReader = resumed.body!.pipeThrough(new TextDecoderStream())
    .getReader();
  let replayed = "";
  while (!replayed.includes('"id":7')) {
    replayed += (await replayReader.read()).value ?? "";
  }
  await replayReader.cancel();
  assert.match(replayed, /slept 200/);
});

Deno.test("createHttpHandler() mounts in Deno.serve under its own path", async () => {
  const server = makeServer();
  const handler = createHttpHandler(server, { path: "/api/mcp" });
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    handler,
  );
  const url = new URL(`http://127.0.0.1:${listener.addr.port}/api/mcp`);
  const { client } = await connectClient(url);
  const result = await client.callTool({
    name: "echo",
    arguments: { text: "mounted" },
  });
  assert.deepEqual(result.content, [{ type: "text", text: "mounted" }]);
  assert.equal(handler.sessionCount, 1);
  await client.close();
  await handler.close();
  assert.equal(handler.sessionCount, 0);
  const after = await handler(new Request(url, { method: "POST" }));
  assert.equal(after.status, 503);
  await after.body?.cancel();
  await listener.shutdown();
});
