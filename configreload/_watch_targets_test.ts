import assert from "node:assert/strict";
import { watchTargets } from "./_watch_targets.ts";

Deno.test("watchTargets() names the directories whose changes can change the config", async (t) => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    await t.step("a plain file: its parent", async () => {
      await Deno.mkdir(`${root}/plain`);
      await Deno.writeTextFile(`${root}/plain/a.json`, "{}");
      const targets = await watchTargets(`${root}/plain/a.json`);
      assert.deepEqual(targets.map((t) => t.dir), [`${root}/plain`]);
    });
    await t.step(
      "a symlink elsewhere: its parent and the target's parent",
      async () => {
        await Deno.mkdir(`${root}/links`);
        await Deno.mkdir(`${root}/real`);
        await Deno.writeTextFile(`${root}/real/b.json`, "{}");
        await Deno.symlink(`${root}/real/b.json`, `${root}/links/b.json`);
        const targets = await watchTargets(`${root}/links/b.json`);
        assert.deepEqual(targets.map((t) => t.dir), [
          `${root}/links`,
          `${root}/real`,
        ]);
      },
    );
    await t.step("a chain of symlinks: every hop's parent", async () => {
      await Deno.mkdir(`${root}/hop1`);
      await Deno.mkdir(`${root}/hop2`);
      await Deno.symlink("../real/b.json", `${root}/hop2/mid.json`);
      await Deno.symlink(`${root}/hop2/mid.json`, `${root}/hop1/c.json`);
      const targets = await watchTargets(`${root}/hop1/c.json`);
      assert.deepEqual(targets.map((t) => t.dir), [
        `${root}/hop1`,
        `${root}/hop2`,
        `${root}/real`,
      ]);
    });
    await t.step(
      "a missing parent: its nearest existing ancestor",
      async () => {
        const targets = await watchTargets(`${root}/not/yet/d.json`);
        assert.deepEqual(targets.map((t) => t.dir), [root]);
      },
    );
    await t.step(
      "the identity changes when the parent is recreated",
      async () => {
        await Deno.mkdir(`${root}/again`);
        const before = await watchTargets(`${root}/again/e.json`);
        await Deno.remove(`${root}/again`);
        // Time is the point: birth times have millisecond resolution, so
        // the new directory must be born at least a millisecond later.
        await new Promise((resolve) => setTimeout(resolve, 5));
        await Deno.mkdir(`${root}/again`);
        const after = await watchTargets(`${root}/again/e.json`);
        assert.deepEqual(after.map((t) => t.dir), before.map((t) => t.dir));
        assert.notEqual(after[0].id, before[0].id);
      },
    );
    await t.step("the identities stay when nothing moved", async () => {
      const first = await watchTargets(`${root}/links/b.json`);
      const second = await watchTargets(`${root}/links/b.json`);
      assert.deepEqual(first, second);
    });
    await t.step(
      "one directory reached by two names: watched once",
      async () => {
        await Deno.mkdir(`${root}/..2026_01`);
        await Deno.writeTextFile(`${root}/..2026_01/f.json`, "{}");
        await Deno.symlink("..2026_01", `${root}/..data`);
        await Deno.symlink("..data/f.json", `${root}/f.json`);
        const targets = await watchTargets(`${root}/f.json`);
        assert.deepEqual(targets.map((t) => t.dir), [root, `${root}/..data`]);
      },
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
