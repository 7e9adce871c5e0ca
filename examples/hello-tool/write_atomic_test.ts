import assert from "node:assert/strict";
import { PathChangedError } from "./confine.ts";
import { writeFileAtomic } from "./write_atomic.ts";

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) out.push(entry.name);
  return out.sort();
}

Deno.test("writeFileAtomic() creates and replaces files, leaving no temporary file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    assert.equal(
      await writeFileAtomic(`${dir}/a/b/c.txt`, "héllo", {
        createParents: true,
      }),
      6,
    );
    assert.equal(await Deno.readTextFile(`${dir}/a/b/c.txt`), "héllo");
    await writeFileAtomic(`${dir}/a/b/c.txt`, new Uint8Array([104, 105]));
    assert.equal(await Deno.readTextFile(`${dir}/a/b/c.txt`), "hi");
    await writeFileAtomic(`${dir}/empty.txt`, "");
    assert.equal(await Deno.readTextFile(`${dir}/empty.txt`), "");
    assert.deepEqual(await names(`${dir}/a/b`), ["c.txt"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeFileAtomic() never lets a reader see a partly written file", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/big.txt`;
  // Large enough that a plain truncate-and-write is seen half done.
  const size = 1024 * 1024;
  const versions = ["a", "b"].map((c) => c.repeat(size));
  try {
    await writeFileAtomic(path, versions[0]);
    let done = false;
    let reads = 0;
    const torn: string[] = [];
    const reader = (async () => {
      while (!done) {
        const text = await Deno.readTextFile(path);
        reads++;
        if (!versions.includes(text)) {
          torn.push(`${text.length} bytes starting ${JSON.stringify(text[0])}`);
        }
      }
    })();
    for (let i = 1; i <= 8; i++) await writeFileAtomic(path, versions[i % 2]);
    done = true;
    await reader;
    assert.ok(reads > 0);
    assert.deepEqual(torn, []);
    assert.deepEqual(await names(dir), ["big.txt"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeFileAtomic() keeps an existing file's permission bits", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/secret`, "old", { mode: 0o600 });
    await Deno.chmod(`${dir}/secret`, 0o600);
    await writeFileAtomic(`${dir}/secret`, "new");
    assert.equal((await Deno.stat(`${dir}/secret`)).mode! & 0o777, 0o600);
    await Deno.chmod(`${dir}/secret`, 0o755);
    await writeFileAtomic(`${dir}/secret`, "newer");
    assert.equal((await Deno.stat(`${dir}/secret`)).mode! & 0o777, 0o755);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeFileAtomic() fails without touching the target or leaving a temporary file", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    await t.step(
      "the target is a directory: the rename fails, the temporary file goes",
      async () => {
        await Deno.mkdir(`${dir}/sub`);
        await Deno.writeTextFile(`${dir}/sub/keep.txt`, "keep");
        await assert.rejects(
          writeFileAtomic(`${dir}/sub`, "x"),
          Deno.errors.IsADirectory,
        );
        assert.deepEqual(await names(dir), ["sub"]);
        assert.deepEqual(await names(`${dir}/sub`), ["keep.txt"]);
      },
    );
    await t.step("the parent is missing and createParents is off", async () => {
      await assert.rejects(
        writeFileAtomic(`${dir}/missing/x.txt`, "x"),
        Deno.errors.NotFound,
      );
      assert.deepEqual(await names(dir), ["sub"]);
    });
    await t.step("a relative path is a TypeError", async () => {
      await assert.rejects(
        writeFileAtomic("relative.txt", "x"),
        (error: Error) =>
          error instanceof TypeError &&
          /expected an absolute path/.test(error.message),
      );
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeFileAtomic() with confined refuses a path whose directory is now a link, leaving nothing where it leads", async (t) => {
  const base = await Deno.realPath(await Deno.makeTempDir());
  const root = `${base}/root`;
  const outside = `${base}/outside`;
  try {
    await Deno.mkdir(root);
    await Deno.mkdir(outside);
    // Approved as root/race/…, then race was replaced by a link.
    await Deno.symlink(outside, `${root}/race`);
    await t.step("an existing directory", async () => {
      await assert.rejects(
        writeFileAtomic(`${root}/race/a.txt`, "x", { confined: true }),
        PathChangedError,
      );
      assert.deepEqual(await names(outside), []);
    });
    await t.step("a directory it would create", async () => {
      await assert.rejects(
        writeFileAtomic(`${root}/race/sub/a.txt`, "x", {
          confined: true,
          createParents: true,
        }),
        PathChangedError,
      );
      assert.deepEqual(await names(outside), []);
    });
    await t.step("without confined the link is followed", async () => {
      await writeFileAtomic(`${root}/race/a.txt`, "x");
      assert.deepEqual(await names(outside), ["a.txt"]);
    });
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
