// What a handler hears when its request to the client (ctx.sample,
// ctx.elicit, ctx.roots) cannot go: the message names where the client
// declares capabilities in this era (the request's _meta in 2026-07-28),
// or says that stateless HTTP has no session to carry the request.

import assert from "node:assert/strict";
import { createServer, type ToolServer } from "./server.ts";
import { text } from "../result/result.ts";
import { createHttpHandler } from "../http/handler.ts";
import { RpcError } from "../testing/testing.ts";
import { connectStateless } from "./_stateless_test_helpers.ts";

function askingServer(): ToolServer {
  const server = createServer({ name: "ask", version: "1" });
  server.tool({
    name: "sample",
    description: "d",
    handler: async (_args, ctx) => {
      await ctx.sample({ messages: [], maxTokens: 5 });
      return text("sampled");
    },
  });
  server.tool({
    name: "roots",
    description: "d",
    handler: async (_args, ctx) => text(JSON.stringify(await ctx.roots())),
  });
  server.tool({
    name: "sign_in",
    description: "d",
    handler: async (_args, ctx) => {
      await ctx.elicit({
        mode: "url",
        message: "Sign in",
        url: "https://example.com/sign-in",
        elicitationId: "e-1",
      });
      return text("signed in");
    },
  });
  return server;
}

async function rpcError(promise: Promise<unknown>): Promise<RpcError> {
  const cause = await promise.then(
    () => assert.fail("expected a JSON-RPC error"),
    (cause: unknown) => cause,
  );
  assert.ok(cause instanceof RpcError, String(cause));
  return cause;
}

const META_CAPABILITIES =
  `the request's _meta["io.modelcontextprotocol/clientCapabilities"] does not declare`;

Deno.test("a 2026-07-28 request that does not declare a capability hears that its _meta does not", async (t) => {
  await using client = await connectStateless(askingServer());
  await t.step("ctx.roots()", async () => {
    const failed = await rpcError(client.call("roots"));
    assert.equal(failed.code, -32603);
    assert.equal(
      failed.message,
      `Tool roots failed: Cannot list roots: ${META_CAPABILITIES} the roots capability (a 2026-07-28 request declares the client's capabilities itself, in each request's _meta)`,
    );
  });
  await t.step("ctx.elicit() by URL", async () => {
    const failed = await rpcError(client.call("sign_in"));
    assert.match(
      failed.message,
      new RegExp(
        `Cannot elicit by URL: ${
          META_CAPABILITIES.replace(/[[\]"./]/g, "\\$&")
        } elicitation\\.url`,
      ),
    );
  });
  await t.step("ctx.sample(): -32021 naming the capability", async () => {
    const failed = await rpcError(client.call("sample"));
    assert.equal(failed.code, -32021);
    assert.match(
      failed.message,
      /sampling\/createMessage needs sampling, which the request's _meta\.io\.modelcontextprotocol\/clientCapabilities does not declare/,
    );
  });
});

/** One 2025-11-25 tools/call over HTTP without sessions (its handler closes the server). */
async function sessionless(name: string): Promise<Record<string, unknown>> {
  const handler = createHttpHandler(askingServer(), {
    stateless: true,
    jsonResponse: true,
  });
  try {
    const response = await handler(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-11-25",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name, arguments: {} },
        }),
      }),
    );
    return await response.json();
  } finally {
    await handler.close();
  }
}

Deno.test("over HTTP without sessions a request to the client is refused for what it is: no session to carry it", async (t) => {
  const cause =
    "stateless HTTP serves each request without a session, so a request to the client can be neither sent nor answered (serve HTTP with sessions, or use a 2026-07-28 client, whose requests carry their input round trips)";
  await t.step("ctx.sample()", async () => {
    const answer = await sessionless("sample");
    assert.deepEqual(answer.error, {
      code: -32603,
      message:
        `Tool sample failed: Cannot send sampling/createMessage: ${cause}`,
    });
  });
  await t.step("ctx.roots()", async () => {
    const answer = await sessionless("roots");
    assert.deepEqual(answer.error, {
      code: -32603,
      message: `Tool roots failed: Cannot list roots: ${cause}`,
    });
  });
});
