import assert from "node:assert/strict";
import { lookAtFile } from "./_read_file.ts";
import { sha256Hex } from "./_sha256_hex.ts";

Deno.test("lookAtFile() reports what it finds at the path", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    await t.step("a regular file: bytes, hash and real path", async () => {
      const path = `${dir}/a.json`;
      await Deno.writeTextFile(path, '{"a":1}');
      const look = await lookAtFile(path, 1024);
      assert.equal(look.kind, "ok");
      if (look.kind !== "ok") return;
      assert.equal(new TextDecoder().decode(look.bytes), '{"a":1}');
      assert.equal(look.hash, await sha256Hex(look.bytes));
      assert.equal(look.realPath, await Deno.realPath(path));
    });
    await t.step("a symlink: the target's bytes and real path", async () => {
      const target = `${dir}/target.json`;
      await Deno.writeTextFile(target, "[1]");
      await Deno.symlink(target, `${dir}/link.json`);
      const look = await lookAtFile(`${dir}/link.json`, 1024);
      assert.equal(look.kind, "ok");
      if (look.kind === "ok") {
        assert.equal(look.realPath, await Deno.realPath(target));
      }
    });
    await t.step("nothing there, or a dangling symlink: missing", async () => {
      assert.deepEqual(await lookAtFile(`${dir}/none.json`, 1024), {
        kind: "missing",
      });
      await Deno.symlink(`${dir}/gone.json`, `${dir}/dangling.json`);
      assert.deepEqual(await lookAtFile(`${dir}/dangling.json`, 1024), {
        kind: "missing",
      });
    });
    await t.step("a directory: not-a-file", async () => {
      await Deno.mkdir(`${dir}/sub`);
      const look = await lookAtFile(`${dir}/sub`, 1024);
      assert.equal(look.kind, "not-a-file");
    });
    await t.step(
      "more than maxBytes: too-large, at the boundary ok",
      async () => {
        const path = `${dir}/big.json`;
        await Deno.writeFile(path, new Uint8Array(100).fill(0x20));
        assert.equal((await lookAtFile(path, 100)).kind, "ok");
        assert.deepEqual(await lookAtFile(path, 99), {
          kind: "too-large",
          size: 100,
        });
      },
    );
    await t.step({
      name: "a file longer than its stat size: the read is bounded too",
      ignore: Deno.build.os !== "linux",
      fn: async () => {
        // procfs files stat as 0 bytes yet have content.
        assert.equal(
          (await lookAtFile("/proc/self/status", 10)).kind,
          "too-large",
        );
        const look = await lookAtFile("/proc/self/status", 1 << 20);
        assert.equal(look.kind, "ok");
        if (look.kind === "ok") assert.ok(look.bytes.length > 10);
      },
    });
    await t.step("an empty file: ok with no bytes", async () => {
      const path = `${dir}/empty.json`;
      await Deno.writeFile(path, new Uint8Array());
      const look = await lookAtFile(path, 100);
      assert.equal(look.kind, "ok");
      if (look.kind === "ok") assert.equal(look.bytes.length, 0);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
