import assert from "node:assert/strict";
import { RpcError, spawnStdio, type StdioClient } from "./mod.ts";

const RAW = new URL("./testdata/raw_server.ts", import.meta.url).pathname;

function raw(options: Parameters<typeof spawnStdio>[2] = {}): StdioClient {
  return spawnStdio(Deno.execPath(), ["run", "--quiet", RAW], options);
}

Deno.test("spawnStdio() handshakes, calls and closes, keeping every line it saw", async () => {
  await using server = raw();
  assert.equal(await server.waitForStderr(/ready$/), "raw_server: ready");
  const init = await server.initialize({
    clientInfo: { name: "t", version: "2" },
  });
  assert.deepEqual(init.serverInfo, { name: "raw", version: "1" });
  assert.equal(server.initializeResult, init);
  assert.deepEqual(await server.request("echo", { a: 1 }), { a: 1 });
  assert.deepEqual(
    await server.call("hello", { name: "Ada" }, {
      meta: { progressToken: "p" },
    }),
    {
      name: "hello",
      arguments: { name: "Ada" },
      _meta: { progressToken: "p" },
    },
  );
  await server.waitForStderr(/notification notifications\/initialized/);
  const status = await server.close();
  assert.equal(status.code, 0);
  assert.equal(server.stderrLines.at(-1), "raw_server: stdin ended");
  assert.deepEqual(server.violations, []);
  assert.equal(server.messages.length, 3);
  assert.deepEqual(
    server.lines.map((line) => JSON.parse(line)),
    server.messages,
  );
  assert.match(server.stderr, /^raw_server: ready\n/);
});

Deno.test("spawnStdio(): a JSON-RPC error rejects request() with RpcError and is answered as is by exchange()", async () => {
  await using server = raw();
  await assert.rejects(server.request("fail"), (error) => {
    assert.ok(error instanceof RpcError);
    assert.equal(error.code, -32602);
    assert.equal(error.message, "Invalid params: no");
    assert.deepEqual(error.data, { why: "asked to" });
    return true;
  });
  const answer = await server.exchange("fail", {}, { id: "mine" });
  assert.deepEqual(answer, {
    jsonrpc: "2.0",
    id: "mine",
    error: {
      code: -32602,
      message: "Invalid params: no",
      data: { why: "asked to" },
    },
  });
});

Deno.test("spawnStdio(): raw lines, notifications and next()", async () => {
  await using server = raw();
  await server.send(
    '{"jsonrpc":"2.0","id":"r1","method":"echo","params":{"b":2}}\n',
  );
  assert.deepEqual(await server.response("r1"), {
    jsonrpc: "2.0",
    id: "r1",
    result: { b: 2 },
  });
  await server.sendMessage({ jsonrpc: "2.0", id: 9, method: "notify" });
  const note = await server.next((m) => m.method === "notifications/message");
  assert.deepEqual(note.params, { level: "info", data: "hi" });
  // since: only what comes later counts.
  const later = server.next((m) => m.method === "notifications/message", {
    since: server.messages.length,
  });
  await server.request("notify");
  assert.notEqual(await later, note);
  await server.notify("notifications/cancelled", { requestId: 1 });
  await server.waitForStderr(/notification notifications\/cancelled/);
  await server.request("log", { line: "first" });
  const since = server.stderrLines.length;
  await server.request("log", { line: "second" });
  assert.equal(await server.waitForStderr(/first|second/, { since }), "second");
});

Deno.test("spawnStdio(): a line that is not a JSON-RPC message is a violation", async () => {
  await using server = raw();
  await server.request("garbage");
  assert.deepEqual(server.violations, [
    "this is not JSON",
    '{"jsonrpc":"1.0","id":1}',
  ]);
  assert.equal(server.lines.length, 3);
  assert.equal(server.messages.length, 1);
});

Deno.test("spawnStdio(): the server's requests are answered by onRequest, or by the test", async (t) => {
  await t.step("onRequest", async () => {
    await using server = raw({
      onRequest: (method) => ({ roots: [{ uri: `file:///${method}` }] }),
    });
    const { got } = await server.request("ask");
    assert.deepEqual(got, {
      jsonrpc: "2.0",
      id: "s1",
      result: { roots: [{ uri: "file:///roots/list" }] },
    });
  });
  await t.step("onRequest throwing RpcError", async () => {
    await using server = raw({
      onRequest: () => {
        throw new RpcError(-32601, "Method not found");
      },
    });
    const { got } = await server.request("ask");
    assert.deepEqual(got, {
      jsonrpc: "2.0",
      id: "s1",
      error: { code: -32601, message: "Method not found" },
    });
  });
  await t.step("by hand", async () => {
    await using server = raw();
    const asked = server.request("ask");
    const request = await server.next((m) => m.method === "roots/list");
    await server.sendMessage({
      jsonrpc: "2.0",
      id: request.id,
      result: { roots: [] },
    });
    assert.deepEqual((await asked).got, {
      jsonrpc: "2.0",
      id: "s1",
      result: { roots: [] },
    });
  });
});

Deno.test("spawnStdio(): an exit fails what still waits, quoting stderr", async () => {
  await using server = raw();
  await server.request("log", { line: "about to go" });
  const waiting = server.next((m) => m.method === "never");
  await assert.rejects(
    server.request("exit", { code: 3 }),
    /The process closed its output before answering\nstderr:\n[\s\S]*about to go/,
  );
  await assert.rejects(waiting, /closed its output before a matching message/);
  assert.equal((await server.status).code, 3);
  await assert.rejects(
    server.request("echo"),
    /Cannot send echo: the process closed/,
  );
  server.kill(); // exited: nothing to do
});

Deno.test("spawnStdio(): waits are bounded, ids are not reused while pending", async () => {
  await using server = raw({ timeoutMs: 50 });
  // Started, so that the timeout's message quotes its stderr.
  await server.waitForStderr(/ready$/, { timeoutMs: 10_000 });
  await assert.rejects(
    server.request("silence"),
    /^Error: Timed out after 50 ms waiting for the answer to silence \(id 1\)\nstderr:\nraw_server: ready/,
  );
  await assert.rejects(
    server.waitForStderr(/never/, { timeoutMs: 20 }),
    /Timed out after 20 ms waiting for a stderr line matching \/never\//,
  );
  const first = server.exchange("silence", {}, { id: "x", timeoutMs: 5000 });
  await assert.rejects(
    server.exchange("echo", {}, { id: "x" }),
    /Cannot send echo: a request under id "x" still waits for its answer/,
  );
  // A late answer under the id still reaches the first request.
  await server.sendMessage({ jsonrpc: "2.0", id: "e", method: "echo" });
  await server.response("e");
  server.kill("SIGTERM");
  await assert.rejects(first, /closed its output/);
  assert.equal((await server.status).signal, "SIGTERM");
});

Deno.test("spawnStdio(): disposal kills a server that ignores the end of stdin", async () => {
  const server = spawnStdio(Deno.execPath(), [
    "eval",
    "console.error('up'); setInterval(() => {}, 1000);",
  ]);
  await server.waitForStderr(/^up$/);
  await server[Symbol.asyncDispose]();
  assert.equal((await server.status).signal, "SIGKILL");
});

Deno.test("spawnStdio() refuses an empty command with TypeError", () => {
  assert.throws(
    () => spawnStdio(""),
    TypeError,
    "Cannot spawn the server: expected the command as a non-empty string",
  );
});
