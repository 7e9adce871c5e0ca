import assert from "node:assert/strict";
import { parse, validate } from "./mod.ts";
import { checkPattern } from "./_pattern_grammar.ts";

Deno.test("parse() splits a permission pattern into verb and target", () => {
  const result = parse("write:docs/ä.txt", "pattern");
  assert.ok(result.ok);
  assert.deepEqual(result.value, { verb: "write", target: "docs/ä.txt" });
});

Deno.test("validate() agrees with checkPattern() on every pattern", async (t) => {
  const patterns = [
    "read:a",
    "Read:a",
    "x-deploy:prod",
    "x-:a",
    "net:",
    "exec:a\u0000",
    "read:e\u0301",
    "nocolon",
    "read::",
  ];
  for (const pattern of patterns) {
    await t.step(JSON.stringify(pattern), () => {
      const expected = typeof checkPattern(pattern) !== "string";
      assert.equal(validate(pattern, "pattern").ok, expected);
    });
  }
});

Deno.test("validate() points at the part of the pattern to fix", async (t) => {
  const cases: [string, number, number][] = [
    ["Read:a", 1, 5],
    ["read:", 5, 6],
    ["read:ab\u0007", 8, 9],
    ["read:x/e\u0301", 8, 9],
  ];
  for (const [pattern, column, endColumn] of cases) {
    await t.step(JSON.stringify(pattern), () => {
      const [diagnostic] = validate(pattern, "pattern").diagnostics;
      assert.deepEqual([diagnostic.column, diagnostic.endColumn], [
        column,
        endColumn,
      ]);
      assert.match(diagnostic.message, /^Invalid permission pattern: /);
    });
  }
});
