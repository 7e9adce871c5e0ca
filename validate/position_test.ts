import assert from "node:assert/strict";
import { Locator, offsetOfLine } from "./position.ts";

Deno.test("Locator.position() counts lines on \\n, \\r\\n and a lone \\r", async (t) => {
  await t.step("\\n", () => {
    assert.deepEqual(new Locator("ab\ncd").position(4), { line: 2, column: 2 });
  });
  await t.step("\\r\\n is one line break", () => {
    const locator = new Locator("ab\r\ncd");
    assert.deepEqual(locator.position(2), { line: 1, column: 3 });
    assert.deepEqual(locator.position(4), { line: 2, column: 1 });
  });
  await t.step("a lone \\r", () => {
    assert.deepEqual(new Locator("ab\rcd").position(3), { line: 2, column: 1 });
  });
});

Deno.test("Locator.position() counts columns in code points", async (t) => {
  await t.step("an emoji (two UTF-16 units) is one column", () => {
    assert.deepEqual(new Locator("😀x").position(2), { line: 1, column: 2 });
  });
  await t.step("CJK and combining marks count one column each", () => {
    const text = "漢字e\u0301!";
    assert.deepEqual(new Locator(text).position(4), { line: 1, column: 5 });
  });
  await t.step("an offset inside a surrogate pair names that character", () => {
    assert.deepEqual(new Locator("a😀b").position(2), { line: 1, column: 2 });
  });
});

Deno.test("Locator.position() answers offsets in any order and clamps them", () => {
  const locator = new Locator("one\ntwo\nthree");
  assert.deepEqual(locator.position(9), { line: 3, column: 2 });
  assert.deepEqual(locator.position(1), { line: 1, column: 2 });
  assert.deepEqual(locator.position(5), { line: 2, column: 2 });
  assert.deepEqual(locator.position(999), { line: 3, column: 6 });
  assert.deepEqual(locator.position(-4), { line: 1, column: 1 });
});

Deno.test("Locator.diagnostic() adds the end only for a non-empty span", () => {
  const locator = new Locator("key: value");
  assert.deepEqual(locator.diagnostic(5, "Bad", "warning", 10), {
    line: 1,
    column: 6,
    endLine: 1,
    endColumn: 11,
    message: "Bad",
    severity: "warning",
  });
  assert.deepEqual(locator.diagnostic(5, "Bad"), {
    line: 1,
    column: 6,
    message: "Bad",
    severity: "error",
  });
});

Deno.test("offsetOfLine() finds the start of a 1-based line", () => {
  assert.equal(offsetOfLine("a\nbb\nccc", 1), 0);
  assert.equal(offsetOfLine("a\nbb\nccc", 3), 5);
  assert.equal(offsetOfLine("a", 9), 1);
});
