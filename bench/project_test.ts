// bench/ is its own project (bench/deno.json, bench/deno.lock) that reaches
// the toolkit only through its public entries, as a user would: these tests
// keep its import map in step with the root's exports and catch an import
// that climbs out of bench/ into the library's files.
import assert from "node:assert/strict";
import { BENCH_DIR, REPO_ROOT } from "./_servers.ts";

const NAME = "@forge/toolkit";

async function readJson(path: string): Promise<Record<string, unknown>> {
  return JSON.parse(await Deno.readTextFile(path));
}

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory && entry.name !== "node_modules") {
      yield* sources(path);
    } else if (entry.isFile && /\.(ts|mjs)$/.test(entry.name)) {
      yield path;
    }
  }
}

Deno.test("bench/deno.json maps every root export, and only those, to its mod.ts", async () => {
  const root = await readJson(`${REPO_ROOT}/deno.json`);
  const bench = await readJson(`${BENCH_DIR}/deno.json`);
  assert.equal(root.name, NAME);
  const exports = root.exports as Record<string, string>;
  const expected = Object.fromEntries(
    Object.entries(exports).map(([entry, file]) => [
      entry === "." ? NAME : `${NAME}/${entry.slice(2)}`,
      `.${file}`,
    ]),
  );
  const imports = bench.imports as Record<string, string>;
  const mapped = Object.fromEntries(
    Object.entries(imports).filter(([name]) =>
      name === NAME || name.startsWith(`${NAME}/`)
    ),
  );
  assert.deepEqual(mapped, expected);
});

Deno.test("bench/deno.json is its own workspace root with its own lock", async () => {
  const bench = await readJson(`${BENCH_DIR}/deno.json`);
  // An empty workspace makes bench/ a root of its own: without it Deno warns
  // that bench/deno.json is not a member and ignores the parent's config.
  assert.deepEqual(bench.workspace, []);
  const lock = await readJson(`${BENCH_DIR}/deno.lock`);
  const specifiers = Object.keys(lock.specifiers as Record<string, string>);
  assert.ok(specifiers.includes("npm:fastmcp@4.20.16"), specifiers.join(", "));
  const rootLock = await readJson(`${REPO_ROOT}/deno.lock`);
  const rootSpecifiers = Object.keys(
    rootLock.specifiers as Record<string, string>,
  );
  for (const peer of ["fastmcp", "tmcp", "@tmcp/"]) {
    assert.ok(
      !rootSpecifiers.some((s) => s.startsWith(`npm:${peer}`)),
      `the root lock holds a benchmark peer: ${peer}`,
    );
  }
});

Deno.test("bench sources import the toolkit through public entries only", async () => {
  const offenders: string[] = [];
  for await (const path of sources(BENCH_DIR)) {
    const text = await Deno.readTextFile(path);
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
      const specifier = match[1];
      if (!specifier.startsWith(".")) continue;
      const target = new URL(specifier, `file://${path}`).pathname;
      if (!target.startsWith(`${BENCH_DIR}/`)) {
        offenders.push(`${path.slice(BENCH_DIR.length + 1)}: ${specifier}`);
      }
    }
  }
  assert.deepEqual(offenders, []);
});
