import assert from "node:assert/strict";
import { z } from "zod";
import { fileAccess } from "./file.ts";
import { registerPatternTool } from "../probe.ts";
import {
  META_APPROVED_PATTERNS,
  META_PERMISSION_PATTERNS,
  PROBE_META,
} from "./probe_meta.ts";
import { type CallToolResult, text } from "../result/result.ts";
import { createServer } from "../server/server.ts";
import type { ToolServer } from "../server/server.ts";
import { connect, RpcError, type TestClient } from "../testing/testing.ts";
import { startSession } from "../../examples/hello-tool/_main_process.ts";

/** A root and a directory outside it, both real paths, removed afterwards. */
async function sandbox(): Promise<
  { root: string; outside: string } & AsyncDisposable
> {
  const base = await Deno.realPath(await Deno.makeTempDir());
  const root = `${base}/root`;
  const outside = `${base}/outside`;
  await Deno.mkdir(root);
  await Deno.mkdir(outside);
  return {
    root,
    outside,
    [Symbol.asyncDispose]: () => Deno.remove(base, { recursive: true }),
  };
}

/** A server with a file writer that canonicalises with fileAccess, and a plain tool. */
function filesServer(root: string, runs: string[]): ToolServer {
  const files = fileAccess(root);
  const server = createServer({ name: "files", version: "1" });
  registerPatternTool(server, {
    name: "write_file",
    description: "Writes a text file",
    input: z.object({ path: z.string(), content: z.string() }),
    patterns: async ({ path }) => [await files.write(path)],
    handler: async ({ content }, ctx) => {
      runs.push("write_file");
      await Deno.writeTextFile(ctx.access[0].path, content);
      return text(`wrote ${ctx.access[0].target}`);
    },
  });
  registerPatternTool(server, {
    name: "sync",
    description: "Moves a file and reports to a fixed endpoint",
    input: z.object({ from: z.string(), to: z.string() }),
    always: ["net:https://sync.example.com"],
    patterns: ({ from, to }) => [`delete:${from}`, `write:${to}`],
    handler: () => {
      runs.push("sync");
      return text("synced");
    },
  });
  registerPatternTool(server, {
    name: "noop",
    description: "Needs no access at all",
    patterns: () => [],
    handler: () => {
      runs.push("noop");
      return text("nothing");
    },
  });
  server.tool({
    name: "hello",
    description: "Greets",
    handler: () => {
      runs.push("hello");
      return text("hi");
    },
  });
  return server;
}

function approved(patterns: readonly unknown[] | unknown) {
  return { meta: { [META_APPROVED_PATTERNS]: patterns } };
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => c.type === "text" ? c.text : "").join("");
}

async function rpcErrorOf(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof RpcError, `expected an RpcError, got ${err}`);
    return err;
  }
  assert.fail("expected a JSON-RPC error, but the call was answered");
}

/** Probes, then replaces the probed file by a link to `elsewhere`. */
async function probeThenSwap(
  client: TestClient,
  root: string,
  elsewhere: string,
): Promise<string[]> {
  await Deno.writeTextFile(`${root}/a.txt`, "original");
  const answer = await client.probe("write_file", {
    path: "a.txt",
    content: "x",
  });
  await Deno.remove(`${root}/a.txt`);
  await Deno.symlink(elsewhere, `${root}/a.txt`);
  return [...answer.always, ...answer.patterns];
}

Deno.test("the approved-patterns key has its wire value and sits in PROBE_META", () => {
  assert.equal(META_APPROVED_PATTERNS, "forge.approved_patterns");
  assert.equal(PROBE_META.APPROVED_PATTERNS, META_APPROVED_PATTERNS);
});

Deno.test("a call whose file was swapped for a symbolic link after the probe is refused and acts on nothing", async () => {
  await using box = await sandbox();
  const runs: string[] = [];
  await using client = await connect(filesServer(box.root, runs));
  const secret = `${box.outside}/secret.txt`;
  await Deno.writeTextFile(secret, "keep");
  const approvedNow = await probeThenSwap(client, box.root, secret);
  assert.deepEqual(approvedNow, ["write:a.txt"]);

  const result = await client.call(
    "write_file",
    { path: "a.txt", content: "overwritten" },
    approved(approvedNow),
  );
  assert.equal(result.isError, true);
  assert.match(
    textOf(result),
    new RegExp(
      `^Call refused: it needs a pattern that was not approved: write:${secret} \\(approved: write:a\\.txt\\)\\. Nothing was done\\.`,
    ),
  );
  assert.deepEqual(runs, []);
  assert.equal(await Deno.readTextFile(secret), "keep");
  assert.equal((await Deno.lstat(`${box.root}/a.txt`)).isSymlink, true);
});

Deno.test("without the approved-patterns key the same swapped call runs as before", async () => {
  await using box = await sandbox();
  const runs: string[] = [];
  await using client = await connect(filesServer(box.root, runs));
  const secret = `${box.outside}/secret.txt`;
  await Deno.writeTextFile(secret, "keep");
  await probeThenSwap(client, box.root, secret);

  const result = await client.call("write_file", {
    path: "a.txt",
    content: "overwritten",
  });
  assert.deepEqual(result, {
    content: [{ type: "text", text: `wrote ${secret}` }],
  });
  assert.deepEqual(runs, ["write_file"]);
  // The link was followed: this is what the key exists to stop.
  assert.equal(await Deno.readTextFile(secret), "overwritten");
});

Deno.test("a call that needs exactly what was approved runs", async (t) => {
  await using box = await sandbox();
  const runs: string[] = [];
  await using client = await connect(filesServer(box.root, runs));
  const args = { from: "a", to: "b" };
  const probed = await client.probe("sync", args);
  const all = [...probed.always, ...probed.patterns];
  assert.deepEqual(all, [
    "net:https://sync.example.com",
    "delete:a",
    "write:b",
  ]);

  await t.step("in the probe's order", async () => {
    const result = await client.call("sync", args, approved(all));
    assert.deepEqual(result, { content: [{ type: "text", text: "synced" }] });
  });
  await t.step("in any order, with repeats", async () => {
    const shuffled = [all[2], all[0], all[1], all[0]];
    const result = await client.call("sync", args, approved(shuffled));
    assert.equal(result.isError, undefined);
  });
  await t.step("with more approved than the call needs", async () => {
    const more = [...all, "write:c", "exec:git push"];
    const result = await client.call("sync", args, approved(more));
    assert.equal(result.isError, undefined);
  });
  await t.step("a file write whose target did not change", async () => {
    await Deno.writeTextFile(`${box.root}/n.txt`, "old");
    const write = { path: "./n.txt", content: "new" };
    const probe = await client.probe("write_file", write);
    const result = await client.call(
      "write_file",
      write,
      approved(probe.patterns),
    );
    assert.equal(textOf(result), "wrote n.txt");
    assert.equal(await Deno.readTextFile(`${box.root}/n.txt`), "new");
  });
  await t.step(
    "a tool that needs no pattern, whatever was approved",
    async () => {
      const result = await client.call("noop", {}, approved([]));
      assert.equal(textOf(result), "nothing");
    },
  );
  assert.deepEqual(runs, ["sync", "sync", "sync", "write_file", "noop"]);
});

Deno.test("a call that needs a pattern that was not approved is refused naming only those patterns", async (t) => {
  await using box = await sandbox();
  const runs: string[] = [];
  await using client = await connect(filesServer(box.root, runs));
  const args = { from: "a", to: "b" };

  await t.step("an always pattern left out", async () => {
    const result = await client.call(
      "sync",
      args,
      approved(["delete:a", "write:b"]),
    );
    assert.equal(result.isError, true);
    assert.match(
      textOf(result),
      /not approved: net:https:\/\/sync\.example\.com \(approved: delete:a, write:b\)/,
    );
  });
  await t.step("two patterns left out, each named once", async () => {
    const result = await client.call(
      "sync",
      { from: "b", to: "b" },
      approved(["net:https://sync.example.com"]),
    );
    assert.match(
      textOf(result),
      /needs patterns that were not approved: delete:b, write:b \(approved: net:/,
    );
  });
  await t.step("nothing approved", async () => {
    const result = await client.call("sync", args, approved([]));
    assert.match(
      textOf(result),
      /not approved: net:https:\/\/sync\.example\.com, delete:a, write:b \(approved: none\)/,
    );
  });
  await t.step(
    "a rule is not a pattern: approvals compare exactly",
    async () => {
      const result = await client.call(
        "sync",
        args,
        approved(["net:**", "delete:*", "write:b"]),
      );
      assert.match(
        textOf(result),
        /not approved: net:https:\/\/sync\.example\.com, delete:a \(/,
      );
    },
  );
  await t.step("a spelling the probe would not answer", async () => {
    const result = await client.call(
      "write_file",
      { path: "x.txt", content: "x" },
      approved(["write:./x.txt"]),
    );
    assert.match(textOf(result), /not approved: write:x\.txt \(/);
  });
  assert.deepEqual(runs, []);
  await assert.rejects(Deno.lstat(`${box.root}/x.txt`), Deno.errors.NotFound);
});

Deno.test("malformed approved patterns are refused with -32602 before anything runs", async (t) => {
  await using box = await sandbox();
  const runs: string[] = [];
  await using client = await connect(filesServer(box.root, runs));
  const cases: [string, unknown, RegExp][] = [
    [
      "a string",
      "write:b",
      /must be an array of pattern strings, got "write:b"/,
    ],
    ["null", null, /must be an array of pattern strings, got null/],
    ["an object", { "write:b": true }, /got \{"write:b":true\}/],
    ["true", true, /got true/],
    [
      "a number in the list",
      ["write:b", 7],
      /\]\[1\] must be a pattern string, got 7/,
    ],
    [
      "a nested list",
      [["write:b"]],
      /\]\[0\] must be a pattern string, got \["write:b"\]/,
    ],
  ];
  for (const [name, value, message] of cases) {
    await t.step(name, async () => {
      const err = await rpcErrorOf(
        client.call("sync", { from: "a", to: "b" }, approved(value)),
      );
      assert.equal(err.code, -32602);
      assert.match(
        err.message,
        /^Invalid approved patterns: _meta\["forge\.approved_patterns"\]/,
      );
      assert.match(err.message, message);
    });
  }
  await t.step("on a probe too", async () => {
    const err = await rpcErrorOf(client.request("tools/call", {
      name: "sync",
      arguments: { from: "a", to: "b" },
      _meta: { [META_PERMISSION_PATTERNS]: true, [META_APPROVED_PATTERNS]: 1 },
    }));
    assert.equal(err.code, -32602);
  });
  assert.deepEqual(runs, []);
});

Deno.test("approved patterns sent to a tool without patterns are refused with -32602", async (t) => {
  await using box = await sandbox();
  const runs: string[] = [];
  await using client = await connect(filesServer(box.root, runs));
  for (const value of [[], ["read:x"]]) {
    await t.step(JSON.stringify(value), async () => {
      const err = await rpcErrorOf(client.call("hello", {}, approved(value)));
      assert.equal(err.code, -32602);
      assert.match(
        err.message,
        /^Tool hello cannot check _meta\["forge\.approved_patterns"\]: it does not support permission-pattern probes/,
      );
    });
  }
  assert.deepEqual(runs, []);
  assert.deepEqual(await client.call("hello"), {
    content: [{ type: "text", text: "hi" }],
  });
});

Deno.test("a probe that carries approved patterns answers its patterns and runs nothing", async () => {
  await using box = await sandbox();
  const runs: string[] = [];
  await using client = await connect(filesServer(box.root, runs));
  const result = await client.request("tools/call", {
    name: "sync",
    arguments: { from: "a", to: "b" },
    _meta: { [META_PERMISSION_PATTERNS]: true, [META_APPROVED_PATTERNS]: [] },
  });
  assert.deepEqual(result._meta, {
    "forge.patterns": ["delete:a", "write:b"],
    "forge.always": ["net:https://sync.example.com"],
  });
  assert.deepEqual(runs, []);
});

Deno.test("hello-tool refuses a write whose file became a link to another file after the probe", async () => {
  await using box = await sandbox();
  await using session = await startSession({ HELLO_ROOT: box.root });
  await Deno.writeTextFile(`${box.root}/a.txt`, "a");
  await Deno.writeTextFile(`${box.root}/b.txt`, "b");
  const probe = await session.call(
    "write_file",
    { path: "a.txt", content: "new" },
    { meta: { [META_PERMISSION_PATTERNS]: true } },
  );
  const meta = probe._meta ?? {};
  const approvedNow = [
    ...(meta["forge.always"] as string[]),
    ...(meta["forge.patterns"] as string[]),
  ];
  assert.deepEqual(approvedNow, ["write:a.txt"]);
  await Deno.remove(`${box.root}/a.txt`);
  await Deno.symlink(`${box.root}/b.txt`, `${box.root}/a.txt`);

  const refused = await session.call(
    "write_file",
    { path: "a.txt", content: "new" },
    { meta: { [META_APPROVED_PATTERNS]: approvedNow } },
  );
  assert.equal(refused.isError, true);
  assert.match(
    textOf(refused),
    /^Call refused: it needs a pattern that was not approved: write:b\.txt \(approved: write:a\.txt\)/,
  );
  assert.equal(await Deno.readTextFile(`${box.root}/b.txt`), "b");

  // Approving what a new probe answers lets the same call through.
  const again = await session.call(
    "write_file",
    { path: "a.txt", content: "new" },
    { meta: { [META_PERMISSION_PATTERNS]: true } },
  );
  const patterns = again._meta?.["forge.patterns"] as string[];
  assert.deepEqual(patterns, ["write:a.txt", "write:b.txt"]);
  const written = await session.call(
    "write_file",
    { path: "a.txt", content: "new" },
    { meta: { [META_APPROVED_PATTERNS]: patterns } },
  );
  assert.equal(written.isError, undefined);
  assert.equal(await Deno.readTextFile(`${box.root}/b.txt`), "new");
});
