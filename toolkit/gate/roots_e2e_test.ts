// The real @modelcontextprotocol/server-filesystem replaces its directories
// with its client's roots and resolves a relative path against the first.
// Behind the gate it gets the policy's roots, whatever the host declares:
// a write lands where the gate decided it, never in a root of the host's.

import assert from "node:assert/strict";
import { RpcError } from "../testing/testing.ts";
import { spawnStdio, type StdioClient } from "../testing/stdio_client.ts";
import { fileUri } from "./_roots.ts";
import { callTool, textOf } from "./testdata/gate_process.ts";

const FILESYSTEM = "npm:@modelcontextprotocol/server-filesystem@2026.8.31";
const MAIN = new URL("./main.ts", import.meta.url).pathname;
const APPLIED = /Updated allowed directories from MCP roots: (\d+)/;

interface Setup {
  dir: string;
  /** The policy's root. */
  root: string;
  /** Another directory, the host's first root. */
  root2: string;
  audit: string;
}

async function setUp(): Promise<Setup> {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const root = `${dir}/work`;
  const root2 = `${dir}/other`;
  for (const folder of [root, `${root}/notes`, root2, `${root2}/notes`]) {
    await Deno.mkdir(folder);
  }
  await Deno.writeTextFile(`${root2}/notes/only-in-root2`, "secret of root2");
  const policy = `${dir}/policy.yaml`;
  await Deno.writeTextFile(
    policy,
    `roots: ["${root}"]\npresets: [filesystem]\n` +
      `allow: ["read:**", "write:notes/**"]\ndeny: ["write:/**"]\n`,
  );
  return { dir, root, root2, audit: `${dir}/audit.jsonl` };
}

/**
 * The gate in front of the filesystem server started on `serverDir`, for a
 * host that declares `hostRoots` (none: no roots capability).
 */
async function gateFor(
  setup: Setup,
  serverDir: string,
  hostRoots: string[] | undefined,
): Promise<StdioClient> {
  const gate = spawnStdio(Deno.execPath(), [
    "run",
    "-A",
    MAIN,
    "--policy",
    `${setup.dir}/policy.yaml`,
    "--audit",
    setup.audit,
    "--",
    Deno.execPath(),
    "run",
    "-A",
    "--no-lock",
    "--quiet",
    FILESYSTEM,
    serverDir,
  ], {
    env: { NO_COLOR: "1" },
    timeoutMs: 20_000,
    onRequest: (method) => {
      if (method === "roots/list" && hostRoots !== undefined) {
        return { roots: hostRoots.map((root) => ({ uri: fileUri(root) })) };
      }
      throw new RpcError(-32601, `Method not found: ${method}`);
    },
  });
  await gate.initialize({
    protocolVersion: "2025-06-18",
    capabilities: hostRoots === undefined
      ? {}
      : { roots: { listChanged: true } },
    clientInfo: { name: "roots-test", version: "1" },
  });
  return gate;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** Writes `notes/<name>` through the gate; checks it landed under the policy's root only, audited so. */
async function writesUnderRoot(gate: StdioClient, setup: Setup, name: string) {
  const answer = await callTool(gate, "write_file", {
    path: `notes/${name}`,
    content: "x",
  });
  assert.equal(answer.result?.isError, undefined, textOf(answer));
  assert.equal(await exists(`${setup.root}/notes/${name}`), true);
  assert.equal(await exists(`${setup.root2}/notes/${name}`), false);
  const lines = (await Deno.readTextFile(setup.audit)).trim().split("\n");
  const last = JSON.parse(lines.at(-1)!);
  assert.deepEqual(last.patterns, [`write:notes/${name}`]);
  // A file only the host's root holds is not found: reads resolve the same.
  const read = await callTool(gate, "read_text_file", {
    path: "notes/only-in-root2",
  });
  assert.equal(read.result?.isError, true, textOf(read));
  assert.doesNotMatch(textOf(read), /secret of root2/);
}

Deno.test("gate gives the real filesystem server the policy's roots, not the host's", async (t) => {
  const setup = await setUp();

  await t.step("a host whose first root is another directory", async () => {
    await using gate = await gateFor(setup, setup.root, [
      setup.root2,
      setup.root,
    ]);
    // Once the server has applied the roots it was given (by the gate:
    // one), a write lands where the gate decided it.
    const applied = await gate.waitForStderr(APPLIED);
    await writesUnderRoot(gate, setup, "x");
    assert.equal(applied.match(APPLIED)![1], "1");
    // The host's change of roots does not reach the server.
    await gate.notify("notifications/roots/list_changed");
    await writesUnderRoot(gate, setup, "y");
    assert.ok(!gate.messages.some((m) => m.method === "roots/list"));
  });

  await t.step("a host without roots, a server started elsewhere", async () => {
    await using gate = await gateFor(setup, setup.root2, undefined);
    await gate.waitForStderr(APPLIED);
    await writesUnderRoot(gate, setup, "z");
  });

  await t.step("a reload that changes the roots tells the server", async () => {
    await using gate = await gateFor(setup, setup.root, undefined);
    await gate.waitForStderr(APPLIED);
    const since = gate.stderrLines.length;
    const policy = `${setup.dir}/policy.yaml`;
    const text = await Deno.readTextFile(policy);
    await Deno.writeTextFile(policy, text.replace(setup.root, setup.root2));
    await gate.waitForStderr(/policy reloaded/, { since });
    // The next call sends the server the news; it asks again and applies.
    await callTool(gate, "read_text_file", { path: "notes/only-in-root2" });
    await gate.waitForStderr(APPLIED, { since });
    const answer = await callTool(gate, "write_file", {
      path: "notes/w",
      content: "x",
    });
    assert.equal(answer.result?.isError, undefined, textOf(answer));
    assert.equal(await exists(`${setup.root2}/notes/w`), true);
    assert.equal(await exists(`${setup.root}/notes/w`), false);
    await Deno.writeTextFile(policy, text);
  });
});
