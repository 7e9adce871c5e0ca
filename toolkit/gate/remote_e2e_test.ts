// The gate in front of a remote server (--url): Streamable HTTP to the
// server, stdio to the host, the same decisions, probe and audit.

import assert from "node:assert/strict";
import {
  callTool,
  type Message,
  rpc,
  runGate,
  startGateProcess,
  textOf,
} from "./testdata/gate_process.ts";
import { httpServer } from "./testdata/http_server.ts";

const EVERYTHING = new URL("../../examples/everything/main.ts", import.meta.url)
  .pathname;
const HELLO = new URL("../../examples/hello-tool/main.ts", import.meta.url)
  .pathname;

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

Deno.test("gate --url mirrors a 2026-07-28 call's marked arguments in Mcp-Param headers", async () => {
  await using server = await httpServer(EVERYTHING);
  const dir = await Deno.makeTempDir({ prefix: "gate-remote-" });
  const policy = `${dir}/policy.yaml`;
  await Deno.writeTextFile(policy, "unprobed: allow\n");
  await using gate = await startGateProcess(
    ["--policy", policy, "--url", server.url],
    [],
    { capabilities: null },
  );
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  // The server refuses the call unless Mcp-Param-Region carries the region
  // (SEP-2243), which the tool's x-mcp-header mark asks for.
  const answer = await callTool(gate, "test_mirrored_header", {
    region: "Zürich",
    query: "q",
  }, meta);
  assert.equal(answer.error, undefined, JSON.stringify(answer.error));
  assert.equal(textOf(answer), 'Looked up "q" in Zürich');
  await Deno.remove(dir, { recursive: true });
});

Deno.test("pins accept --url pins what the remote server lists now, with its headers", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "gate-remote-pins-" });
  await Deno.mkdir(`${dir}/root`);
  await using server = await httpServer(HELLO, { HELLO_ROOT: `${dir}/root` });
  const pins = `${dir}/pins.json`;
  const pinsAccept = (...args: string[]) =>
    runGate(["pins", "accept", pins, ...args]);
  try {
    await t.step("named tools only, with a header sent along", async () => {
      // A pass-through in front of the server notes the header of each request.
      const traces: (string | null)[] = [];
      await using proxy = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen() {} },
        (request) => {
          traces.push(request.headers.get("x-trace"));
          return fetch(server.url, {
            method: request.method,
            headers: request.headers,
            body: request.body,
          });
        },
      );
      const run = await pinsAccept(
        "hello",
        "--url",
        `http://127.0.0.1:${proxy.addr.port}/mcp`,
        "--header",
        "X-Trace: pins",
      );
      assert.equal(run.code, 0, run.stderr);
      assert.ok(traces.length >= 2, `${traces.length} requests`);
      assert.deepEqual(new Set(traces), new Set(["pins"]));
      assert.match(
        run.stdout,
        /^accepted hello@[0-9a-f]{64}: ".+" \(as listed now\)\n$/,
      );
      const file = JSON.parse(await Deno.readTextFile(pins));
      assert.deepEqual(Object.keys(file.tools), ["hello"]);
      assert.match(file.tools.hello.digest, /^[0-9a-f]{64}$/);
    });
    await t.step("every tool it lists when none is named", async () => {
      const run = await pinsAccept("--url", server.url);
      assert.equal(run.code, 0, run.stderr);
      const file = JSON.parse(await Deno.readTextFile(pins));
      assert.deepEqual(Object.keys(file.tools).sort(), [
        "delete_file",
        "hello",
        "write_file",
      ]);
    });
    await t.step("a tool the server does not list exits 1", async () => {
      const run = await pinsAccept("nope", "--url", server.url);
      assert.equal(run.code, 1);
      assert.match(
        run.stderr,
        /Nothing to accept for nope: the server does not list it/,
      );
    });
    await t.step(
      "a bad command line exits 2 saying what was expected",
      async () => {
        for (
          const [args, message] of [
            [
              ["--url", "ftp://x"],
              /Invalid --url: ftp:\/\/x: expected an http:\/\/ or https:\/\/ URL/,
            ],
            [["--url"], /Missing the value of --url/],
            [
              ["--header", "X: y"],
              /--header needs --url: headers are for an HTTP server/,
            ],
            [
              ["--url", server.url, "--", "deno"],
              /Both --url and a server command/,
            ],
            [
              ["--url", server.url, "--header", "no colon"],
              /Invalid --header: "no colon": expected 'Name: value'/,
            ],
            [["--verbose"], /Unknown option: --verbose: expected tool names/],
          ] as const
        ) {
          const run = await pinsAccept(...args);
          assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
          assert.match(run.stderr, message);
          assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
        }
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("gate --url fronts everything --http in both eras, its priming events included", async (t) => {
  // Resumable (eventHistory): each stream to a 2025-11-25 client opens
  // with a priming event, an id and empty data.
  await using server = await httpServer(EVERYTHING);
  const dir = await Deno.makeTempDir({ prefix: "gate-remote-" });
  const policy = `${dir}/policy.yaml`;
  await Deno.writeTextFile(policy, "unprobed: allow\n");
  try {
    await t.step("2025-11-25, with initialize", async () => {
      await using gate = await startGateProcess(
        ["--policy", policy, "--url", server.url],
        [],
        { capabilities: null },
      );
      const init = await rpc(gate, "initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "host-2025", version: "1" },
      });
      assert.equal(
        init.result?.protocolVersion,
        "2025-11-25",
        init.error?.message,
      );
      await gate.notify("notifications/initialized");
      const listed = await rpc(gate, "tools/list");
      const names = listed.result.tools.map((tool: Message) => tool.name);
      assert.ok(names.includes("test_simple_text"), JSON.stringify(names));
      assert.match(
        textOf(await callTool(gate, "test_simple_text")),
        /simple text/i,
      );
    });
    await t.step("2026-07-28, each request standing alone", async () => {
      await using gate = await startGateProcess(
        ["--policy", policy, "--url", server.url],
        [],
        { capabilities: null },
      );
      const meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {
          name: "host-2026",
          version: "1",
        },
      };
      const listed = await rpc(gate, "tools/list", { _meta: meta });
      const names = (listed.result?.tools ?? []).map((tool: Message) =>
        tool.name
      );
      assert.ok(names.includes("test_simple_text"), JSON.stringify(listed));
      const called = await callTool(gate, "test_simple_text", {}, meta);
      assert.match(textOf(called), /simple text/i);
      assert.equal(called.result.resultType, "complete");
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** The documented grace: the server's 1 s, then 1 s after SIGTERM. */
const SHUTDOWN_MS = 2000;

Deno.test("gate --url stops within its grace when a call's stream never ends", async (t) => {
  const hold = new AbortController();
  let seen = Promise.withResolvers<void>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      if (request.method !== "POST") return new Response(null, { status: 405 });
      const message = await request.json();
      if (message.method === "initialize") {
        return Response.json({
          jsonrpc: "2.0",
          id: message.id,
          result: {
            protocolVersion: message.params.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: "endless", version: "1" },
          },
        });
      }
      if (message.method !== "tools/call") {
        return new Response(null, { status: 202 });
      }
      seen.resolve();
      // A keep-alive, then nothing, ever.
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(": working\n\n"));
          hold.signal.addEventListener("abort", () => {
            try {
              controller.close();
            } catch {
              // The gate closed it already.
            }
          });
        },
      });
      return new Response(body, {
        headers: { "content-type": "text/event-stream" },
      });
    },
  );
  const url = `http://127.0.0.1:${server.addr.port}/mcp`;
  const dir = await Deno.makeTempDir({ prefix: "gate-remote-" });
  const policy = `${dir}/policy.yaml`;
  await Deno.writeTextFile(policy, "unprobed: allow\n");
  /** Starts a gate with a call under way on a stream that never ends. */
  const endless = async () => {
    seen = Promise.withResolvers<void>();
    const gate = await startGateProcess(["--policy", policy, "--url", url], []);
    const answer = callTool(gate, "wait_forever");
    await seen.promise;
    return { gate, answer };
  };
  /** Rejects unless the gate has exited within the grace (and a second to spare). */
  const exited = async (status: Promise<Deno.CommandStatus>) => {
    const started = performance.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      status,
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error("The gate did not exit")),
          SHUTDOWN_MS + 1000,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    return performance.now() - started;
  };
  try {
    await t.step("after host EOF", async () => {
      const { gate, answer } = await endless();
      await using _ = gate;
      answer.catch(() => {});
      const took = await exited(gate.close());
      assert.ok(took < SHUTDOWN_MS + 1000, `${took} ms`);
    });
    await t.step("after SIGTERM", async () => {
      const { gate, answer } = await endless();
      await using _ = gate;
      gate.kill("SIGTERM");
      const took = await exited(gate.status);
      // The host still connected gets an answer for its call.
      const error = (await answer).error;
      assert.equal(error?.code, -32000);
      assert.equal(
        error?.message,
        "The gate stopped before the server answered",
      );
      assert.ok(took < SHUTDOWN_MS + 1000, `${took} ms`);
    });
  } finally {
    hold.abort();
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("gate --url answers -32000 to an endless answer, reads little past 16 MiB, and serves on", async () => {
  const bound = 16 * 1024 * 1024;
  const filler = new TextEncoder().encode("x".repeat(64 * 1024));
  const stop = new AbortController();
  let sent = 0;
  const overread = Promise.withResolvers<never>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      if (request.method !== "POST") return new Response(null, { status: 405 });
      const message = await request.json();
      const reply = (result: unknown) =>
        Response.json({ jsonrpc: "2.0", id: message.id, result });
      if (message.method === "initialize") {
        return reply({
          protocolVersion: message.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "flood", version: "1" },
        });
      }
      if (message.method !== "tools/call") {
        return new Response(null, { status: 202 });
      }
      if (message.params.name !== "huge") {
        return reply({ content: [{ type: "text", text: "small" }] });
      }
      // An answer that starts well and never ends.
      const head = `{"jsonrpc":"2.0","id":${
        JSON.stringify(message.id)
      },"result":{"content":[{"type":"text","text":"`;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(head));
        },
        pull(controller) {
          if (stop.signal.aborted) return controller.close();
          sent += filler.byteLength;
          if (sent > 2 * bound) {
            const error = new Error(`The gate read ${sent} bytes`);
            overread.reject(error);
            return controller.error(error);
          }
          controller.enqueue(filler);
        },
      });
      return new Response(body, {
        headers: { "content-type": "application/json" },
      });
    },
  );
  const dir = await Deno.makeTempDir({ prefix: "gate-remote-" });
  const policy = `${dir}/policy.yaml`;
  await Deno.writeTextFile(policy, "unprobed: allow\n");
  try {
    await using gate = await startGateProcess([
      "--policy",
      policy,
      "--url",
      `http://127.0.0.1:${server.addr.port}/mcp`,
    ], []);
    const answer = await Promise.race([
      callTool(gate, "huge"),
      overread.promise,
    ]);
    assert.equal(answer.error?.code, -32000);
    assert.match(
      answer.error?.message,
      /^The server's answer is too large: expected at most 16777216 bytes \(16 MiB\), got more$/,
    );
    assert.ok(sent < 2 * bound, `${sent} bytes sent`);
    assert.equal(textOf(await callTool(gate, "small")), "small");
  } finally {
    stop.abort();
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
