// The gate in front of the real @modelcontextprotocol/server-filesystem,
// which does not answer the probe: its calls are decided on the patterns
// the filesystem preset (or the policy file's own templates) gives them.

import assert from "node:assert/strict";
import {
  auditLines,
  callTool,
  startGateProcess,
  textOf,
} from "./testdata/gate_process.ts";
import { until } from "../testing/_until.ts";
import { PRESETS } from "./policy/_presets.ts";

const FILESYSTEM = "npm:@modelcontextprotocol/server-filesystem@2026.8.31";

interface Setup {
  root: string;
  outside: string;
  audit: string;
  dir: string;
}

async function setUp(): Promise<Setup> {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const root = `${dir}/work`;
  const outside = `${dir}/elsewhere`;
  for (const folder of [root, `${root}/notes`, `${root}/secrets`, outside]) {
    await Deno.mkdir(folder);
  }
  // A link inside an allowed folder that points into a denied one.
  await Deno.symlink("../secrets", `${root}/notes/to-secrets`);
  return { root, outside, audit: `${dir}/audit.jsonl`, dir };
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

async function gateFor(setup: Setup, policy: string) {
  const policyPath = `${setup.dir}/policy.yaml`;
  await Deno.writeTextFile(policyPath, policy);
  return await startGateProcess(
    ["--policy", policyPath, "--audit", setup.audit],
    ["deno", "run", "-A", "--no-lock", "--quiet", FILESYSTEM, setup.root],
  );
}

const RULES = `
allow: ["read:**", "write:notes/**", "delete:notes/**"]
deny: ["write:secrets/**", "write:/**", "delete:secrets/**"]
`;

/** The writes every policy below must decide the same way. */
async function checkWrites(
  gate: Awaited<ReturnType<typeof startGateProcess>>,
  setup: Setup,
) {
  const { root, outside } = setup;
  const write = (path: unknown) =>
    callTool(gate, "write_file", { path, content: "x" });

  const allowed = await write("notes/a.txt");
  assert.equal(allowed.result?.isError, undefined, textOf(allowed));
  assert.equal(await Deno.readTextFile(`${root}/notes/a.txt`), "x");

  const cases: [unknown, RegExp][] = [
    ["secrets/k", /write:secrets\/k denied by write:secrets\/\*\*/],
    // Through a link inside the allowed folder: decided where it points.
    ["notes/to-secrets/k", /write:secrets\/k denied by write:secrets\/\*\*/],
    ["notes/../secrets/k", /write:secrets\/k denied/],
    [`${root}/secrets/k`, /write:secrets\/k denied/],
    [`${outside}/k`, /denied by write:\/\*\*/],
    ["../elsewhere/k", /path: "\.\.\/elsewhere\/k" leaves the root/],
    ["~/k", /path: "~\/k" starts with "~"/],
    [undefined, /path: missing/],
    [7, /path: expected a string, got number/],
  ];
  for (const [path, message] of cases) {
    const answer = await write(path);
    assert.equal(answer.result?.isError, true, `${path}: ${textOf(answer)}`);
    assert.match(textOf(answer), message);
    assert.match(textOf(answer), /Nothing was run\.$/);
  }
  assert.equal(await exists(`${root}/secrets/k`), false);
  assert.equal(await exists(`${outside}/k`), false);
}

Deno.test("the gate decides the real filesystem server by its preset", async () => {
  const setup = await setUp();
  const { root } = setup;
  const gate = await gateFor(
    setup,
    `roots: ["${root}"]\npresets: [filesystem]\n${RULES}`,
  );
  try {
    await checkWrites(gate, setup);

    // move_file is a delete of the source and a write of the destination.
    const moved = await callTool(gate, "move_file", {
      source: "notes/a.txt",
      destination: "notes/b.txt",
    });
    assert.equal(moved.result?.isError, undefined, textOf(moved));
    assert.equal(await exists(`${root}/notes/b.txt`), true);
    const refused = await callTool(gate, "move_file", {
      source: "notes/b.txt",
      destination: "secrets/b.txt",
    });
    assert.equal(refused.result?.isError, true);
    assert.match(textOf(refused), /write:secrets\/b\.txt denied/);
    assert.equal(await exists(`${root}/notes/b.txt`), true);

    const read = await callTool(gate, "read_multiple_files", {
      paths: ["notes/b.txt", "notes/to-secrets"],
    });
    assert.equal(read.result?.isError, undefined, textOf(read));

    await until(
      "every call in the audit",
      async () => (await auditLines(setup.audit)).length >= 13,
    );
    const lines = await auditLines(setup.audit);
    const seen = lines.map((l) => [l.tool, l.patterns, l.outcome]);
    assert.deepEqual(seen[0], [
      "write_file",
      ["write:notes/a.txt"],
      "forwarded",
    ]);
    assert.deepEqual(seen[2], [
      "write_file",
      ["write:notes/to-secrets/k", "write:secrets/k"],
      "denied",
    ]);
    assert.deepEqual(seen[3], ["write_file", ["write:secrets/k"], "denied"]);
    assert.deepEqual(seen[5], [
      "write_file",
      [`write:${setup.outside}/k`],
      "denied",
    ]);
    assert.deepEqual(seen[6], ["write_file", [], "probe-error"]);
    assert.deepEqual(seen.slice(10), [
      ["move_file", ["delete:notes/a.txt", "write:notes/b.txt"], "forwarded"],
      ["move_file", ["delete:notes/b.txt", "write:secrets/b.txt"], "denied"],
      [
        "read_multiple_files",
        ["read:notes/b.txt", "read:notes/to-secrets", "read:secrets"],
        "forwarded",
      ],
    ]);
  } finally {
    await gate[Symbol.asyncDispose]();
    await Deno.remove(setup.dir, { recursive: true });
  }
});

Deno.test("the gate decides the real filesystem server by a template of the policy file", async () => {
  const setup = await setUp();
  const gate = await gateFor(
    setup,
    `roots: ["${setup.root}"]
unprobed: deny
tools:
  write_file: { patterns: ["write:{path}"] }
${RULES}`,
  );
  try {
    await checkWrites(gate, setup);
    // Without a template, the tool is unprobed, and unprobed is deny.
    const listing = await callTool(gate, "list_directory", { path: "notes" });
    assert.equal(listing.result?.isError, true);
    assert.match(textOf(listing), /unprobed setting is deny/);
    await until(
      "the audit",
      async () => (await auditLines(setup.audit)).length >= 11,
    );
    const lines = await auditLines(setup.audit);
    assert.deepEqual(lines[1].patterns, ["write:secrets/k"]);
    assert.equal(lines[1].rule, "write:secrets/**");
  } finally {
    await gate[Symbol.asyncDispose]();
    await Deno.remove(setup.dir, { recursive: true });
  }
});

Deno.test("the gate refuses the real filesystem server a link named in NFD", async (t) => {
  const setup = await setUp();
  const { root } = setup;
  await Deno.writeTextFile(`${root}/secrets/topsecret.txt`, "s3cret");
  await Deno.writeTextFile(`${root}/notes/a.txt`, "a");
  // The link's name is NFD (e + U+0301), as a Mac writes it; the server
  // follows it for a path in either spelling (an NFC one through its search
  // for a Unicode-equivalent name).
  await Deno.symlink("../secrets", `${root}/notes/cafe\u0301`);
  // A real directory with an NFD name stays writable.
  await Deno.mkdir(`${root}/notes/nai\u0308ve`);
  const gate = await gateFor(
    setup,
    `roots: ["${root}"]
presets: [filesystem]
allow: ["read:**", "write:notes/**", "delete:notes/**"]
deny: ["read:secrets/**", "write:secrets/**", "delete:secrets/**", "write:/**"]
`,
  );
  try {
    for (const [form, name] of [["NFC", "caf\u00e9"], ["NFD", "cafe\u0301"]]) {
      await t.step(`write_file through it, path in ${form}`, async () => {
        const answer = await callTool(gate, "write_file", {
          path: `notes/${name}/x`,
          content: "x",
        });
        assert.equal(answer.result?.isError, true, textOf(answer));
        assert.match(textOf(answer), /write:secrets\/x denied/);
        assert.equal(await exists(`${root}/secrets/x`), false);
      });
      await t.step(`read_text_file through it, path in ${form}`, async () => {
        const answer = await callTool(gate, "read_text_file", {
          path: `notes/${name}/topsecret.txt`,
        });
        assert.equal(answer.result?.isError, true, textOf(answer));
        assert.match(textOf(answer), /read:secrets\/topsecret\.txt denied/);
        assert.doesNotMatch(textOf(answer), /s3cret/);
      });
      await t.step(`move_file into it, path in ${form}`, async () => {
        const answer = await callTool(gate, "move_file", {
          source: "notes/a.txt",
          destination: `notes/${name}/moved.txt`,
        });
        assert.equal(answer.result?.isError, true, textOf(answer));
        assert.match(textOf(answer), /write:secrets\/moved\.txt denied/);
        assert.equal(await exists(`${root}/secrets/moved.txt`), false);
        assert.equal(await exists(`${root}/notes/a.txt`), true);
      });
    }
    await t.step("an NFD-named directory is written as named", async () => {
      const answer = await callTool(gate, "write_file", {
        path: "notes/nai\u0308ve/x",
        content: "y",
      });
      assert.equal(answer.result?.isError, undefined, textOf(answer));
      assert.equal(await Deno.readTextFile(`${root}/notes/nai\u0308ve/x`), "y");
    });
  } finally {
    await gate[Symbol.asyncDispose]();
    await Deno.remove(setup.dir, { recursive: true });
  }
});

Deno.test("the gate refuses a listing of the real filesystem server that reaches a denied folder", async (t) => {
  const setup = await setUp();
  const { root } = setup;
  await Deno.writeTextFile(`${root}/secrets/topsecret.txt`, "s3cret");
  await Deno.writeTextFile(`${root}/notes/a.txt`, "a");
  const gate = await gateFor(
    setup,
    `roots: ["${root}"]
presets: [filesystem]
allow: ["read:**"]
deny: ["read:secrets/**"]
`,
  );
  try {
    const refused: [string, Record<string, unknown>][] = [
      ["directory_tree", { path: "." }],
      ["search_files", { path: ".", pattern: "**/*topsecret*" }],
      ["directory_tree", { path: "notes/to-secrets" }],
      ["list_directory", { path: "secrets" }],
      ["list_directory_with_sizes", { path: "notes/to-secrets" }],
    ];
    for (const [tool, args] of refused) {
      await t.step(`${tool} ${JSON.stringify(args)} is refused`, async () => {
        const answer = await callTool(gate, tool, args);
        assert.equal(answer.result?.isError, true, textOf(answer));
        assert.match(textOf(answer), /denied by read:secrets\/\*\*/);
        // No name inside the denied folder reaches the host.
        assert.doesNotMatch(JSON.stringify(answer), /topsecret/);
      });
    }
    await t.step("a listing beside the denied folder runs", async () => {
      const tree = await callTool(gate, "directory_tree", { path: "notes" });
      assert.equal(tree.result?.isError, undefined, textOf(tree));
      assert.match(textOf(tree), /a\.txt/);
      // One level of "." shows the folder's name, nothing inside it.
      const list = await callTool(gate, "list_directory", { path: "." });
      assert.equal(list.result?.isError, undefined, textOf(list));
      assert.match(textOf(list), /secrets/);
      assert.doesNotMatch(textOf(list), /topsecret/);
    });
    await until(
      "the audit",
      async () => (await auditLines(setup.audit)).length >= 7,
    );
    const lines = await auditLines(setup.audit);
    assert.deepEqual(lines.slice(0, 3).map((l) => [l.patterns, l.outcome]), [
      [["read:**"], "denied"],
      [["read:**"], "denied"],
      [["read:notes/to-secrets/**", "read:secrets/**"], "denied"],
    ]);
  } finally {
    await gate[Symbol.asyncDispose]();
    await Deno.remove(setup.dir, { recursive: true });
  }
});

Deno.test("the gate forwards every tool of the filesystem preset to the real server", async () => {
  const setup = await setUp();
  const { root } = setup;
  // A 1×1 PNG for read_media_file.
  const png = Uint8Array.from(
    atob(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
    ),
    (c) => c.charCodeAt(0),
  );
  await Deno.writeFile(`${root}/notes/pic.png`, png);
  const gate = await gateFor(
    setup,
    `roots: ["${root}"]
presets: [filesystem]
allow: ["read:**", "write:**", "delete:**"]
`,
  );
  const called = new Set<string>();
  const call = async (tool: string, args: Record<string, unknown>) => {
    called.add(tool);
    const answer = await callTool(gate, tool, args);
    assert.equal(
      answer.result?.isError,
      undefined,
      `${tool}: ${textOf(answer)}`,
    );
    return answer;
  };
  try {
    const allowed = await call("list_allowed_directories", {});
    assert.match(textOf(allowed), new RegExp(root));
    await call("create_directory", { path: "notes/sub" });
    assert.ok((await Deno.stat(`${root}/notes/sub`)).isDirectory);
    await call("write_file", { path: "notes/sub/a.txt", content: "hi\nall\n" });
    assert.match(
      textOf(await call("read_text_file", { path: "notes/sub/a.txt" })),
      /hi/,
    );
    assert.match(
      textOf(await call("read_file", { path: "notes/sub/a.txt" })),
      /hi/,
    );
    const media = await call("read_media_file", { path: "notes/pic.png" });
    assert.equal(media.result.content[0].mimeType, "image/png");
    assert.match(
      textOf(
        await call("read_multiple_files", {
          paths: ["notes/sub/a.txt", "notes/pic.png"],
        }),
      ),
      /hi/,
    );
    await call("edit_file", {
      path: "notes/sub/a.txt",
      edits: [{ oldText: "all", newText: "there" }],
    });
    assert.equal(
      await Deno.readTextFile(`${root}/notes/sub/a.txt`),
      "hi\nthere\n",
    );
    assert.match(
      textOf(await call("get_file_info", { path: "notes/sub/a.txt" })),
      /size/,
    );
    assert.match(
      textOf(await call("list_directory", { path: "notes" })),
      /sub/,
    );
    assert.match(
      textOf(await call("list_directory_with_sizes", { path: "notes" })),
      /pic\.png/,
    );
    assert.match(
      textOf(await call("directory_tree", { path: "notes" })),
      /a\.txt/,
    );
    assert.match(
      textOf(
        await call("search_files", { path: "notes", pattern: "**/a.txt" }),
      ),
      /a\.txt/,
    );
    await call("move_file", {
      source: "notes/sub/a.txt",
      destination: "notes/b.txt",
    });
    assert.equal(await Deno.readTextFile(`${root}/notes/b.txt`), "hi\nthere\n");
    assert.deepEqual(
      [...called].toSorted(),
      [...PRESETS.get("filesystem")!.tools.keys()].toSorted(),
    );
    await until(
      "every call in the audit",
      async () => (await auditLines(setup.audit)).length >= called.size,
    );
    const lines = await auditLines(setup.audit);
    assert.deepEqual(
      lines.filter((l) => l.outcome !== "forwarded").map((l) => l.tool),
      [],
    );
    assert.deepEqual(lines[0].patterns, ["read:."]);
  } finally {
    await gate[Symbol.asyncDispose]();
    await Deno.remove(setup.dir, { recursive: true });
  }
});
