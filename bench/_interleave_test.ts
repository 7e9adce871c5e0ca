import assert from "node:assert/strict";
import { interleavedMedians } from "./_interleave.ts";

Deno.test("interleavedMedians() runs every case each round and gives one figure per case", async () => {
  const calls = [0, 0];
  const figures = await interleavedMedians([
    { fn: () => calls[0]++ },
    { fn: () => calls[1]++ },
  ], { rounds: 3, batchMs: 1 });
  assert.equal(figures.length, 2);
  assert.ok(calls.every((n) => n >= 3 * 16), JSON.stringify(calls));
  assert.ok(figures.every((ns) => ns > 0 && Number.isFinite(ns)));
});
