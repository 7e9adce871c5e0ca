// Every TypeScript block in README.md and docs/*.md type-checks, through
// `deno check --doc-only`, which checks each ```ts block of a Markdown file
// (all but those marked `ignore`) as a module that resolves imports with the
// repository's deno.json, so `@forge/toolkit` is the local source.

import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
// deno colours its output unless told not to.
// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

/** The Markdown files whose blocks must type-check, relative to the root. */
async function markdownFiles(): Promise<string[]> {
  const files = ["README.md"];
  for await (const entry of Deno.readDir(new URL("docs/", ROOT))) {
    if (entry.isFile && entry.name.endsWith(".md")) {
      files.push(`docs/${entry.name}`);
    }
  }
  return files.sort();
}

async function check(
  files: string[],
  cwd: URL,
): Promise<{ code: number; output: string }> {
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--doc-only", ...files],
    cwd,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  const output = (decoder.decode(result.stdout) + decoder.decode(result.stderr))
    .replace(ANSI, "");
  return { code: result.code, output };
}

Deno.test("every TypeScript block in README.md and docs/*.md type-checks", async () => {
  const files = await markdownFiles();
  const { code, output } = await check(files, ROOT);
  assert.equal(code, 0, output);
});

Deno.test("the docs check fails on a block that does not type-check, naming the file and line", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/bad.md`,
      '# Bad\n\n```ts\nconst port: number = "8080";\n```\n',
    );
    const { code, output } = await check(["bad.md"], new URL(`file://${dir}/`));
    assert.notEqual(code, 0);
    assert.match(output, /bad\.md#3-6\.ts:1:7/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
