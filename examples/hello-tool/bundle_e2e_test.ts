// hello-tool shipped as one file: `deno bundle` of main.ts, started from a
// directory that holds nothing of the repository, spoken to over stdio the
// way a host would.

import assert from "node:assert/strict";
import type { StdioClient } from "@forge/toolkit/testing";
import { runOnce, startSession, textOf } from "./_main_process.ts";

const MAIN = decodeURIComponent(new URL("./main.ts", import.meta.url).pathname);
const REPO = decodeURIComponent(new URL("../../", import.meta.url).pathname);
const BUILT_IN_LINE =
  /^hello-tool: no config\.json beside the script: using the built-in default config \(greeting "[^"]+"\); set HELLO_CONFIG to a file to reload it live$/;

async function tempDir(prefix: string): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix }));
}

/** Bundles main.ts into `dir`; resolves with the bundle's path. */
async function bundle(dir: string): Promise<string> {
  const out = `${dir}/hello-tool.js`;
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--platform", "deno", "--output", out, MAIN],
    cwd: REPO,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(result.stderr);
  assert.equal(result.code, 0, `deno bundle failed:\n${stderr}`);
  return out;
}

async function greet(server: StdioClient): Promise<string> {
  return textOf(await server.call("hello", { name: "Ada" }));
}

async function listing(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

Deno.test("a deno bundle of hello-tool runs from any directory, on its built-in config or a HELLO_CONFIG file", async (t) => {
  const base = await tempDir("hello-bundle-test-");
  try {
    const shipped = `${base}/ship`;
    const elsewhere = `${base}/elsewhere`;
    const root = `${base}/root`;
    for (const dir of [shipped, elsewhere, root]) await Deno.mkdir(dir);
    const script = await bundle(shipped);
    const options = { script, cwd: elsewhere, clearEnv: true };
    const shippedDefault = JSON.parse(
      await Deno.readTextFile(new URL("./config.json", import.meta.url)),
    ).greeting;

    await t.step(
      "with no config.json beside it, greets with the built-in default and says so in one stderr line",
      async () => {
        await using server = await startSession({ HELLO_ROOT: root }, options);
        const result = await server.request("tools/list");
        assert.deepEqual(
          (result.tools as { name: string }[]).map((tool) => tool.name),
          ["hello", "write_file", "delete_file"],
        );
        assert.equal(await greet(server), `${shippedDefault}, Ada!`);
        const written = await server.call("write_file", {
          path: "a.txt",
          content: "ok",
        });
        assert.equal(textOf(written), "Wrote 2 bytes to a.txt");
        assert.equal(await Deno.readTextFile(`${root}/a.txt`), "ok");
        assert.equal((await server.close()).code, 0);

        const said = server.stderrLines.filter((l) => BUILT_IN_LINE.test(l));
        assert.equal(said.length, 1, server.stderr);
        assert.ok(said[0].includes(JSON.stringify(shippedDefault)));
        const line = server.stderrLines.find((l) => l.includes("mcpServers"))!;
        const entry = JSON.parse(line.slice(line.indexOf("{")))
          .mcpServers["hello-tool"];
        assert.equal(entry.args.at(-1), script, "the entry runs the bundle");
        assert.deepEqual(await listing(elsewhere), []);
        assert.deepEqual(await listing(shipped), ["hello-tool.js"]);
      },
    );

    await t.step(
      "a HELLO_CONFIG file is used instead and reloaded live",
      async () => {
        const config = `${base}/mine.json`;
        await Deno.writeTextFile(config, '{ "greeting": "Bonjour" }\n');
        await using server = await startSession(
          { HELLO_ROOT: root, HELLO_CONFIG: config },
          options,
        );
        assert.equal(await greet(server), "Bonjour, Ada!");
        await Deno.writeTextFile(config, '{ "greeting": "Hej" }\n');
        await server.waitForStderr(/greeting is now "Hej"/);
        assert.equal(await greet(server), "Hej, Ada!");
        await server.close();
        assert.ok(!server.stderrLines.some((l) => BUILT_IN_LINE.test(l)));
      },
    );

    await t.step(
      "a HELLO_CONFIG file that is missing stops it with status 1, not the built-in default",
      async () => {
        const missing = `${base}/none.json`;
        const run = await runOnce(
          { HELLO_ROOT: root, HELLO_CONFIG: missing },
          [],
          options,
        );
        assert.equal(run.code, 1);
        assert.match(run.stderr, /Cannot start: .*not found: .*none\.json/);
        assert.doesNotMatch(run.stderr, /built-in/);
        assert.equal(run.stdout, "");
      },
    );

    await t.step(
      "a config.json beside the bundle is used and reloaded live, as beside main.ts in a clone",
      async () => {
        const beside = `${shipped}/config.json`;
        await Deno.writeTextFile(beside, '{ "greeting": "Hola" }\n');
        try {
          await using server = await startSession(
            { HELLO_ROOT: root },
            options,
          );
          assert.equal(await greet(server), "Hola, Ada!");
          await Deno.writeTextFile(beside, '{ "greeting": "Ciao" }\n');
          await server.waitForStderr(/greeting is now "Ciao"/);
          assert.equal(await greet(server), "Ciao, Ada!");
          await server.close();
          assert.ok(!server.stderrLines.some((l) => BUILT_IN_LINE.test(l)));
        } finally {
          await Deno.remove(beside);
        }
      },
    );
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
