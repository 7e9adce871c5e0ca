// The gate in front of a remote server (--url): Streamable HTTP to the
// server, stdio to the host, the same decisions, probe and audit.

import assert from "node:assert/strict";
import {
  callTool,
  type Message,
  rpc,
  startGateProcess,
  textOf,
} from "./testdata/gate_process.ts";

const EVERYTHING = new URL("../../examples/everything/main.ts", import.meta.url)
  .pathname;
const HELLO = new URL("../../examples/hello-tool/main.ts", import.meta.url)
  .pathname;

/** Starts an HTTP server (`--http 127.0.0.1:0`) and reads its URL from stderr. */
async function httpServer(script: string, env: Record<string, string> = {}) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, "--http", "127.0.0.1:0"],
    env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const lines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  let url: string | undefined;
  while (url === undefined) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`The server did not start: ${seen}`);
    seen += value;
    url = seen.match(/(http:\/\/127\.0\.0\.1:\d+\/mcp)/)?.[1];
  }
  // Keep reading its stderr, so that it never blocks on a full pipe.
  (async () => {
    while (!(await lines.read()).done);
  })().catch(() => {});
  return {
    url,
    async [Symbol.asyncDispose]() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

Deno.test("gate --url in front of everything over Streamable HTTP: lists, calls, decisions", async () => {
  await using server = await httpServer(EVERYTHING);
  const dir = await Deno.makeTempDir({ prefix: "gate-remote-" });
  const policy = `${dir}/policy.yaml`;
  const audit = `${dir}/audit.jsonl`;
  await Deno.writeTextFile(
    policy,
    "unprobed: allow\ntools:\n  test_error_handling: deny\n",
  );
  await using gate = await startGateProcess(
    [
      "--policy",
      policy,
      "--audit",
      audit,
      "--url",
      server.url,
      "--header",
      "X-Test: 1",
    ],
    [],
    { capabilities: { elicitation: {} } },
  );
  const listed = await rpc(gate, "tools/list");
  const names = listed.result.tools.map((tool: Message) => tool.name);
  assert.ok(names.includes("test_simple_text"), JSON.stringify(names));

  const allowed = await callTool(gate, "test_simple_text");
  assert.equal(allowed.result.isError, undefined);
  assert.match(textOf(allowed), /simple text/i);

  const denied = await callTool(gate, "test_error_handling");
  assert.equal(denied.result.isError, true);
  assert.match(textOf(denied), /refuses every call of test_error_handling/);

  // A request of the server's own, on the call's SSE stream, reaches the
  // host; its answer goes back by POST.
  const call = callTool(gate, "test_elicitation", { message: "Who?" });
  const asked = await gate.next((m: Message) =>
    m.method === "elicitation/create"
  );
  await gate.sendMessage({
    jsonrpc: "2.0",
    id: asked.id,
    result: { action: "accept", content: { username: "ada", email: "a@b.c" } },
  });
  assert.match(textOf(await call), /ada/);

  const lines = (await Deno.readTextFile(audit)).trimEnd().split("\n")
    .map((line) => JSON.parse(line));
  assert.deepEqual(lines.map((l) => [l.tool, l.outcome]), [
    ["test_simple_text", "forwarded"],
    ["test_error_handling", "denied"],
    ["test_elicitation", "forwarded"],
  ]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("gate --url probes a remote tool and decides its patterns", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gate-remote-" });
  await Deno.mkdir(`${dir}/root`);
  await using server = await httpServer(HELLO, { HELLO_ROOT: `${dir}/root` });
  const policy = `${dir}/policy.yaml`;
  await Deno.writeTextFile(
    policy,
    'allow: ["write:notes/**"]\ndeny: ["write:secrets/**"]\n',
  );
  await using gate = await startGateProcess(
    ["--policy", policy, "--url", server.url],
    [],
  );
  const allowed = await callTool(gate, "write_file", {
    path: "notes/a.txt",
    content: "hi",
  });
  assert.equal(textOf(allowed), "Wrote 2 bytes to notes/a.txt");
  assert.equal(await Deno.readTextFile(`${dir}/root/notes/a.txt`), "hi");

  const denied = await callTool(gate, "write_file", {
    path: "secrets/k",
    content: "x",
  });
  assert.equal(denied.result.isError, true);
  assert.match(
    textOf(denied),
    /write:secrets\/k denied by write:secrets\/\*\*/,
  );
  await assert.rejects(Deno.stat(`${dir}/root/secrets`));
  await Deno.remove(dir, { recursive: true });
});

Deno.test("gate --url serves a 2026-07-28 host: each POST stands alone, the probe too", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gate-remote-" });
  await Deno.mkdir(`${dir}/root`);
  await using server = await httpServer(HELLO, { HELLO_ROOT: `${dir}/root` });
  const policy = `${dir}/policy.yaml`;
  await Deno.writeTextFile(
    policy,
    'allow: ["write:notes/**"]\ndeny: ["write:secrets/**"]\n',
  );
  // No initialize: the revision and capabilities ride on each request.
  await using gate = await startGateProcess(
    ["--policy", policy, "--url", server.url],
    [],
    { capabilities: null },
  );
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "host-2026", version: "1" },
  };
  const allowed = await callTool(gate, "write_file", {
    path: "notes/b.txt",
    content: "hi",
  }, meta);
  assert.equal(textOf(allowed), "Wrote 2 bytes to notes/b.txt");
  assert.equal(allowed.result.resultType, "complete");
  const denied = await callTool(gate, "write_file", {
    path: "secrets/k",
    content: "x",
  }, meta);
  assert.match(
    textOf(denied),
    /write:secrets\/k denied by write:secrets\/\*\*/,
  );
  assert.equal(denied.result.resultType, "complete");
  await Deno.remove(dir, { recursive: true });
});
