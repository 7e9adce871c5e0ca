import assert from "node:assert/strict";
import { initProject } from "./main.ts";

const DENO = Deno.execPath();

async function run(
  args: string[],
  cwd: string,
  stdin?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(DENO, {
    args,
    cwd,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(stdin));
    await writer.close();
  }
  const { code, stdout, stderr } = await child.output();
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
      const lines = [
        {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "me", version: "1" },
          },
        },
        {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "hello", arguments: { name: "Ada" } },
        },
      ].map((m) => JSON.stringify(m) + "\n").join("");
      const { code, stdout, stderr } = await run(
        ["task", "-q", "start"],
        target,
        lines,
      );
      assert.equal(code, 0, stderr);
      const answers = stdout.trim().split("\n").map((l) => JSON.parse(l));
      assert.deepEqual(answers[1], {
        jsonrpc: "2.0",
        id: 2,
        result: { content: [{ type: "text", text: "Hello, Ada!" }] },
      });
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
