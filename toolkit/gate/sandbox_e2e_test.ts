// The sandbox (`--sandbox`, `sandbox: true`) against real servers: a link
// flipped under the official filesystem server while it writes, servers
// that reach past their calls on their own, and node, npx-installed and
// Deno servers that must start and work fenced as they do outside.

import assert from "node:assert/strict";
import {
  callTool,
  HELLO_COMMAND,
  type Message,
  rpc,
  runGate,
  serverOf,
  startGateProcess,
  textOf,
} from "./testdata/gate_process.ts";
import { until } from "../testing/_until.ts";
import { findBwrap, INSTALL_LINE } from "./upstream/_sandbox.ts";

const FILESYSTEM = "npm:@modelcontextprotocol/server-filesystem@2026.8.31";
const ROGUE = new URL("./testdata/rogue_server.ts", import.meta.url).pathname;
const FLIPPER = new URL("./testdata/link_flipper.ts", import.meta.url)
  .pathname;

const HAVE_BWRAP = (() => {
  try {
    findBwrap();
    return true;
  } catch {
    return false;
  }
})();

/** A test that needs bubblewrap: ignored where it is missing, saying how to install it. */
function fencedTest(name: string, fn: (t: Deno.TestContext) => Promise<void>) {
  Deno.test({
    name: HAVE_BWRAP
      ? name
      : `${name} (ignored: bubblewrap is missing: ${INSTALL_LINE})`,
    ignore: !HAVE_BWRAP,
    fn,
  });
}

async function tempDir(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "sandbox-" }));
}

async function entries(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) found.push(entry.name);
  return found.sort();
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

fencedTest(
  "a link flipped under the fenced filesystem server sends no write out of notes/ in 300 racing calls",
  async () => {
    const dir = await tempDir();
    const root = `${dir}/work`;
    for (
      const folder of [
        root,
        `${root}/notes`,
        `${root}/notes/real`,
        `${root}/secrets`,
      ]
    ) {
      await Deno.mkdir(folder);
    }
    await Deno.symlink("real", `${root}/notes/flip`);
    const policy = `${dir}/policy.yaml`;
    await Deno.writeTextFile(
      policy,
      `roots: ["${root}"]
presets: [filesystem]
allow: ["read:**", "write:notes/**", "delete:notes/**"]
deny: ["write:secrets/**", "write:/**", "delete:secrets/**"]
`,
    );
    const gate = await startGateProcess(
      ["--policy", policy, "--sandbox"],
      ["deno", "run", "-A", "--no-lock", "--quiet", FILESYSTEM, root],
    );
    const flipper = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", FLIPPER, `${root}/notes/flip`, "real", "../secrets"],
      stdin: "piped",
      stdout: "piped",
    }).spawn();
    const lines = flipper.stdout.pipeThrough(new TextDecoderStream())
      .getReader();
    try {
      const first = await lines.read();
      assert.match(first.value ?? "", /flipping/);
      const answers = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          callTool(gate, "write_file", {
            path: `notes/flip/k${i}.txt`,
            content: `k${i}`,
          })),
      );
      await flipper.stdin.close();
      await flipper.status;
      // Nothing in the denied folder, nothing beside notes/ in the root.
      assert.deepEqual(await entries(`${root}/secrets`), []);
      assert.deepEqual(await entries(root), ["notes", "secrets"]);
      assert.deepEqual(
        (await entries(`${root}/notes`)).filter((n) => !n.startsWith("flip")),
        ["real"],
      );
      // Every write the server reported done landed where it was allowed.
      let landed = 0;
      for (const [i, answer] of answers.entries()) {
        if (answer.result?.isError === true || answer.error !== undefined) {
          continue;
        }
        assert.equal(
          await Deno.readTextFile(`${root}/notes/real/k${i}.txt`),
          `k${i}`,
          textOf(answer),
        );
        landed++;
      }
      assert.ok(
        landed > 0,
        "no write was allowed and done: the race proves nothing",
      );
      assert.equal(
        (await entries(`${root}/notes/real`)).length,
        landed,
        "a file landed that the server did not report",
      );
    } finally {
      lines.releaseLock();
      await flipper.stdin.close().catch(() => {});
      await flipper.stdout.cancel().catch(() => {});
      await flipper.status;
      await gate[Symbol.asyncDispose]();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

fencedTest(
  "a server that writes to a denied folder and opens a socket on its own fails to, fenced, and succeeds unfenced",
  async (t) => {
    const dir = await tempDir();
    const root = `${dir}/work`;
    for (const folder of [root, `${root}/notes`, `${root}/secrets`]) {
      await Deno.mkdir(folder);
    }
    using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    let accepted = 0;
    (async () => {
      for await (const connection of listener) {
        accepted++;
        connection.close();
      }
    })().catch(() => {});
    const policy = `${dir}/policy.yaml`;
    const run = async (fenced: boolean) => {
      const target = `${root}/secrets/${fenced ? "fenced" : "unfenced"}.txt`;
      await Deno.writeTextFile(
        policy,
        `roots: ["${root}"]
unprobed: allow
allow: ["read:**", "write:notes/**"]
deny: ["write:secrets/**"]
${fenced ? "sandbox: { env: [ROGUE_TARGET, ROGUE_PORT] }" : ""}
`,
      );
      const gate = await startGateProcess(
        ["--policy", policy],
        [Deno.execPath(), "run", "-A", ROGUE],
        {
          env: {
            ROGUE_TARGET: target,
            ROGUE_PORT: String((listener.addr as Deno.NetAddr).port),
          },
        },
      );
      try {
        const answer = await callTool(gate, "report");
        return { text: textOf(answer), wrote: await exists(target) };
      } finally {
        await gate[Symbol.asyncDispose]();
      }
    };
    try {
      await t.step("unfenced, it escapes", async () => {
        const { text, wrote } = await run(false);
        assert.match(text, /^write: ok$/m);
        assert.match(text, /^connect: ok$/m);
        assert.equal(wrote, true);
        await until("the connection accepted", () => accepted === 1);
      });
      await t.step("fenced, it cannot", async () => {
        const { text, wrote } = await run(true);
        assert.match(text, /^write: .*(read-only|Read-only|EROFS)/m);
        assert.match(text, /^connect: (?!ok)/m);
        assert.equal(wrote, false);
        assert.equal(accepted, 1);
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

/** A unix socket listening in /run, as a daemon's; `undefined` where /run is not writable. */
function socketInRun(): Deno.UnixListener | undefined {
  try {
    return Deno.listen({
      transport: "unix",
      path: `/run/forge-sandbox-${crypto.randomUUID()}.sock`,
    });
  } catch {
    return undefined;
  }
}

const RUN_SOCKET = HAVE_BWRAP ? socketInRun() : undefined;

Deno.test({
  name:
    `a server cannot reach a daemon's socket in /run, fenced, and can unfenced${
      !HAVE_BWRAP
        ? ` (ignored: bubblewrap is missing: ${INSTALL_LINE})`
        : RUN_SOCKET === undefined
        ? " (ignored: /run is not writable here)"
        : ""
    }`,
  ignore: RUN_SOCKET === undefined,
  async fn() {
    const listener = RUN_SOCKET!;
    const path = (listener.addr as Deno.UnixAddr).path;
    const dir = await tempDir();
    await Deno.mkdir(`${dir}/work`);
    const policy = `${dir}/policy.yaml`;
    let accepted = 0;
    const serving = (async () => {
      for await (const connection of listener) {
        accepted++;
        connection.close();
      }
    })().catch(() => {});
    const run = async (fenced: boolean) => {
      await Deno.writeTextFile(
        policy,
        `roots: ["${dir}/work"]\nunprobed: allow\n${
          fenced ? "sandbox: { env: [ROGUE_UNIX] }\n" : ""
        }`,
      );
      await using gate = await startGateProcess(
        ["--policy", policy],
        [Deno.execPath(), "run", "-A", ROGUE],
        {
          env: { ROGUE_UNIX: path, ROGUE_TARGET: `${dir}/x`, ROGUE_PORT: "9" },
        },
      );
      return textOf(await callTool(gate, "report"));
    };
    try {
      assert.match(await run(false), /^unix: ok$/m);
      await until("the connection accepted", () => accepted === 1);
      assert.match(await run(true), /^unix: NotFound/m);
      assert.equal(accepted, 1);
    } finally {
      listener.close();
      await serving;
      await Deno.remove(path).catch(() => {});
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** Installs the official servers with npm, as npx would, once. */
async function npmInstall(dir: string): Promise<void> {
  const output = await new Deno.Command("npm", {
    args: [
      "install",
      "--prefix",
      dir,
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      "@modelcontextprotocol/server-filesystem@2026.8.31",
      "@modelcontextprotocol/server-memory@2026.8.31",
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
}

async function toolNames(gate: Awaited<ReturnType<typeof startGateProcess>>) {
  const listed = await rpc(gate, "tools/list");
  return listed.result.tools.map((tool: Message) => tool.name);
}

fencedTest(
  "node, npx-installed and Deno servers start fenced and answer",
  async (t) => {
    const dir = await tempDir();
    const root = `${dir}/work`;
    for (
      const folder of [root, `${root}/notes`, `${root}/data`, `${root}/secrets`]
    ) {
      await Deno.mkdir(folder);
    }
    await Deno.writeTextFile(`${root}/secrets/k`, "s3cret");
    const modules = `${dir}/npm`;
    const policy = `${dir}/policy.yaml`;
    const rules = `roots: ["${root}"]
allow: ["read:**", "write:notes/**", "write:data/**", "x-memory-write:**", "x-memory-read:**"]
deny: ["read:secrets/**", "write:secrets/**"]
sandbox: { env: [MEMORY_FILE_PATH, HELLO_ROOT] }
`;
    const filesystemChecks = async (
      gate: Awaited<ReturnType<typeof startGateProcess>>,
    ) => {
      assert.ok((await toolNames(gate)).includes("write_file"));
      const written = await callTool(gate, "write_file", {
        path: "notes/a.txt",
        content: "a",
      });
      assert.equal(written.result?.isError, undefined, textOf(written));
      assert.equal(await Deno.readTextFile(`${root}/notes/a.txt`), "a");
      const denied = await callTool(gate, "write_file", {
        path: "secrets/b.txt",
        content: "b",
      });
      assert.match(textOf(denied), /write:secrets\/b\.txt denied/);
      assert.equal(await exists(`${root}/secrets/b.txt`), false);
    };
    try {
      await Deno.writeTextFile(
        policy,
        `${rules}presets: [filesystem, memory]\n`,
      );
      await t.step("the filesystem server under deno (npm:)", async () => {
        await using gate = await startGateProcess(
          ["--policy", policy],
          ["deno", "run", "-A", "--no-lock", "--quiet", FILESYSTEM, root],
        );
        await filesystemChecks(gate);
        await Deno.remove(`${root}/notes/a.txt`);
      });
      await npmInstall(modules);
      const installed = `${modules}/node_modules/@modelcontextprotocol`;
      await t.step(
        "the filesystem server under node, npm-installed",
        async () => {
          await using gate = await startGateProcess(
            ["--policy", policy],
            ["node", `${installed}/server-filesystem/dist/index.js`, root],
          );
          await filesystemChecks(gate);
        },
      );
      await t.step("the memory server under node, npm-installed", async () => {
        await using gate = await startGateProcess(
          ["--policy", policy],
          ["node", `${installed}/server-memory/dist/index.js`],
          { env: { MEMORY_FILE_PATH: `${root}/data/memory.jsonl` } },
        );
        assert.ok((await toolNames(gate)).includes("create_entities"));
        const created = await callTool(gate, "create_entities", {
          entities: [{ name: "Ada", entityType: "person", observations: [] }],
        });
        assert.notEqual(created.result?.isError, true, textOf(created));
        const graph = await callTool(gate, "read_graph");
        assert.match(textOf(graph), /Ada/);
        assert.match(
          await Deno.readTextFile(`${root}/data/memory.jsonl`),
          /Ada/,
        );
      });
      await t.step("hello-tool under deno", async () => {
        await using gate = await startGateProcess(
          ["--policy", policy],
          HELLO_COMMAND,
          { env: { HELLO_ROOT: root } },
        );
        assert.deepEqual(await toolNames(gate), [
          "hello",
          "write_file",
          "delete_file",
        ]);
        const written = await callTool(gate, "write_file", {
          path: "notes/h.txt",
          content: "h",
        });
        assert.equal(written.result?.isError, undefined, textOf(written));
        assert.equal(await Deno.readTextFile(`${root}/notes/h.txt`), "h");
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

fencedTest(
  "the fence is printed at start, its digest heads the audit, and a reload that changes it restarts the server in the new fence",
  async () => {
    const dir = await tempDir();
    const root = `${dir}/work`;
    await Deno.mkdir(`${root}/notes`, { recursive: true });
    const policy = `${dir}/policy.yaml`;
    const audit = `${dir}/audit.jsonl`;
    await Deno.writeTextFile(
      policy,
      `roots: ["${root}"]\npresets: [filesystem]\nallow: ["read:**", "write:notes/**"]\n`,
    );
    const gate = await startGateProcess(
      ["--policy", policy, "--audit", audit, "--sandbox"],
      ["deno", "run", "-A", "--no-lock", "--quiet", FILESYSTEM, root],
    );
    const auditLines = async () =>
      (await Deno.readTextFile(audit)).trim().split("\n").map((l) =>
        JSON.parse(l)
      );
    try {
      const digest = await gate.waitForStderr(/sandbox: digest: sha256:/);
      assert.ok(
        gate.stderrLines.some((l) => l.includes(`writable  ${root}/notes`)),
        gate.stderr,
      );
      assert.ok(gate.stderrLines.some((l) => /network: none/.test(l)));
      const [first] = await auditLines();
      assert.equal(first.event, "sandbox");
      assert.equal(
        `sandbox: digest: ${first.digest}`,
        digest.replace(/^forge gate: /, ""),
      );
      assert.deepEqual(first.writable, [`${root}/notes`]);
      assert.equal(first.network, false);
      // The root is read-only in this fence, though nothing decides it yet.
      const before = await callTool(gate, "create_directory", { path: "new" });
      assert.equal(before.result?.isError, true, textOf(before));

      const server = await serverOf(gate.pid);
      await Deno.writeTextFile(
        policy,
        `roots: ["${root}"]\npresets: [filesystem]\nallow: ["read:**", "write:**"]\n`,
      );
      // Calls sent meanwhile are answered, by the old server or the new one.
      const racing = Array.from(
        { length: 20 },
        (_, i) =>
          callTool(gate, "write_file", {
            path: `notes/r${i}.txt`,
            content: "r",
          }),
      );
      await gate.waitForStderr(
        /sandbox: the reloaded policy's fence differs \(sha256:\w+ -> sha256:\w+\): restarting the server/,
      );
      await gate.waitForStderr(
        /sandbox: the server restarted in its new fence/,
      );
      for (const answer of await Promise.all(racing)) {
        assert.equal(answer.result?.isError, undefined, JSON.stringify(answer));
      }
      assert.notEqual(await serverOf(gate.pid), server);
      const after = await callTool(gate, "create_directory", { path: "new" });
      assert.equal(after.result?.isError, undefined, textOf(after));
      assert.equal((await Deno.stat(`${root}/new`)).isDirectory, true);
      const events = (await auditLines()).filter((l) => l.event === "sandbox");
      assert.equal(events.length, 2);
      assert.notEqual(events[1].digest, events[0].digest);
      assert.deepEqual(events[1].writable, [root]);
    } finally {
      await gate[Symbol.asyncDispose]();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test("the gate refuses to start a sandboxed server where bubblewrap is missing, and never starts it unfenced", async () => {
  const dir = await tempDir();
  const marker = `${dir}/started`;
  const policy = `${dir}/policy.yaml`;
  await Deno.writeTextFile(policy, `allow: ["read:**"]\nsandbox: true\n`);
  try {
    const run = await runGate(
      ["--policy", policy, "--", "/usr/bin/touch", marker],
      { PATH: `${dir}/no-bin` },
    );
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /bubblewrap \(bwrap\) is not installed/);
    assert.ok(run.stderr.includes(INSTALL_LINE), run.stderr);
    assert.match(run.stderr, /not started unfenced/);
    assert.equal(await exists(marker), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("gate sandbox prints the fence a server would get", async () => {
  const dir = await tempDir();
  const root = `${dir}/work`;
  await Deno.mkdir(`${root}/notes`, { recursive: true });
  await Deno.mkdir(`${root}/secrets`);
  const policy = `${dir}/policy.yaml`;
  await Deno.writeTextFile(
    policy,
    `roots: ["${root}"]
allow: ["read:**", "write:notes/**", "net:https://example.com"]
deny: ["read:secrets/**"]
sandbox: { env: [API_KEY] }
`,
  );
  try {
    const run = await runGate(
      ["sandbox", "--policy", policy, "--", "node", "server.js"],
      { API_KEY: "k-123" },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      new RegExp(`writable +${root}/notes +\\(allow: write:notes/\\*\\*\\)`),
    );
    assert.match(run.stdout, new RegExp(`hidden +${root}/secrets`));
    assert.match(
      run.stdout,
      /network: shared \(allow: net:https:\/\/example\.com\)/,
    );
    assert.match(run.stdout, /environment: .*API_KEY/);
    assert.doesNotMatch(run.stdout, /k-123/);
    assert.match(
      run.stdout,
      /^bwrap --unshare-all --share-net .* -- node server\.js$/m,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

fencedTest(
  "in a gate of many servers, an entry's sandbox fences that server alone",
  async () => {
    const dir = await tempDir();
    const root = `${dir}/work`;
    await Deno.mkdir(`${root}/secrets`, { recursive: true });
    const policy = `${dir}/gate.yaml`;
    const entry = (name: string, fenced: boolean) =>
      `  ${name}:
    command: ${JSON.stringify([Deno.execPath(), "run", "-A", ROGUE])}
    env: { ROGUE_TARGET: "${root}/secrets/${name}.txt", ROGUE_PORT: "9" }
    roots: ["${root}"]
${fenced ? "    sandbox: { env: [ROGUE_TARGET, ROGUE_PORT] }\n" : ""}`;
    await Deno.writeTextFile(
      policy,
      `unprobed: allow
allow: ["read:**", "write:notes/**"]
deny: ["write:secrets/**"]
servers:
${entry("fenced", true)}${entry("open", false)}`,
    );
    const audit = `${dir}/audit.jsonl`;
    const gate = await startGateProcess(
      ["--policy", policy, "--audit", audit],
      [],
    );
    try {
      const fenced = textOf(await callTool(gate, "fenced_report"));
      const open = textOf(await callTool(gate, "open_report"));
      assert.match(fenced, /^write: .*(read-only|Read-only|EROFS)/m);
      assert.match(open, /^write: ok$/m);
      assert.equal(await exists(`${root}/secrets/fenced.txt`), false);
      assert.equal(await exists(`${root}/secrets/open.txt`), true);
      const lines = (await Deno.readTextFile(audit)).trim().split("\n").map(
        (line) => JSON.parse(line),
      );
      const fences = lines.filter((line) => line.event === "sandbox");
      assert.deepEqual(fences.map((line) => line.server), ["fenced"]);
    } finally {
      await gate[Symbol.asyncDispose]();
      await Deno.remove(dir, { recursive: true });
    }
  },
);
