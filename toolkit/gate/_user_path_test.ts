// Paths on the gate's command line are the user's: under `deno task`, which
// runs the gate in deno.json's folder, they resolve against the folder the
// command was typed in (INIT_CWD), as a shell user expects.

import assert from "node:assert/strict";
import { takeTypedIn, TYPED_IN, userPath } from "./_user_path.ts";
import { AuditLog } from "./audit/_audit.ts";

const ROOT_CONFIG = new URL("../../deno.json", import.meta.url).pathname;
const MAIN = new URL("./main.ts", import.meta.url).pathname;

function envOf(vars: Record<string, string>) {
  return {
    get: (name: string) => vars[name],
    delete: (name: string) => void delete vars[name],
  };
}

Deno.test("userPath() resolves a relative path against the folder typed in, and only then", async (t) => {
  await t.step("relative, with a folder: against it", () => {
    assert.equal(
      userPath("a.jsonl", "/home/me/work/sub"),
      "/home/me/work/sub/a.jsonl",
    );
    assert.equal(
      userPath("../p.yaml", "/home/me/work/sub"),
      "/home/me/work/p.yaml",
    );
  });
  await t.step("absolute: unchanged", () => {
    assert.equal(userPath("/var/log/a.jsonl", "/home/me"), "/var/log/a.jsonl");
  });
  await t.step("without a folder: unchanged, for the working directory", () => {
    assert.equal(userPath("a.jsonl", undefined), "a.jsonl");
  });
});

Deno.test("takeTypedIn() reads the gate task's variable alone, and removes it", async (t) => {
  await t.step("set by the task: read, and gone for the server", () => {
    const vars: Record<string, string> = {
      [TYPED_IN]: "/home/me/sub",
      INIT_CWD: "/home/me/sub",
    };
    assert.equal(takeTypedIn(envOf(vars)), "/home/me/sub");
    assert.deepEqual(vars, { INIT_CWD: "/home/me/sub" });
  });
  await t.step("INIT_CWD alone (inherited from some task): not read", () => {
    assert.equal(takeTypedIn(envOf({ INIT_CWD: "/elsewhere" })), undefined);
  });
  await t.step("empty: none", () => {
    assert.equal(takeTypedIn(envOf({ [TYPED_IN]: "" })), undefined);
  });
  await t.step("an environment that cannot be read: none", () => {
    const denied = {
      get(): string | undefined {
        throw new Deno.errors.NotCapable("no env");
      },
      delete() {},
    };
    assert.equal(takeTypedIn(denied), undefined);
  });
});

function withoutInitCwd(env: Record<string, string>): Record<string, string> {
  const { INIT_CWD: _, ...rest } = env;
  return rest;
}

/** Runs `deno task gate ARGS` as typed in `dir`; resolves with its stderr and exit code. */
async function taskIn(dir: string, args: readonly string[]) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "--config", ROOT_CONFIG, "gate", ...args],
    cwd: dir,
    // deno task keeps an INIT_CWD it inherits (as from `deno task test`):
    // the run must start as a user's shell does, without one.
    clearEnv: true,
    env: { ...withoutInitCwd(Deno.env.toObject()), NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: output.code,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: new TextDecoder().decode(output.stderr),
  };
}

Deno.test("deno task gate, typed in another folder, reads --policy and the pins file named relative to it", async () => {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "gate-init-cwd-" }),
  );
  // Files that exist only in `dir`, and that the gate refuses for what
  // they hold: the message shows which file it read.
  await Deno.writeTextFile(`${dir}/rel.json`, '{"allow": 5}');
  await Deno.writeTextFile(`${dir}/pins.json`, "garbage");
  const policy = await taskIn(dir, ["--policy", "rel.json", "--", "true"]);
  assert.equal(policy.code, 2);
  assert.match(
    policy.stderr,
    new RegExp(`Cannot load the policy: ${dir}/rel\.json:1:2: allow: `),
  );
  const pins = await taskIn(dir, ["pins", "review", "pins.json"]);
  assert.equal(pins.code, 2);
  assert.match(pins.stderr, new RegExp(`Invalid pins file: ${dir}/pins\.json`));
  await Deno.remove(dir, { recursive: true });
});

Deno.test("deno task gate audit verify, typed in another folder, reads the log and anchor named relative to it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gate-init-cwd-" });
  const log = await AuditLog.open(`${dir}/rel.jsonl`, (error) => {
    throw error;
  }, { anchor: `${dir}/rel.anchor` });
  await log.write({
    time: "2026-12-03T12:00:00.000Z",
    tool: "write_file",
    patterns: ["write:a"],
    decision: "allow",
    outcome: "forwarded",
    rule: null,
    elapsedMs: 1,
  });
  await log.close();
  // As a user in `dir` types it: deno task runs the gate in the
  // repository's root, and says `dir` in INIT_CWD.
  const run = await taskIn(dir, [
    "audit",
    "verify",
    "rel.jsonl",
    "--anchor",
    "rel.anchor",
  ]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(
    run.stdout,
    "rel.jsonl: 1 lines, chain intact, its end matches the anchor\n",
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a gate started without its task reads --policy from its working directory, whatever INIT_CWD it inherits", async () => {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "gate-init-cwd-" }),
  );
  const elsewhere = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "gate-init-cwd-other-" }),
  );
  await Deno.writeTextFile(`${dir}/rel.json`, '{"allow": 5}');
  await Deno.writeTextFile(`${elsewhere}/rel.json`, '{"deny": 5}');
  // As a host started from an npm script starts it: INIT_CWD inherited.
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "--policy", "rel.json", "--", "true"],
    cwd: dir,
    env: { INIT_CWD: elsewhere, NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 2);
  assert.match(
    new TextDecoder().decode(output.stderr),
    /Cannot load the policy: rel\.json:1:2: allow: /,
  );
  await Deno.remove(dir, { recursive: true });
  await Deno.remove(elsewhere, { recursive: true });
});
