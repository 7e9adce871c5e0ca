import assert from "node:assert/strict";
import { spawnStdio } from "@forge/toolkit/testing";
import { parseArgs } from "./main.ts";

const MAIN = new URL("./main.ts", import.meta.url).pathname;

Deno.test("parseArgs() reads --http [host:]port and --stateless", async (t) => {
  await t.step("no arguments: stdio", () => {
    assert.deepEqual(parseArgs([]), { stateless: false });
  });
  await t.step("a port alone binds loopback", () => {
    assert.deepEqual(parseArgs(["--http", "3000"]), {
      stateless: false,
      http: { hostname: "127.0.0.1", port: 3000 },
    });
  });
  await t.step("host and port, also as --http=", () => {
    assert.deepEqual(parseArgs(["--http=0.0.0.0:8080", "--stateless"]), {
      stateless: true,
      http: { hostname: "0.0.0.0", port: 8080 },
    });
  });
  await t.step("a bracketed IPv6 host", () => {
    assert.deepEqual(parseArgs(["--http", "[::1]:9000"]).http, {
      hostname: "::1",
      port: 9000,
    });
  });
  await t.step("mistakes name what was wrong", () => {
    assert.throws(() => parseArgs(["--http"]), /--http needs \[host:\]port/);
    assert.throws(
      () => parseArgs(["--http", "localhost:99999"]),
      /port from 0 to 65535, got "localhost:99999"/,
    );
    assert.throws(() => parseArgs(["--htpp", "1"]), /unknown option: --htpp/);
    assert.throws(() => parseArgs(["--stateless"]), /--stateless needs --http/);
  });
});

Deno.test("parseArgs() reads --redis URL, with --http only", () => {
  assert.deepEqual(
    parseArgs(["--http", "3000", "--redis", "redis://127.0.0.1:6379"]),
    {
      http: { hostname: "127.0.0.1", port: 3000 },
      stateless: false,
      redis: "redis://127.0.0.1:6379",
    },
  );
  assert.equal(
    parseArgs(["--http=1", "--redis=rediss://r:1"]).redis,
    "rediss://r:1",
  );
  assert.throws(
    () => parseArgs(["--redis", "redis://r:1"]),
    /--redis needs --http/,
  );
  assert.throws(
    () => parseArgs(["--http", "1", "--redis", "localhost:6379"]),
    /--redis expects a redis:\/\/host:port URL, got "localhost:6379"/,
  );
});

Deno.test("main.ts exits with status 2 and the usage on a bad argument", async () => {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "--http", "nope"],
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(code, 2);
  const message = new TextDecoder().decode(stderr);
  assert.match(message, /--http expects \[host:\]port/);
  assert.match(message, /^Usage: main\.ts/m);
});

Deno.test("main.ts --http serves on the port it prints and stops cleanly on SIGTERM", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "--http", "127.0.0.1:0"],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let log = "";
  let url: string | undefined;
  while (url === undefined) {
    const { value, done } = await reader.read();
    if (done) break;
    log += value;
    url = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(log)?.[0];
  }
  assert.ok(url, `no URL in ${log}`);
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "main-test", version: "1" },
      },
    }),
  });
  assert.equal(response.status, 200);
  assert.match(await response.text(), /"name":"forge-everything"/);
  child.kill("SIGTERM");
  const status = await child.status;
  await reader.cancel();
  assert.equal(status.code, 0);
});

Deno.test("main.ts over stdio speaks 2026-07-28 per request beside a 2025 session's initialize", async () => {
  await using server = spawnStdio(Deno.execPath(), ["run", "-A", MAIN]);
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  };
  // deno-lint-ignore no-explicit-any
  const answers = new Map<number, any>([
    [1, await server.exchange("server/discover", { _meta: meta })],
    [
      2,
      await server.exchange("tools/call", {
        name: "test_input_required_result_elicitation",
        _meta: meta,
      }),
    ],
    [3, await server.exchange("tools/list", {})],
  ]);
  assert.equal((await server.close()).code, 0);
  assert.deepEqual(server.violations, []);
  assert.deepEqual(answers.get(1).result.supportedVersions, ["2026-07-28"]);
  assert.equal(answers.get(2).result.resultType, "input_required");
  assert.deepEqual(Object.keys(answers.get(2).result.inputRequests), [
    "user_name",
  ]);
  // No _meta and no initialize: the session era's lifecycle error.
  assert.equal(answers.get(3).error.code, -32600);
});
