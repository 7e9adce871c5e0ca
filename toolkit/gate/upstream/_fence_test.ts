import assert from "node:assert/strict";
import {
  deriveFence,
  describeFence,
  fenceDigest,
  type FenceInput,
  RUNTIME_ENV,
} from "./_fence.ts";
import {
  bwrapArgs,
  findBwrap,
  INSTALL_LINE,
  SandboxError,
} from "./_sandbox.ts";
import { parseGatePolicy } from "../policy/policy_file.ts";
import { parseCommandLine, UsageError } from "../_cli.ts";
import { startGate } from "../gate.ts";

async function tree(): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  for (
    const folder of [
      "work/notes/locked",
      "work/notes/drafts",
      "work/secrets",
      "work/docs",
      "elsewhere",
    ]
  ) {
    await Deno.mkdir(`${dir}/${folder}`, { recursive: true });
  }
  await Deno.writeTextFile(`${dir}/work/.env`, "K=v");
  await Deno.symlink("../elsewhere", `${dir}/work/out`);
  return dir;
}

function input(
  dir: string,
  rules: Partial<FenceInput["rules"]>,
): FenceInput {
  return {
    rules: { allow: [], ask: [], deny: [], ...rules },
    roots: [`${dir}/work`],
    command: ["node", "server.js"],
    env: [],
  };
}

const ENVIRONMENT = { PATH: "/usr/bin:/bin", HOME: "/root" };

Deno.test("deriveFence() makes writable the folders that allow and ask write and delete rules reach under the roots", async (t) => {
  const dir = await tree();
  const root = `${dir}/work`;
  const writable = async (rules: Partial<FenceInput["rules"]>) =>
    (await deriveFence(input(dir, rules), { environment: ENVIRONMENT }))
      .mounts.filter((m) => m.kind === "rw").map((m) => m.path);
  try {
    await t.step("a subtree rule: its folder", async () => {
      assert.deepEqual(await writable({ allow: ["write:notes/**"] }), [
        `${root}/notes`,
      ]);
    });
    await t.step("a glob in the name: the folder before it", async () => {
      assert.deepEqual(await writable({ ask: ["delete:notes/*.md"] }), [
        `${root}/notes`,
      ]);
    });
    await t.step("a file: its folder", async () => {
      assert.deepEqual(await writable({ allow: ["write:docs/a.txt"] }), [
        `${root}/docs`,
      ]);
    });
    await t.step("braces: each alternative, nested ones folded", async () => {
      assert.deepEqual(
        await writable({
          allow: ["write:{notes,docs}/**", "write:notes/drafts/**"],
        }),
        [`${root}/docs`, `${root}/notes`],
      );
    });
    await t.step("read and deny rules make nothing writable", async () => {
      assert.deepEqual(
        await writable({ allow: ["read:**"], deny: ["write:notes/**"] }),
        [],
      );
    });
    await t.step("a rule above the roots: the roots", async () => {
      assert.deepEqual(await writable({ allow: ["write:/**"] }), [root]);
    });
    await t.step("a link out of the roots: nothing, and a note", async () => {
      const fence = await deriveFence(
        input(dir, { allow: ["write:out/**"] }),
        { environment: ENVIRONMENT },
      );
      assert.deepEqual(fence.mounts.filter((m) => m.kind === "rw"), []);
      assert.match(fence.notes.join("\n"), /elsewhere is outside the roots/);
    });
    await t.step("a missing folder: nothing, and a note", async () => {
      const fence = await deriveFence(
        input(dir, { allow: ["write:gone/**"] }),
        { environment: ENVIRONMENT },
      );
      assert.deepEqual(fence.mounts.filter((m) => m.kind === "rw"), []);
      assert.match(fence.notes.join("\n"), /gone is missing: not writable/);
    });
    await t.step("no roots: relative rules make no mount", async () => {
      const fence = await deriveFence(
        { ...input(dir, { allow: ["write:notes/**"] }), roots: [] },
        { environment: ENVIRONMENT },
      );
      assert.deepEqual(fence.mounts.filter((m) => m.kind === "rw"), []);
      assert.match(fence.notes.join("\n"), /relative, and no roots/);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deriveFence() hides deny read targets and protects deny write folders inside writable ones", async () => {
  const dir = await tree();
  const root = `${dir}/work`;
  try {
    const fence = await deriveFence(
      input(dir, {
        allow: ["read:**", "write:notes/**"],
        deny: [
          "read:secrets/**",
          "read:.env",
          "read:**/*.key",
          "read:**",
          "write:notes/locked/**",
          "write:docs/**",
        ],
      }),
      { environment: ENVIRONMENT },
    );
    // The mounts of this tree, less the root's own read-only bind when it
    // lies under /tmp (and the program's folder: the checkout may be there).
    const mounts = fence.mounts
      .filter((m) => m.path.startsWith(`${dir}/`) && m.path !== root)
      .map((m) => [m.kind, m.path]);
    assert.deepEqual(mounts, [
      ["rw", `${root}/notes`],
      ["hide", `${root}/secrets`],
      ["hide-file", `${root}/.env`],
      ["ro", `${root}/notes/locked`],
    ]);
    const notes = fence.notes.join("\n");
    assert.match(
      notes,
      /read:\*\*\/\*\.key: a glob inside a name: left to the policy/,
    );
    assert.match(notes, /read:\*\*: holds a root: left to the policy/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deriveFence() shares the network only for an allow or ask net rule", async () => {
  const dir = await tree();
  try {
    const net = async (rules: Partial<FenceInput["rules"]>) =>
      (await deriveFence(input(dir, rules), { environment: ENVIRONMENT }))
        .network;
    assert.deepEqual(await net({ allow: ["read:**"] }), {
      shared: false,
      why: "no allow or ask net: rule",
    });
    assert.equal((await net({ deny: ["net:**"] })).shared, false);
    assert.deepEqual(await net({ ask: ["net:https://*.example.com"] }), {
      shared: true,
      why: "ask: net:https://*.example.com",
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deriveFence() gives the server only the runtime's variables and those named", async () => {
  const fence = await deriveFence({
    rules: { allow: [], ask: [], deny: [] },
    roots: [],
    command: ["node", "server.js"],
    env: ["API_KEY", "UNSET"],
  }, {
    environment: {
      PATH: "/usr/bin",
      HOME: "/home/u",
      DENO_DIR: "/cache/deno",
      API_KEY: "k",
      AWS_SECRET_ACCESS_KEY: "s",
      SSH_AUTH_SOCK: "/run/agent",
    },
  });
  assert.deepEqual(fence.env, {
    PATH: "/usr/bin",
    HOME: "/home/u",
    DENO_DIR: "/cache/deno",
    API_KEY: "k",
  });
  assert.ok(RUNTIME_ENV.includes("PATH"));
});

Deno.test("fenceDigest() changes with the mounts, the network and the variables' names, not their values", async () => {
  const dir = await tree();
  try {
    const of = async (
      rules: Partial<FenceInput["rules"]>,
      environment: Record<string, string> = ENVIRONMENT,
    ) =>
      fenceDigest(
        await deriveFence(input(dir, rules), { environment }),
      );
    const base = await of({ allow: ["write:notes/**"] });
    assert.match(base, /^sha256:[0-9a-f]{64}$/);
    assert.equal(await of({ allow: ["write:notes/**"] }), base);
    assert.equal(
      await of({ allow: ["write:notes/**"] }, { ...ENVIRONMENT, HOME: "/x" }),
      base,
    );
    assert.notEqual(await of({ allow: ["write:docs/**"] }), base);
    assert.notEqual(
      await of({ allow: ["write:notes/**", "net:https://a.example"] }),
      base,
    );
    assert.notEqual(
      await of({ allow: ["write:notes/**"] }, { ...ENVIRONMENT, LANG: "C" }),
      base,
    );
    const lines = describeFence(
      await deriveFence(input(dir, { allow: ["write:notes/**"] }), {
        environment: ENVIRONMENT,
      }),
    );
    assert.ok(lines.includes(`digest: ${base}`), lines.join("\n"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bwrapArgs() lays the mounts over a read-only root, in order, then the command", async () => {
  const dir = await tree();
  const root = `${dir}/work`;
  try {
    const fence = await deriveFence(
      input(dir, {
        allow: ["write:notes/**"],
        deny: ["read:secrets/**", "read:.env"],
      }),
      { environment: ENVIRONMENT },
    );
    const args = bwrapArgs(fence, ["node", "server.js"]);
    const text = args.join(" ");
    assert.match(
      text,
      /^--unshare-all --die-with-parent --ro-bind \/ \/ --dev \/dev --proc \/proc --tmpfs \/tmp /,
    );
    assert.doesNotMatch(text, /--share-net/);
    // The daemons' sockets (docker, D-Bus) are not the server's to reach.
    assert.ok(text.includes("--tmpfs /tmp --tmpfs /run "), text);
    const at = (part: string) => text.indexOf(part);
    assert.ok(at(`--bind ${root}/notes ${root}/notes`) > at("--tmpfs /tmp"));
    assert.ok(
      at(`--tmpfs ${root}/secrets --remount-ro ${root}/secrets`) >
        at(`--bind ${root}/notes`),
    );
    assert.ok(text.includes(`--ro-bind /dev/null ${root}/.env`));
    assert.deepEqual(args.slice(-3), ["--", "node", "server.js"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("findBwrap() refuses where bubblewrap cannot run, naming the install line", () => {
  assert.throws(
    () => findBwrap("/nonexistent", "linux"),
    (error: Error) =>
      error instanceof SandboxError && error.message.includes(INSTALL_LINE) &&
      /not started unfenced/.test(error.message),
  );
  assert.throws(
    () => findBwrap("/usr/bin", "darwin"),
    /needs Linux and bubblewrap, and this is darwin/,
  );
});

Deno.test("the policy file's sandbox is true, false or the variables' names", async (t) => {
  await t.step("true", () => {
    assert.deepEqual(parseGatePolicy({ sandbox: true }).sandbox, { env: [] });
  });
  await t.step("false or absent", () => {
    assert.equal(parseGatePolicy({ sandbox: false }).sandbox, undefined);
    assert.equal(parseGatePolicy({}).sandbox, undefined);
  });
  await t.step("names", () => {
    assert.deepEqual(
      parseGatePolicy({ sandbox: { env: ["API_KEY"] } }).sandbox,
      {
        env: ["API_KEY"],
      },
    );
  });
  for (
    const [value, message] of [
      ["yes", /sandbox: expected true, false or \{ env: /],
      [{ envs: [] }, /sandbox\.envs: unknown key/],
      [{ env: "A" }, /sandbox\.env: expected a list of variable names/],
      [{ env: ["A=b"] }, /sandbox\.env\[0\]: expected a variable name/],
    ] as const
  ) {
    await t.step(`refused: ${JSON.stringify(value)}`, () => {
      assert.throws(() => parseGatePolicy({ sandbox: value }), message);
    });
  }
});

Deno.test("--sandbox cannot fence a --url server", async () => {
  const line = parseCommandLine([
    "--policy",
    "p.yaml",
    "--sandbox",
    "--",
    "srv",
  ]);
  assert.equal(!line.help && line.sandbox, true);
  assert.throws(
    () =>
      parseCommandLine([
        "--policy",
        "p.yaml",
        "--sandbox",
        "--url",
        "https://mcp.example.com/mcp",
      ]),
    (error: Error) =>
      error instanceof UsageError &&
      /--sandbox with --url: a remote server cannot be fenced/.test(
        error.message,
      ),
  );
  await assert.rejects(
    () =>
      startGate([], {
        policy: "unused.yaml",
        url: "https://mcp.example.com/mcp",
        sandbox: true,
      }),
    /a url server cannot be sandboxed/,
  );
});

Deno.test("a policy file's sandbox: true refuses a url server before it is spoken to", async () => {
  const dir = await Deno.makeTempDir();
  const policy = `${dir}/policy.yaml`;
  await Deno.writeTextFile(policy, "allow: []\nsandbox: true\n");
  try {
    await assert.rejects(
      () =>
        startGate([], {
          policy,
          url: "http://127.0.0.1:9/mcp",
          log: () => {},
        }),
      /the policy file says sandbox, but a url server cannot be sandboxed/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
