import assert from "node:assert/strict";
import {
  PathChangedError,
  realPathOf,
  removeFileConfined,
  resolvesTo,
} from "./confine.ts";

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) out.push(entry.name);
  return out.sort();
}

async function tree(): Promise<
  { base: string; root: string; outside: string }
> {
  const base = await Deno.realPath(await Deno.makeTempDir());
  await Deno.mkdir(`${base}/root`);
  await Deno.mkdir(`${base}/outside`);
  return { base, root: `${base}/root`, outside: `${base}/outside` };
}

Deno.test("resolvesTo() and realPathOf() see a link on the way and a missing path", async () => {
  const { base, root, outside } = await tree();
  try {
    await Deno.symlink(outside, `${root}/link`);
    assert.equal(resolvesTo(root), true);
    assert.equal(resolvesTo(`${root}/link`), false);
    assert.equal(resolvesTo(`${root}/missing`), false);
    assert.equal(realPathOf(`${root}/link`), outside);
    assert.equal(realPathOf(`${root}/missing/x`), undefined);
    await Deno.writeTextFile(`${root}/a.txt`, "a");
    await Deno.writeTextFile(`${root}/b.txt`, "b");
    using file = await Deno.open(`${root}/a.txt`);
    assert.equal(resolvesTo(`${root}/a.txt`, file), true);
    assert.equal(resolvesTo(`${root}/b.txt`, file), false);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("removeFileConfined() removes a file or a link itself, and refuses a directory", async () => {
  const { base, root } = await tree();
  try {
    await Deno.writeTextFile(`${root}/a.txt`, "a");
    await Deno.symlink(`${root}/a.txt`, `${root}/alias.txt`);
    removeFileConfined(`${root}/alias.txt`);
    assert.deepEqual(await names(root), ["a.txt"]);
    removeFileConfined(`${root}/a.txt`);
    assert.deepEqual(await names(root), []);
    await Deno.mkdir(`${root}/dir`);
    assert.throws(
      () => removeFileConfined(`${root}/dir`),
      Deno.errors.IsADirectory,
    );
    assert.throws(
      () => removeFileConfined(`${root}/none.txt`),
      Deno.errors.NotFound,
    );
    assert.deepEqual(await names(root), ["dir"]);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("removeFileConfined() refuses a path whose directory is now a link, leaving the file there as it was", async () => {
  const { base, root, outside } = await tree();
  try {
    await Deno.writeTextFile(`${outside}/d.txt`, "keep");
    // Approved as root/race/d.txt, then race was replaced by a link.
    await Deno.symlink(outside, `${root}/race`);
    assert.throws(
      () => removeFileConfined(`${root}/race/d.txt`),
      (error: Error) =>
        error instanceof PathChangedError &&
        error.path === `${root}/race/d.txt`,
    );
    assert.deepEqual(await names(outside), ["d.txt"]);
    assert.equal(await Deno.readTextFile(`${outside}/d.txt`), "keep");
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
