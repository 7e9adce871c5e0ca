import assert from "node:assert/strict";
import type { ToolServer } from "../../mod.ts";
import { createHttpHandler } from "./handler.ts";
import { serveHttp } from "./serve.ts";
import {
  connectClient,
  errorOf,
  INITIALIZE,
  initialize,
  makeServer,
  post,
  PROTOCOL,
} from "./_test_helpers.ts";

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
          "Cannot create HTTP handler: maxBodyBytes must be a whole number >= 1, got 0",
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
      /expected a SessionHost .*such as a ToolServer.*, got object$/,
    );
  });
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
  // Both are in use, so the first can end once idle for sessionIdleMs.
  assert.equal(third.headers.get("retry-after"), "900");
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
