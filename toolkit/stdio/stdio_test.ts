import assert from "node:assert/strict";
import { spawnStdio, type StdioClient } from "../testing/stdio_client.ts";
import { StdioTransport } from "./stdio.ts";

const FIXTURE = new URL("./testdata/stdio_server.ts", import.meta.url).pathname;

/** The fixture server as a process, initialised unless told not to. */
async function spawnServer(
  env: Record<string, string> = {},
  options: { handshake?: boolean } = {},
): Promise<StdioClient> {
  const server = spawnStdio(
    Deno.execPath(),
    ["run", "-A", "--quiet", FIXTURE],
    {
      env,
      timeoutMs: 15_000,
    },
  );
  if (options.handshake !== false) {
    await server.initialize({ clientInfo: { name: "e2e", version: "1" } });
  }
  return server;
}

function assertAllJsonRpc(server: StdioClient): void {
  assert.deepEqual(server.violations, [], "stdout lines that are not JSON-RPC");
}

/** One `tools/call` request as a stdin line. */
function toolCall(
  id: number,
  name: string,
  args: Record<string, unknown>,
): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args },
  }) +
    "\n";
}

Deno.test("serve() over stdio answers results, domain errors and JSON-RPC errors as the contract says", async (t) => {
  const server = await spawnServer();
  await t.step("success", async () => {
    const response = await server.exchange("tools/call", {
      name: "echo",
      arguments: { text: "hi" },
    });
    assert.deepEqual(response.result, {
      content: [{ type: "text", text: "hi" }],
    });
  });
  await t.step("error() and a thrown ToolError give isError", async () => {
    const refused = await server.exchange("tools/call", {
      name: "refuse",
      arguments: {},
    });
    assert.deepEqual(refused.result, {
      content: [{ type: "text", text: "not allowed: /etc" }],
      isError: true,
    });
    const missing = await server.exchange("tools/call", {
      name: "missing",
      arguments: {},
    });
    assert.deepEqual(missing.result, {
      content: [{ type: "text", text: "not found: notes/todo.md" }],
      isError: true,
    });
  });
  await t.step(
    "a thrown Error gives -32603 without the stack, which goes to stderr",
    async () => {
      const response = await server.exchange("tools/call", {
        name: "boom",
        arguments: {},
      });
      const error = response.error as { code: number; message: string };
      assert.equal(error.code, -32603);
      assert.match(error.message, /database connection refused/);
      assert.doesNotMatch(error.message, /\bat\b.*\.ts:\d+/);
      assert.match(
        server.stderr,
        /database connection refused[\s\S]*stdio_server\.ts:\d+/,
      );
    },
  );
  await t.step("an unknown tool is a JSON-RPC error", async () => {
    const response = await server.exchange("tools/call", {
      name: "nope",
      arguments: {},
    });
    assert.equal((response.error as { code: number }).code, -32602);
  });
  await t.step(
    "invalid arguments give isError naming each argument",
    async () => {
      const response = await server.exchange("tools/call", {
        name: "echo",
        arguments: { txt: "hi" },
      });
      const result = response.result as {
        isError: boolean;
        content: { text: string }[];
      };
      assert.equal(result.isError, true);
      assert.equal(
        result.content[0].text,
        'Invalid arguments for tool "echo":\ntext: required\ntxt: unknown argument; did you mean "text"?',
      );
    },
  );
  await t.step(
    "tools/list shows 2020-12 object schemas and the probe flag on pattern tools only",
    async () => {
      const response = await server.exchange("tools/list", {});
      const tools =
        (response.result as { tools: Record<string, unknown>[] }).tools;
      for (const tool of tools) {
        const schema = tool.inputSchema as Record<string, unknown>;
        assert.equal(
          schema.$schema,
          "https://json-schema.org/draft/2020-12/schema",
        );
        assert.equal(schema.type, "object");
        const flagged = (tool._meta as Record<string, unknown> | undefined)?.[
          "forge.supports_permission_patterns"
        ];
        assert.equal(
          flagged === true,
          tool.name === "write_file",
          `flag on ${tool.name}`,
        );
      }
    },
  );
  await t.step(
    "a probe answers patterns without running the tool",
    async () => {
      const response = await server.exchange("tools/call", {
        name: "write_file",
        arguments: { path: "a.txt", content: "hi" },
        _meta: { "forge.permission_patterns": true },
      });
      assert.deepEqual(response.result, {
        content: [],
        _meta: { "forge.patterns": ["write:a.txt"], "forge.always": [] },
      });
    },
  );
  assert.equal((await server.close()).code, 0);
  assertAllJsonRpc(server);
});

Deno.test("serve() keeps serving after malformed lines, wrong shapes and oversized messages", async (t) => {
  const server = await spawnServer({ MAX_BYTES: String(2 * 1024 * 1024) });
  await t.step("a line that is not JSON gets -32700 with id null", async () => {
    await server.send("{not json\n");
    const response = await server.response(null);
    assert.equal((response.error as { code: number }).code, -32700);
  });
  await t.step("invalid UTF-8 gets -32700", async () => {
    const before = server.lines.length;
    await server.send(new Uint8Array([0xff, 0xfe, 0x7b, 0x0a]));
    const echoed = await server.exchange("tools/call", {
      name: "echo",
      arguments: { text: "alive" },
    });
    assert.equal(
      (echoed.result as { content: { text: string }[] }).content[0].text,
      "alive",
    );
    const errors = server.lines.slice(before).map((l) => JSON.parse(l)).filter((
      m,
    ) => m.error?.code === -32700);
    assert.equal(errors.length, 1);
    assert.match(errors[0].error.message, /UTF-8/);
  });
  await t.step(
    "wrong JSON-RPC shapes get -32600, with the id when it has one",
    async () => {
      await server.send(
        JSON.stringify({ jsonrpc: "1.0", id: 7, method: "ping" }) + "\n",
      );
      assert.equal(
        ((await server.response(7)).error as { code: number }).code,
        -32600,
      );
      await server.send(
        JSON.stringify({ jsonrpc: "2.0", id: 8, method: 42 }) + "\n",
      );
      assert.equal(
        ((await server.response(8)).error as { code: number }).code,
        -32600,
      );
      await server.send(
        JSON.stringify([{ jsonrpc: "2.0", id: 9, method: "ping" }]) + "\n",
      );
      await server.send("42\n");
      const echoed = await server.exchange("tools/call", {
        name: "echo",
        arguments: { text: "still" },
      });
      assert.equal(
        (echoed.result as { content: { text: string }[] }).content[0].text,
        "still",
      );
      const invalid = server.lines.map((l) => JSON.parse(l)).filter((m) =>
        m.error?.code === -32600
      );
      assert.equal(invalid.length, 4);
    },
  );
  await t.step("a 1 MiB argument is answered", async () => {
    const big = "x".repeat(1024 * 1024);
    const response = await server.exchange("tools/call", {
      name: "length",
      arguments: { text: big },
    });
    assert.equal(
      (response.result as { content: { text: string }[] }).content[0].text,
      String(big.length),
    );
  });
  await t.step(
    "a message over the limit gets an error with its id, and serving goes on",
    async () => {
      const huge = JSON.stringify({
        jsonrpc: "2.0",
        id: 77,
        method: "tools/call",
        params: {
          name: "echo",
          arguments: { text: "y".repeat(3 * 1024 * 1024) },
        },
      });
      await server.send(huge + "\n");
      const response = await server.response(77);
      const error = response.error as { code: number; message: string };
      assert.equal(error.code, -32600);
      assert.match(error.message, /exceeds the limit of 2097152 bytes/);
      const echoed = await server.exchange("tools/call", {
        name: "echo",
        arguments: { text: "after" },
      });
      assert.equal(
        (echoed.result as { content: { text: string }[] }).content[0].text,
        "after",
      );
    },
  );
  assert.equal((await server.close()).code, 0);
  assertAllJsonRpc(server);
});

Deno.test("serve() over stdio answers requests before initialize with -32600, except ping", async () => {
  const server = await spawnServer({}, { handshake: false });
  try {
    await server.send(toolCall(1, "echo", { text: "early" }));
    const early = await server.response(1);
    assert.equal((early.error as { code: number }).code, -32600);
    assert.match(
      (early.error as { message: string }).message,
      /^Server not initialized: send initialize before tools\/call/,
    );
    assert.deepEqual((await server.exchange("ping")).result, {});
    const init = await server.exchange("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "e2e", version: "1" },
    });
    assert.equal(
      (init.result as { protocolVersion: string }).protocolVersion,
      "2025-11-25",
    );
    await server.send(toolCall(9, "echo", { text: "late" }));
    assert.deepEqual((await server.response(9)).result, {
      content: [{ type: "text", text: "late" }],
    });
  } finally {
    assert.equal((await server.close()).code, 0);
  }
  assertAllJsonRpc(server);
});

Deno.test("serve() sends console output to stderr so stdout stays JSON-RPC only", async () => {
  const server = await spawnServer();
  const response = await server.exchange("tools/call", {
    name: "chatty",
    arguments: {},
  });
  assert.deepEqual(response.result, {
    content: [{ type: "text", text: "done" }],
  });
  assert.equal((await server.close()).code, 0);
  assertAllJsonRpc(server);
  const stderr = server.stderr;
  for (
    const expected of [
      "console.log from a handler",
      "console.info from a handler",
      "nested",
      "dir: true",
      "calls: 1",
      "t: ",
    ]
  ) {
    assert.ok(stderr.includes(expected), `stderr lacks ${expected}: ${stderr}`);
  }
});

Deno.test("serve() answers 1000 concurrent calls", async () => {
  const server = await spawnServer();
  const payload = Array.from({ length: 1000 }, (_, i) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: i,
      method: "tools/call",
      params: { name: "echo", arguments: { text: `n${i}` } },
    }) + "\n").join("");
  await server.send(payload);
  for (let i = 0; i < 1000; i++) {
    const response = await server.response(i);
    assert.equal(
      (response.result as { content: { text: string }[] }).content[0].text,
      `n${i}`,
    );
  }
  assert.equal((await server.close()).code, 0);
  assertAllJsonRpc(server);
});

Deno.test("serve() on stdin EOF writes the in-flight answer, then exits 0", async () => {
  const server = await spawnServer();
  await server.send(
    toolCall(1, "slow", { ms: 300 }),
  );
  await server.waitForStderr(/^slow: sleeping 300 ms$/);
  const status = await server.close();
  assert.equal(status.code, 0);
  const answer = await server.response(1);
  assert.deepEqual(answer.result, {
    content: [{ type: "text", text: "slept 300" }],
  });
});

Deno.test("serve() on SIGTERM writes the in-flight answer, refuses new calls, then exits 0", async () => {
  const server = await spawnServer();
  await server.send(
    toolCall(1, "slow", { ms: 400 }),
  );
  await server.waitForStderr(/^slow: sleeping 400 ms$/);
  server.kill("SIGTERM");
  // The server's own word that it takes no more calls.
  await server.waitForStderr(/^stdio_server: SIGTERM received/);
  await server.send(
    toolCall(2, "echo", { text: "late" }),
  ).catch(() => {});
  const status = await server.close();
  assert.equal(status.code, 0);
  assert.deepEqual((await server.response(1)).result, {
    content: [{ type: "text", text: "slept 400" }],
  });
  const late = await server.response(2).catch(() => undefined);
  if (late !== undefined) assert.match(late.error!.message, /shutting down/);
});

Deno.test("serve() aborts calls still running after the grace period and still answers them", async () => {
  const server = await spawnServer({ GRACE_MS: "100" });
  await server.send(
    toolCall(1, "slow", { ms: 60_000 }),
  );
  await server.waitForStderr(/^slow: sleeping 60000 ms$/);
  const started = performance.now();
  const status = await server.close();
  assert.equal(status.code, 0);
  assert.ok(
    performance.now() - started < 10_000,
    "exit was not bounded by the grace period",
  );
  const answer = await server.response(1);
  assert.equal(answer.error?.code, -32603);
  assert.match(answer.error!.message, /shut down before the tool finished/);
});

/** A byte stream that writes each piece into the reader's own buffer, as stdin does. */
function byteStream(pieces: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const queue = pieces.map((piece) => encoder.encode(piece));
  return new ReadableStream({
    type: "bytes",
    pull(controller) {
      const piece = queue.shift();
      if (piece === undefined) {
        controller.close();
        controller.byobRequest?.respond(0);
        return;
      }
      const request = controller.byobRequest!;
      const view = request.view as Uint8Array;
      view.set(piece);
      request.respond(piece.length);
    },
  });
}

async function receiveAll(
  readable: ReadableStream<Uint8Array>,
): Promise<unknown[]> {
  const received: unknown[] = [];
  const transport = new StdioTransport({
    readable,
    writable: new WritableStream(),
  });
  const ended = new Promise<void>((resolve) => (transport.onend = resolve));
  transport.onmessage = (message) => received.push(message);
  await transport.start();
  await ended;
  await transport.close();
  return received;
}

Deno.test("StdioTransport reassembles messages split across reads", async (t) => {
  const first = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
  const second = '{"jsonrpc":"2.0","id":"two","method":"tools/list"}';
  const pieces = [
    first.slice(0, 10),
    first.slice(10) + "\n" + second.slice(0, 25),
    second.slice(25, 40),
    second.slice(40) + "\n",
  ];
  const expected = [JSON.parse(first), JSON.parse(second)];
  await t.step("from a byte stream whose read buffer is reused", async () => {
    assert.deepEqual(await receiveAll(byteStream(pieces)), expected);
  });
  await t.step("from a stream of chunks", async () => {
    const encoder = new TextEncoder();
    const chunks = ReadableStream.from(pieces.map((p) => encoder.encode(p)));
    assert.deepEqual(await receiveAll(chunks), expected);
  });
});

Deno.test("StdioTransport takes a literal U+FFFD but answers invalid UTF-8 with -32700", async () => {
  const written: string[] = [];
  const received: unknown[] = [];
  const decoder = new TextDecoder();
  const valid = new TextEncoder().encode(
    '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"note":"\uFFFD"}}}\n',
  );
  const invalid = Uint8Array.from([
    ...new TextEncoder().encode(
      '{"jsonrpc":"2.0","id":2,"method":"ping","x":"',
    ),
    0xff,
    ...new TextEncoder().encode('"}\n'),
  ]);
  const transport = new StdioTransport({
    readable: ReadableStream.from([valid, invalid]),
    writable: new WritableStream({
      write: (chunk) => void written.push(decoder.decode(chunk)),
    }),
  });
  const ended = new Promise<void>((resolve) => (transport.onend = resolve));
  transport.onmessage = (message) => received.push(message);
  await transport.start();
  await ended;
  await transport.close();
  assert.deepEqual(received, [{
    jsonrpc: "2.0",
    id: 1,
    method: "ping",
    params: { _meta: { note: "\uFFFD" } },
  }]);
  assert.deepEqual(JSON.parse(written.join("")), {
    jsonrpc: "2.0",
    id: null,
    error: {
      code: -32700,
      message: "Parse error: the message is not valid UTF-8",
    },
  });
});

Deno.test("StdioTransport hands onerror an Error when its input fails with anything else", async (t) => {
  for (
    const [label, handler] of [
      ["a read that fails with a string", undefined],
      ["an onmessage that throws a string", () => {
        throw "not an Error";
      }],
    ] as const
  ) {
    await t.step(label, async () => {
      const readable = handler === undefined
        ? new ReadableStream<Uint8Array>({
          pull: (controller) => controller.error("not an Error"),
        })
        : ReadableStream.from([
          new TextEncoder().encode(
            '{"jsonrpc":"2.0","id":1,"method":"ping"}\n',
          ),
        ]);
      const transport = new StdioTransport({
        readable,
        writable: new WritableStream(),
      });
      const failed = Promise.withResolvers<unknown>();
      transport.onerror = failed.resolve;
      transport.onmessage = handler;
      await transport.start();
      const error = await failed.promise;
      assert.ok(error instanceof Error, `got ${typeof error}`);
      assert.equal(error.message, "not an Error");
      await transport.close();
    });
  }
});
