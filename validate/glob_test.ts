import assert from "node:assert/strict";
import { parse, validate } from "./mod.ts";

Deno.test("parse() returns a valid glob unchanged", () => {
  const result = parse("src/**/*.{ts,tsx}", "glob");
  assert.ok(result.ok);
  assert.equal(result.value, "src/**/*.{ts,tsx}");
});

Deno.test("validate() accepts ** only as a whole path segment", async (t) => {
  for (const glob of ["**", "**/x", "a/**", "a/**/b", "{**,x}/y"]) {
    await t.step(
      `valid: ${glob}`,
      () => assert.equal(validate(glob, "glob").ok, true),
    );
  }
  for (
    const [glob, column] of [["a**", 2], ["**b", 1], ["a/**b/c", 3]] as const
  ) {
    await t.step(`invalid: ${glob}`, () => {
      const result = validate(glob, "glob");
      assert.equal(result.ok, false);
      assert.equal(result.diagnostics[0].column, column);
    });
  }
});

Deno.test("validate() treats a ']' first in a class as a literal", () => {
  assert.equal(validate("[]a]", "glob").ok, true);
  assert.equal(validate("[!]a]", "glob").ok, true);
});

Deno.test("validate() warns when a backslash looks like a Windows separator", () => {
  const result = validate("src\\lib\\*.ts", "glob");
  assert.equal(result.ok, true);
  // "\\*" is a deliberate escape of the wildcard, so only "\\l" warns.
  assert.deepEqual(
    result.diagnostics.map((d) => [d.column, d.severity]),
    [[4, "warning"]],
  );
  assert.match(
    result.diagnostics[0].message,
    /globs use '\/' as the path separator/,
  );
});

Deno.test("validate() matches braces across deep nesting without a crash", () => {
  const deep = "{".repeat(30_000) + "}".repeat(30_000);
  assert.equal(validate(deep, "glob").ok, true);
  const open = validate("{".repeat(30_000), "glob");
  assert.equal(open.ok, false);
  assert.equal(open.diagnostics[0].column, 30_000);
});
