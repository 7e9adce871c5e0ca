import assert from "node:assert/strict";
import { spawnStdio } from "@forge/toolkit/testing";
import { initProject } from "./main.ts";

const DENO = Deno.execPath();

async function run(
  args: string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await new Deno.Command(DENO, {
    args,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code, stdout: decode(stdout), stderr: decode(stderr) };
}

Deno.test("initProject() makes a copy of the template that works outside this repository", async (t) => {
  // The system temp directory is outside the repository's workspace, as a
  // user's ~/my-server is.
  const home = await Deno.makeTempDir({ prefix: "forge-init-" });
  const target = `${home}/my-server`;
  try {
    const files = await initProject(target);
    assert.deepEqual(files, [
      ".gitignore",
      ".mcp.json",
      "README.md",
      "deno.json",
      "main.ts",
      "main_test.ts",
    ]);
    const config = JSON.parse(await Deno.readTextFile(`${target}/deno.json`));
    assert.equal(config.imports["@forge/toolkit"], "jsr:@forge/toolkit@^0.1.0");
    assert.equal(config.links.length, 1);

    await t.step("its tests pass", async () => {
      const { code, stdout, stderr } = await run(["task", "test"], target);
      assert.equal(code, 0, stderr);
      assert.match(stdout + stderr, /ok \| \d+ passed \| 0 failed/);
      assert.doesNotMatch(stderr, /warning/i);
    });

    await t.step("it serves over stdio", async () => {
      await using server = spawnStdio(DENO, ["task", "-q", "start"], {
        cwd: target,
        env: { NO_COLOR: "1" },
      });
      await server.initialize({ clientInfo: { name: "me", version: "1" } });
      const answer = await server.exchange("tools/call", {
        name: "hello",
        arguments: { name: "Ada" },
      }, { id: 2 });
      assert.equal((await server.close()).code, 0, server.stderr);
      assert.deepEqual(answer, {
        jsonrpc: "2.0",
        id: 2,
        result: { content: [{ type: "text", text: "Hello, Ada!" }] },
      });
      assert.deepEqual(server.violations, []);
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("initProject() overwrites nothing and leaves the link out when asked to", async (t) => {
  const home = await Deno.makeTempDir({ prefix: "forge-init-" });
  try {
    await t.step(
      "a non-empty target is refused and left as it was",
      async () => {
        await Deno.writeTextFile(`${home}/notes.txt`, "mine");
        await assert.rejects(
          initProject(home),
          (e) =>
            e instanceof Error &&
            e.message ===
              `Cannot create project: ${home} is not empty (it holds notes.txt): choose a new or empty directory`,
        );
        assert.deepEqual(
          [...Deno.readDirSync(home)].map((e) => e.name),
          ["notes.txt"],
        );
        assert.equal(await Deno.readTextFile(`${home}/notes.txt`), "mine");
      },
    );

    await t.step("--published resolves the package from JSR", async () => {
      await initProject(`${home}/published`, { published: true });
      const config = JSON.parse(
        await Deno.readTextFile(`${home}/published/deno.json`),
      );
      assert.equal(config.links, undefined);
      assert.equal(
        config.imports["@forge/toolkit"],
        "jsr:@forge/toolkit@^0.1.0",
      );
    });

    await t.step("a missing target is a TypeError", async () => {
      await assert.rejects(initProject(""), TypeError);
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
