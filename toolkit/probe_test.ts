import assert from "node:assert/strict";
import { z } from "zod";
import {
  type AccessList,
  isProbe,
  patternsOf,
  type PatternToolContext,
  registerPatternTool,
  wrapProbe,
} from "./probe.ts";
import {
  META_ALWAYS,
  META_PATTERNS,
  META_PERMISSION_PATTERNS,
  META_SUPPORTS_PERMISSION_PATTERNS,
} from "./patterns/probe_meta.ts";
import { text, ToolError } from "./result/result.ts";
import { createServer } from "./server/server.ts";
import type { ToolContext } from "./server/context.ts";
import { connect, RpcError } from "./testing/testing.ts";

/** A handler context as the server would pass it, with the given `_meta`. */
function fakeContext(meta: Record<string, unknown> = {}): ToolContext {
  const log = { debug() {}, info() {}, warning() {}, error() {}, log() {} };
  return {
    signal: new AbortController().signal,
    meta,
    requestId: 1,
    sessionId: undefined,
    toolName: "write_file",
    progress: () => Promise.resolve(),
    log,
    sample: () => Promise.reject(new Error("no sampling in this test")),
    elicit: () => Promise.reject(new Error("no elicitation in this test")),
    roots: () => Promise.reject(new Error("no roots in this test")),
    urlElicitationRequired: () => new Error("no elicitation in this test"),
    detach: () => Promise.reject(new Error("no tasks in this test")),
  };
}

const PROBE_META = { [META_PERMISSION_PATTERNS]: true };

/** Runs `fn`, asserts it throws a plain Error (not a ToolError), returns it. */
function plainErrorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof Error, `expected an Error, got ${err}`);
    assert.equal(err instanceof ToolError, false, "must not be a ToolError");
    assert.equal(err.constructor, Error);
    return err;
  }
  assert.fail("expected an Error, but nothing was thrown");
}

/** Awaits `promise`, asserts it rejects with an RpcError, returns it. */
async function rpcErrorOf(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof RpcError, `expected an RpcError, got ${err}`);
    return err;
  }
  assert.fail("expected a JSON-RPC error, but the call succeeded");
}

Deno.test("the probe constants have exactly the values hosts send and read", () => {
  assert.equal(META_PERMISSION_PATTERNS, "forge.permission_patterns");
  assert.equal(META_PATTERNS, "forge.patterns");
  assert.equal(META_ALWAYS, "forge.always");
  assert.equal(
    META_SUPPORTS_PERMISSION_PATTERNS,
    "forge.supports_permission_patterns",
  );
});

Deno.test("isProbe() is true only when the flag is exactly true", async (t) => {
  await t.step("on a context", () => {
    assert.equal(isProbe(fakeContext(PROBE_META)), true);
    assert.equal(isProbe(fakeContext()), false);
    assert.equal(
      isProbe({ meta: { [META_PERMISSION_PATTERNS]: false } }),
      false,
    );
  });

  await t.step("on a _meta object", () => {
    assert.equal(isProbe(PROBE_META), true);
    assert.equal(isProbe({}), false);
    assert.equal(isProbe({ "other.flag": true }), false);
  });

  await t.step("truthy values that are not true do not count", () => {
    for (const flag of ["true", 1, {}, [true], "yes"]) {
      assert.equal(
        isProbe({ [META_PERMISSION_PATTERNS]: flag }),
        false,
        `${flag}`,
      );
      assert.equal(
        isProbe({ meta: { [META_PERMISSION_PATTERNS]: flag } }),
        false,
        `${flag}`,
      );
    }
  });

  await t.step("nothing at all", () => {
    assert.equal(isProbe(undefined), false);
    assert.equal(isProbe({ meta: undefined }), false);
  });
});

Deno.test("patternsOf() flattens strings and accesses in order", async (t) => {
  await t.step("mixed list", () => {
    assert.deepEqual(
      patternsOf([
        "read:a.txt",
        { patterns: ["delete:a", "write:b"] },
        "net:https://example.com",
        { patterns: [] },
        "exec:git status",
        "x-deploy:prod",
      ]),
      [
        "read:a.txt",
        "delete:a",
        "write:b",
        "net:https://example.com",
        "exec:git status",
        "x-deploy:prod",
      ],
    );
  });

  await t.step("empty list", () => {
    assert.deepEqual(patternsOf([]), []);
  });

  await t.step("an access may carry more than its patterns", () => {
    const access = { patterns: ["write:notes/a.md"], path: "/w/notes/a.md" };
    assert.deepEqual(patternsOf([access]), ["write:notes/a.md"]);
  });

  await t.step("targets may hold colons, spaces and non-ASCII in NFC", () => {
    const list = ["net:http://h:8080", "write:a b.txt", "write:caf\u00e9"];
    assert.deepEqual(patternsOf(list), list);
  });
});

Deno.test("patternsOf() refuses a malformed pattern with a plain Error naming it", async (t) => {
  const cases: [string, AccessList, RegExp][] = [
    [
      "uppercase verb",
      ["WRITE:a.txt"],
      /^Invalid permission pattern "WRITE:a\.txt": unknown verb "WRITE": .*verbs are lowercase: "write"/,
    ],
    [
      "unknown verb",
      ["push:origin"],
      /^Invalid permission pattern "push:origin": unknown verb "push": expected one of read, write, delete, exec, net or x-<name>$/,
    ],
    [
      "no colon",
      ["write"],
      /^Invalid permission pattern "write": expected "verb:target"/,
    ],
    [
      "empty target",
      ["write:"],
      /^Invalid permission pattern "write:": empty target/,
    ],
    [
      "control character",
      ["write:a\u0007b"],
      /: target contains control character U\+0007 at offset 1$/,
    ],
    [
      "NUL",
      ["read:a\u0000"],
      /: target contains control character U\+0000 at offset 1$/,
    ],
    [
      "NFD target",
      ["write:cafe\u0301"],
      /: target is not in Unicode NFC form$/,
    ],
    [
      "inside an access",
      ["read:ok", { patterns: ["write:ok", "Delete:x"] }],
      /^Invalid permission pattern "Delete:x"/,
    ],
  ];
  for (const [label, list, message] of cases) {
    await t.step(label, () => {
      assert.match(plainErrorOf(() => patternsOf(list)).message, message);
    });
  }

  await t.step("not a list, or an item of the wrong shape", () => {
    assert.match(
      plainErrorOf(() => patternsOf("write:a" as unknown as AccessList))
        .message,
      /^Invalid permission patterns: expected an array of patterns or accesses, got string$/,
    );
    for (const item of [42, null, {}, { patterns: "write:a" }]) {
      assert.match(
        plainErrorOf(() => patternsOf([item] as unknown as AccessList)).message,
        /^Invalid permission patterns: expected a pattern string or an object with `patterns`$/,
      );
    }
    assert.match(
      plainErrorOf(() =>
        patternsOf([{ patterns: [7] }] as unknown as AccessList)
      )
        .message,
      /^Invalid permission pattern 7: expected a string "verb:target", got number$/,
    );
  });
});

Deno.test("wrapProbe() never runs the handler in probe mode", async (t) => {
  let ran = 0;
  const seen: unknown[] = [];
  const wrapped = wrapProbe(
    {
      patterns: (args: { path: string }, ctx) => {
        seen.push([args, ctx.toolName]);
        return [`write:${args.path}`];
      },
      always: ["read:config.json"],
    },
    () => {
      ran++;
      return text("written");
    },
  );

  await t.step("the probe answers the patterns and always", async () => {
    const result = await wrapped({ path: "a.txt" }, fakeContext(PROBE_META));
    assert.deepEqual(result, {
      content: [],
      _meta: {
        [META_PATTERNS]: ["write:a.txt"],
        [META_ALWAYS]: ["read:config.json"],
      },
    });
    assert.equal(ran, 0);
    assert.deepEqual(seen, [[{ path: "a.txt" }, "write_file"]]);
  });

  await t.step("under any input", async () => {
    for (const path of ["b.txt", "dir/c.md", "../escape", "x".repeat(10_000)]) {
      const result = await wrapped({ path }, fakeContext(PROBE_META));
      assert.deepEqual(result._meta?.[META_PATTERNS], [`write:${path}`]);
    }
    assert.equal(ran, 0);
  });

  await t.step("each answer has its own always list", async () => {
    const first = await wrapped({ path: "a" }, fakeContext(PROBE_META));
    (first._meta![META_ALWAYS] as string[]).push("write:/etc/passwd");
    const second = await wrapped({ path: "a" }, fakeContext(PROBE_META));
    assert.deepEqual(second._meta![META_ALWAYS], ["read:config.json"]);
  });

  await t.step("without always, the list is empty", async () => {
    const bare = wrapProbe(
      { patterns: () => ["exec:ls"] },
      () => {
        ran++;
        return text("ran");
      },
    );
    assert.deepEqual(await bare({}, fakeContext(PROBE_META)), {
      content: [],
      _meta: { [META_PATTERNS]: ["exec:ls"], [META_ALWAYS]: [] },
    });
    assert.equal(ran, 0);
  });
});

Deno.test("wrapProbe() runs a real call with ctx.access, computed once", async () => {
  const returned: AccessList[] = [];
  let patternCalls = 0;
  let received: PatternToolContext<AccessList> | undefined;
  const ctx = fakeContext({ progressToken: "p1" });
  const wrapped = wrapProbe(
    {
      patterns: async (args: { from: string; to: string }) => {
        patternCalls++;
        await Promise.resolve();
        const access = [
          { patterns: [`delete:${args.from}`], resolved: `/w/${args.from}` },
          `write:${args.to}`,
        ];
        returned.push(access);
        return access;
      },
    },
    (args, handlerCtx) => {
      received = handlerCtx;
      return text(`renamed ${args.from} to ${args.to}`);
    },
  );
  const result = await wrapped({ from: "a", to: "b" }, ctx);
  assert.deepEqual(result, {
    content: [{ type: "text", text: "renamed a to b" }],
  });
  assert.equal(patternCalls, 1);
  assert.ok(received !== undefined);
  // The very array the patterns function returned, not a copy.
  assert.equal(received.access, returned[0]);
  assert.equal(received.signal, ctx.signal);
  assert.equal(received.meta, ctx.meta);
  assert.equal(received.requestId, 1);
});

Deno.test("wrapProbe() hands the handler every member of the call's context, read live", async () => {
  const seen: unknown[][] = [];
  const auth = { token: "t", clientId: "c", scopes: [], claims: {} };
  let taskId: string | undefined;
  const ctx: ToolContext = {
    ...fakeContext({ k: 1 }),
    auth,
    get taskId() {
      return taskId;
    },
    progress: (
      ...args
    ) => (seen.push(["progress", ...args]), Promise.resolve()),
    sample: (params) => (seen.push(["sample", params]),
      Promise.resolve({
        role: "assistant",
        content: { type: "text", text: "s" },
        model: "m",
      })),
    elicit: (params) => (seen.push(["elicit", params]),
      Promise.resolve({
        action: "decline",
      })),
    roots:
      () => (seen.push(["roots"]), Promise.resolve([{ uri: "file:///r" }])),
    urlElicitationRequired: (e) => (seen.push(["url", e]), new Error("visit")),
    detach: () => {
      seen.push(["detach"]);
      taskId = "task-1";
      return Promise.resolve();
    },
  };
  const wrapped = wrapProbe(
    { patterns: () => ["write:a"] },
    async (_args, c) => {
      assert.deepEqual(c.access, ["write:a"]);
      assert.equal(c.signal, ctx.signal);
      assert.equal(c.meta, ctx.meta);
      assert.equal(c.requestId, 1);
      assert.equal(c.sessionId, undefined);
      assert.equal(c.toolName, "write_file");
      assert.equal(c.log, ctx.log);
      assert.equal(c.auth, auth);
      assert.equal(c.taskId, undefined);
      await c.progress(1, 2, "half");
      assert.equal((await c.sample({ messages: [], maxTokens: 1 })).model, "m");
      assert.equal(
        (await c.elicit({
          message: "m",
          requestedSchema: { type: "object", properties: {} },
        })).action,
        "decline",
      );
      assert.deepEqual(await c.roots(), [{ uri: "file:///r" }]);
      assert.equal(c.urlElicitationRequired([]).message, "visit");
      await c.detach();
      // The call became a task midway: the handler's context says so.
      assert.equal(c.taskId, "task-1");
      return text("done");
    },
  );
  assert.deepEqual(await wrapped({}, ctx), {
    content: [{ type: "text", text: "done" }],
  });
  assert.deepEqual(seen.map(([name]) => name), [
    "progress",
    "sample",
    "elicit",
    "roots",
    "url",
    "detach",
  ]);
  assert.deepEqual(seen[0], ["progress", 1, 2, "half"]);
});

Deno.test("wrapProbe() checks patterns before the handler can run", async (t) => {
  await t.step("a malformed `always` fails at wrap time", () => {
    let patternCalls = 0;
    const err = plainErrorOf(() =>
      wrapProbe(
        {
          patterns: () => {
            patternCalls++;
            return [];
          },
          always: ["read:ok", "Read:config"],
        },
        () => text("never"),
      )
    );
    assert.match(err.message, /^Invalid permission pattern "Read:config"/);
    assert.equal(patternCalls, 0);
  });

  await t.step(
    "a malformed computed pattern fails a real call too",
    async () => {
      let ran = 0;
      const wrapped = wrapProbe(
        { patterns: () => ["write:ok", "write:bad\u0001"] },
        () => {
          ran++;
          return text("ran");
        },
      );
      for (const ctx of [fakeContext(), fakeContext(PROBE_META)]) {
        await assert.rejects(
          () => wrapped({}, ctx),
          (err: unknown) =>
            err instanceof Error && !(err instanceof ToolError) &&
            /control character U\+0001/.test(err.message),
        );
      }
      assert.equal(ran, 0);
    },
  );

  await t.step(
    "a ToolError from patterns reaches the caller in both modes",
    async () => {
      let ran = 0;
      const wrapped = wrapProbe(
        {
          patterns: (args: { path: string }): string[] => {
            throw new ToolError(`path: leaves the root: ${args.path}`);
          },
        },
        () => {
          ran++;
          return text("ran");
        },
      );
      for (const ctx of [fakeContext(), fakeContext(PROBE_META)]) {
        await assert.rejects(
          () => wrapped({ path: "../x" }, ctx),
          (err: unknown) =>
            err instanceof ToolError &&
            err.message === "path: leaves the root: ../x",
        );
      }
      assert.equal(ran, 0);
    },
  );
});

/** A server with one pattern tool and one plain tool, counting side effects. */
function probeServer() {
  const counts = { write: 0, writePatterns: 0, read: 0, rename: 0 };
  const accesses: unknown[] = [];
  const returned: unknown[] = [];
  const server = createServer({ name: "probe-test", version: "0.0.0" });
  registerPatternTool(server, {
    name: "write_file",
    description: "Writes a text file under the root",
    input: z.object({ path: z.string(), content: z.string() }),
    _meta: { "x.owner": "tests" },
    always: ["read:config.json"],
    patterns: ({ path }) => {
      counts.writePatterns++;
      if (path.startsWith("..")) {
        throw new ToolError(`path: leaves the root: ${path}`);
      }
      const list = path === "bad" ? ["WRITE:bad"] : [`write:${path}`];
      returned.push(list);
      return list;
    },
    handler: ({ path }, ctx) => {
      counts.write++;
      accesses.push(ctx.access);
      return text(`written ${path}`);
    },
  });
  registerPatternTool(server, {
    name: "rename",
    description: "Renames a file",
    input: {
      type: "object",
      properties: { from: { type: "string" }, to: { type: "string" } },
      required: ["from", "to"],
    },
    patterns: (
      args,
    ) => [{ patterns: [`delete:${args.from}`, `write:${args.to}`] }],
    handler: () => {
      counts.rename++;
      return text("renamed");
    },
  });
  server.tool({
    name: "read_file",
    description: "Reads a file",
    input: z.object({ path: z.string() }),
    handler: () => {
      counts.read++;
      return text("contents");
    },
  });
  return { server, counts, accesses, returned };
}

Deno.test("registerPatternTool() marks pattern tools, and only them, in tools/list", async () => {
  const { server } = probeServer();
  await using client = await connect(server);
  const tools = await client.listTools();
  const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
  assert.deepEqual(byName.write_file._meta, {
    "x.owner": "tests",
    [META_SUPPORTS_PERMISSION_PATTERNS]: true,
  });
  assert.deepEqual(byName.rename._meta, {
    [META_SUPPORTS_PERMISSION_PATTERNS]: true,
  });
  assert.equal(
    byName.read_file._meta?.[META_SUPPORTS_PERMISSION_PATTERNS],
    undefined,
  );
  assert.equal(byName.write_file.inputSchema.type, "object");
});

Deno.test("registerPatternTool() answers a probe with the exact shape and runs nothing", async (t) => {
  const { server, counts } = probeServer();
  await using client = await connect(server);

  await t.step("the raw result", async () => {
    const result = await client.request("tools/call", {
      name: "write_file",
      arguments: { path: "a.txt", content: "hi" },
      _meta: { [META_PERMISSION_PATTERNS]: true },
    });
    assert.deepEqual(result, {
      content: [],
      _meta: {
        "forge.patterns": ["write:a.txt"],
        "forge.always": ["read:config.json"],
      },
    });
    assert.equal(counts.write, 0);
  });

  await t.step("through the test client's probe()", async () => {
    assert.deepEqual(await client.probe("rename", { from: "a", to: "b" }), {
      patterns: ["delete:a", "write:b"],
      always: [],
    });
    assert.equal(counts.rename, 0);
  });

  await t.step("a _meta flag of false is an ordinary call", async () => {
    const result = await client.request("tools/call", {
      name: "write_file",
      arguments: { path: "a.txt", content: "hi" },
      _meta: { [META_PERMISSION_PATTERNS]: false },
    });
    assert.deepEqual(result, {
      content: [{ type: "text", text: "written a.txt" }],
    });
    assert.equal(counts.write, 1);
  });
});

Deno.test("registerPatternTool() hands a real call the access its patterns computed", async () => {
  const { server, counts, accesses, returned } = probeServer();
  await using client = await connect(server);
  const result = await client.call("write_file", {
    path: "notes/a.md",
    content: "hi",
  });
  assert.deepEqual(result, {
    content: [{ type: "text", text: "written notes/a.md" }],
  });
  assert.equal(counts.write, 1);
  assert.equal(counts.writePatterns, 1);
  assert.deepEqual(accesses, [["write:notes/a.md"]]);
  assert.equal(accesses[0], returned[0]);
});

Deno.test("registerPatternTool() refuses a probe that cannot be answered, and runs nothing", async (t) => {
  const { server, counts } = probeServer();
  await using client = await connect(server);

  await t.step("a tool without probe support: JSON-RPC -32602", async () => {
    const err = await rpcErrorOf(client.probe("read_file", { path: "a" }));
    assert.equal(err.code, -32602);
    assert.match(err.message, /read_file/);
    assert.equal(counts.read, 0);
  });

  await t.step("a flag that is not true: JSON-RPC -32602", async () => {
    const err = await rpcErrorOf(client.request("tools/call", {
      name: "write_file",
      arguments: { path: "a", content: "x" },
      _meta: { [META_PERMISSION_PATTERNS]: "true" },
    }));
    assert.equal(err.code, -32602);
    assert.equal(counts.write + counts.writePatterns, 0);
  });

  await t.step("invalid arguments: isError naming them", async () => {
    const result = await client.request("tools/call", {
      name: "write_file",
      arguments: { path: 1 },
      _meta: { [META_PERMISSION_PATTERNS]: true },
    });
    assert.deepEqual(result, {
      content: [{
        type: "text",
        text:
          'Invalid arguments for tool "write_file":\npath: expected string, got number\ncontent: required',
      }],
      isError: true,
    });
    assert.equal(counts.write + counts.writePatterns, 0);
  });

  await t.step("an unknown tool: JSON-RPC -32602", async () => {
    const err = await rpcErrorOf(client.probe("nope", {}));
    assert.equal(err.code, -32602);
  });
});

Deno.test("registerPatternTool() answers a ToolError from patterns as isError, for probe and call", async () => {
  const { server, counts } = probeServer();
  await using client = await connect(server);
  const expected = {
    content: [{ type: "text", text: "path: leaves the root: ../etc" }],
    isError: true,
  };
  const args = { path: "../etc", content: "x" };
  assert.deepEqual(
    await client.request("tools/call", {
      name: "write_file",
      arguments: args,
      _meta: { [META_PERMISSION_PATTERNS]: true },
    }),
    expected,
  );
  assert.deepEqual(await client.call("write_file", args), expected);
  await assert.rejects(
    () => client.probe("write_file", args),
    /Probe answered a domain error: path: leaves the root: \.\.\/etc/,
  );
  assert.equal(counts.write, 0);
});

Deno.test("registerPatternTool() answers a malformed pattern as JSON-RPC -32603: it is a bug", async () => {
  const { server, counts } = probeServer();
  await using client = await connect(server);
  const args = { path: "bad", content: "x" };
  for (
    const pending of [
      client.probe("write_file", args),
      client.call("write_file", args),
    ]
  ) {
    const err = await rpcErrorOf(pending);
    assert.equal(err.code, -32603);
    assert.match(err.message, /Invalid permission pattern "WRITE:bad"/);
  }
  assert.equal(counts.write, 0);
});

Deno.test("registerPatternTool() checks `always` at registration", () => {
  const server = createServer({ name: "s", version: "0.0.0" });
  assert.throws(
    () =>
      registerPatternTool(server, {
        name: "deploy",
        description: "Deploys",
        always: ["x-Deploy:prod"],
        patterns: () => [],
        handler: () => text("deployed"),
      }),
    /Invalid permission pattern "x-Deploy:prod"/,
  );
  assert.deepEqual(server.listTools(), []);
  assert.equal(
    registerPatternTool(server, {
      name: "deploy",
      description: "Deploys",
      always: ["x-deploy:prod"],
      patterns: () => [],
      handler: () => text("deployed"),
    }),
    server,
  );
});

Deno.test("registerPatternTool() answers in the same turn when patterns and handler do, and waits when they do not", async (t) => {
  const answers: unknown[] = [];
  const server = createServer({ name: "s", version: "1" });
  server.use((_call, next) => {
    const answer = next();
    answers.push(answer);
    return answer;
  });
  registerPatternTool(server, {
    name: "touch",
    description: "Creates a file",
    input: z.object({ path: z.string() }),
    patterns: ({ path }) => [`write:${path}`],
    handler: (_args, ctx) => text(`touched ${ctx.access[0]}`),
  });
  registerPatternTool(server, {
    name: "fetch_later",
    description: "Resolves its patterns asynchronously",
    input: z.object({ path: z.string() }),
    patterns: async ({ path }) => [`read:${await Promise.resolve(path)}`],
    handler: (_args, ctx) => text(`read ${ctx.access[0]}`),
  });
  await using client = await connect(server);

  await t.step(
    "synchronous: a probe and a call are plain results",
    async () => {
      answers.length = 0;
      const probe = await client.probe("touch", { path: "a.txt" });
      assert.deepEqual(probe.patterns, ["write:a.txt"]);
      const result = await client.call("touch", { path: "a.txt" });
      assert.deepEqual(result.content, [{
        type: "text",
        text: "touched write:a.txt",
      }]);
      assert.equal(answers.length, 2);
      for (const answer of answers) assert.ok(!(answer instanceof Promise));
    },
  );

  await t.step("asynchronous patterns: the answer is awaited", async () => {
    answers.length = 0;
    const result = await client.call("fetch_later", { path: "b.txt" });
    assert.deepEqual(result.content, [{
      type: "text",
      text: "read read:b.txt",
    }]);
    assert.equal(answers.length, 1);
    assert.ok(answers[0] instanceof Promise);
  });

  await t.step(
    "a throw from synchronous patterns is still a domain error",
    async () => {
      registerPatternTool(server, {
        name: "refuse",
        description: "Refuses every path",
        input: z.object({ path: z.string() }),
        patterns: ({ path }) => {
          throw new ToolError(`Cannot touch ${path}: refused`);
        },
        handler: () => text("never"),
      });
      const result = await client.call("refuse", { path: "c.txt" });
      assert.equal(result.isError, true);
      assert.deepEqual(result.content, [{
        type: "text",
        text: "Cannot touch c.txt: refused",
      }]);
    },
  );
});
