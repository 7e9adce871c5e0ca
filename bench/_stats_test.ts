import assert from "node:assert/strict";
import { median, percentile, rotate } from "./_stats.ts";

Deno.test("percentile() returns a measured value by nearest rank", async (t) => {
  const values = Array.from({ length: 100 }, (_, i) => 100 - i);
  await t.step("p50 of 1..100 is 50", () => {
    assert.equal(percentile(values, 50), 50);
  });
  await t.step("p99 of 1..100 is 99 and p100 the maximum", () => {
    assert.equal(percentile(values, 99), 99);
    assert.equal(percentile(values, 100), 100);
  });
  await t.step("p99 of 10 values is the largest", () => {
    assert.equal(percentile([3, 1, 2, 9, 4, 5, 6, 7, 8, 10], 99), 10);
  });
  await t.step("does not reorder its input", () => {
    const input = [3, 1, 2];
    percentile(input, 50);
    assert.deepEqual(input, [3, 1, 2]);
  });
});

Deno.test("percentile() refuses an empty list and an out-of-range p", () => {
  assert.throws(() => percentile([], 50), RangeError);
  assert.throws(() => percentile([1], 0), /p must be in \(0, 100\], got 0/);
  assert.throws(() => percentile([1], 101), RangeError);
  assert.throws(() => percentile([1], NaN), RangeError);
});

Deno.test("median() averages the middle pair of an even count", () => {
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([7, 1, 5]), 5);
  assert.throws(() => median([]), /no values/);
});

Deno.test("rotate() starts the order at the given place and wraps", () => {
  assert.deepEqual(rotate(["a", "b", "c"], 0), ["a", "b", "c"]);
  assert.deepEqual(rotate(["a", "b", "c"], 4), ["b", "c", "a"]);
  assert.deepEqual(rotate(["a", "b", "c"], -1), ["c", "a", "b"]);
  assert.deepEqual(rotate([], 3), []);
});
