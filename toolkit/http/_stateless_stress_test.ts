import assert from "node:assert/strict";
import { createServer, text } from "../../mod.ts";
import { createHttpHandler } from "./handler.ts";
import { INITIALIZE } from "./_test_helpers.ts";

const VERSION = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
};
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

function echoServer() {
  const server = createServer({ name: "flood", version: "1" });
  server.tool({
    name: "echo",
    description: "Echoes its text after a random pause",
    input: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    },
    handler: async (args) => {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
      return text((args as { text: string }).text);
    },
  });
  return server;
}

function call(id: number, say: string): Request {
  return new Request("http://localhost/mcp", {
    method: "POST",
    headers: {
      ...HEADERS,
      "mcp-protocol-version": VERSION,
      "mcp-method": "tools/call",
      "mcp-name": "echo",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "echo", arguments: { text: say }, _meta: META },
    }),
  });
}

Deno.test("2000 concurrent 2026-07-28 requests, beside 50 sessions opening, each get their own answer and leave nothing behind", async () => {
  const handler = createHttpHandler(echoServer());
  const stateless = Array.from({ length: 2000 }, async (_, i) => {
    const response = await handler(call(i, `message ${i}`));
    assert.equal(response.status, 200);
    const body = await response.json();
    assert.equal(body.id, i);
    assert.equal(body.result.content[0].text, `message ${i}`);
  });
  const sessions = Array.from({ length: 50 }, async () => {
    const response = await handler(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: HEADERS,
        body: JSON.stringify(INITIALIZE),
      }),
    );
    assert.equal(response.status, 200);
    assert.ok(response.headers.get("mcp-session-id"));
    await response.body?.cancel();
  });
  await Promise.all([...stateless, ...sessions]);
  // Only the sessions opened by initialize remain.
  assert.equal(handler.sessionCount, 50);
  await handler.close();
});

Deno.test("300 subscriptions/listen streams that their clients drop are closed, and shutdown does not wait for them", async () => {
  const server = echoServer();
  const handler = createHttpHandler(server);
  const listen = (id: number) =>
    handler(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: {
          ...HEADERS,
          "mcp-protocol-version": VERSION,
          "mcp-method": "subscriptions/listen",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "subscriptions/listen",
          params: { _meta: META, notifications: { toolsListChanged: true } },
        }),
      }),
    );
  const streams = await Promise.all(
    Array.from({ length: 300 }, (_, i) => listen(i)),
  );
  const readers = streams.map((r) =>
    r.body!.pipeThrough(new TextDecoderStream()).getReader()
  );
  for (const reader of readers) {
    assert.match((await reader.read()).value ?? "", /acknowledged/);
  }
  // Half the clients go away; the other half hear the next change.
  await Promise.all(readers.slice(0, 150).map((reader) => reader.cancel()));
  server.tool({ name: "new", description: "New", handler: () => text("") });
  for (const reader of readers.slice(150)) {
    assert.match((await reader.read()).value ?? "", /list_changed/);
  }
  const started = performance.now();
  await handler.close();
  assert.ok(performance.now() - started < 2000, "shutdown waited on streams");
  for (const reader of readers.slice(150)) {
    assert.equal((await reader.read()).done, true);
  }
});
