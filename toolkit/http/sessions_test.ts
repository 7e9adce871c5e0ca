import assert from "node:assert/strict";
import { sessions } from "./sessions.ts";
import {
  ACCEPT,
  connectClient,
  errorOf,
  FakeClock,
  gate,
  INITIALIZE,
  initialize,
  makeServer,
  messages,
  post,
  PROTOCOL,
  start,
  withClock,
} from "./_test_helpers.ts";
import { serveHttp } from "./serve.ts";
import type { JsonRpcMessage, McpTransport } from "../jsonrpc/types.ts";

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
  const clock = new FakeClock();
  await using http = start(withClock(clock, { sessionIdleMs: 150 }));
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
    // Read to its end, so that the request has ended on the server too.
    await before.text();
    // Time passes without requests: a request would keep the session alive.
    clock.advance(600);
    const after = await call(6);
    assert.equal(after.status, 404);
    await after.body?.cancel();
  });
});

Deno.test("a session with an open stream does not expire while the stream is open", async () => {
  const clock = new FakeClock();
  await using http = start(withClock(clock, { sessionIdleMs: 100 }));
  const id = await initialize(http.url);
  const headers = { "mcp-session-id": id, "mcp-protocol-version": PROTOCOL };
  const stream = await fetch(http.url, {
    headers: { accept: "text/event-stream", ...headers },
  });
  assert.equal(stream.status, 200);
  clock.advance(350);
  const during = await post(
    http.url,
    { jsonrpc: "2.0", id: 2, method: "ping" },
    headers,
  );
  assert.equal(during.status, 200);
  await during.body?.cancel();
  await stream.body?.cancel();
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
  const held = gate();
  await using http = start({ jsonResponse: true }, makeServer(2000, [held]));
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
        params: { name: "held", arguments: {} },
      }, headers());
      await held.started;
      const deleted = await fetch(http.url, {
        method: "DELETE",
        headers: headers(),
      });
      assert.equal(deleted.status, 200);
      await deleted.body?.cancel();
      const response = await pending;
      assert.equal(response.status, 503);
      assert.match((await errorOf(response)).message, /session closed/);
      held.release();
    },
  );
});

Deno.test("a client that lost an SSE stream resumes it with Last-Event-ID", async () => {
  const held = gate();
  const server = makeServer(2000, [held]);
  const answered = Promise.withResolvers<void>();
  // Tells when the call's answer has been sent (and so stored) on the server.
  const host = {
    connect(transport: McpTransport): Promise<void> {
      const send = transport.send.bind(transport);
      transport.send = async (message: JsonRpcMessage, options) => {
        await send(message, options);
        if ("result" in message && message.id === 7) answered.resolve();
      };
      return server.connect(transport);
    },
  };
  await using http = serveHttp(host, {
    port: 0,
    handleSignals: false,
    onListen: () => {},
    eventHistory: 50,
    retryMs: 500,
  });
  const id = await initialize(http.url);
  const headers = { "mcp-session-id": id, "mcp-protocol-version": PROTOCOL };
  const response = await post(http.url, {
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: { name: "held", arguments: {} },
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

  // The answer comes while the client has no stream.
  held.release();
  await answered.promise;
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
  assert.match(replayed, /released/);
  await server.close();
});
Deno.test("sessions() alone: serves its path and hands other paths to next", async () => {
  const mcp = sessions(makeServer(), { path: "/rpc" });
  const site = () => Promise.resolve(new Response("site"));
  const other = await mcp(new Request("http://localhost/"), site);
  assert.equal(await other.text(), "site");
  const response = await mcp(
    new Request("http://localhost/rpc", {
      method: "POST",
      headers: { "content-type": "application/json", accept: ACCEPT },
      body: JSON.stringify(INITIALIZE),
    }),
    site,
  );
  assert.equal(response.status, 200);
  const [answer] = await messages(response) as {
    result: { serverInfo: { name: string } };
  }[];
  assert.equal(answer.result.serverInfo.name, "http-test");
  assert.equal(mcp.sessionCount, 1);
  await mcp.close();
  assert.equal(mcp.sessionCount, 0);
  const after = await mcp(new Request("http://localhost/rpc"), site);
  assert.equal(after.status, 503);
  await after.body?.cancel();
});

Deno.test("sessions() takes any SessionHost and closes it on close()", async () => {
  const server = makeServer();
  let closed = false;
  const host = {
    connect: (transport: Parameters<typeof server.connect>[0]) =>
      server.connect(transport),
    close: async () => {
      closed = true;
      await server.close();
    },
  };
  const mcp = sessions(host);
  await mcp.close();
  assert.ok(closed);
  assert.throws(
    () => sessions({} as typeof host),
    (error: Error) =>
      error instanceof TypeError &&
      /expected a SessionHost .*got object$/.test(error.message),
  );
});
