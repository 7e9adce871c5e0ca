// forge gate shipped as one file, the way `deno compile` ships it (which
// needs a runtime download this machine cannot make): `deno bundle` of
// main.ts, run from a directory that holds nothing of the repository, in
// front of hello-tool.

import assert from "node:assert/strict";
import {
  callTool,
  HELLO_COMMAND,
  startGateProcess,
  textOf,
} from "./testdata/gate_process.ts";

const MAIN = decodeURIComponent(new URL("./main.ts", import.meta.url).pathname);
const REPO = decodeURIComponent(new URL("../../", import.meta.url).pathname);

Deno.test("the bundled gate decides calls by its policy from a directory without the repository", async () => {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "gate-bundle-" }),
  );
  try {
    const out = `${dir}/forge-gate.js`;
    const built = await new Deno.Command(Deno.execPath(), {
      args: ["bundle", "--quiet", "--platform", "deno", "--output", out, MAIN],
      cwd: REPO,
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(
      built.code,
      0,
      `deno bundle failed:\n${new TextDecoder().decode(built.stderr)}`,
    );
    const root = `${dir}/root`;
    await Deno.mkdir(root);
    await Deno.writeTextFile(
      `${dir}/policy.toml`,
      'allow = ["write:notes/**"]\ndeny = ["write:secrets/**"]\nunprobed = "allow"\n',
    );
    await using gate = await startGateProcess(
      ["--policy", "policy.toml", "--audit", "audit.jsonl"],
      HELLO_COMMAND,
      { entry: out, cwd: dir, env: { HELLO_ROOT: root } },
    );
    const allowed = await callTool(gate, "write_file", {
      path: "notes/a.txt",
      content: "hi",
    });
    assert.equal(textOf(allowed), "Wrote 2 bytes to notes/a.txt");
    const denied = await callTool(gate, "write_file", {
      path: "secrets/k",
      content: "x",
    });
    assert.match(
      textOf(denied),
      /write:secrets\/k denied by write:secrets\/\*\*/,
    );
    assert.equal(
      textOf(await callTool(gate, "hello", { name: "Ada" })),
      "Hello, Ada!",
    );
    const status = await gate.close();
    assert.equal(status.code, 0);
    const audit = (await Deno.readTextFile(`${dir}/audit.jsonl`)).trim()
      .split("\n").map((line) => JSON.parse(line).outcome);
    assert.deepEqual(audit, ["forwarded", "denied", "forwarded"]);
    assert.equal(await Deno.readTextFile(`${root}/notes/a.txt`), "hi");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
