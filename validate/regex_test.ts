import assert from "node:assert/strict";
import { parse, validate } from "./mod.ts";

Deno.test("parse() returns a RegExp built with the given flags", () => {
  const result = parse("^(?<word>\\p{L}+)$", "regex", { flags: "iu" });
  assert.ok(result.ok);
  const regex = result.value as RegExp;
  assert.ok(regex instanceof RegExp);
  assert.equal(regex.flags, "iu");
  assert.equal(regex.exec("Ñandú")?.groups?.word, "Ñandú");
});

Deno.test("validate() checks regex flags", async (t) => {
  const cases: [string, RegExp][] = [
    ["gx", /^Invalid regular expression flag "x"/],
    ["gig", /^Repeated regular expression flag "g"/],
    ["uv", /^Regular expression flags "u" and "v" cannot be combined/],
  ];
  for (const [flags, message] of cases) {
    await t.step(flags, () => {
      const result = validate("a", "regex", { flags });
      assert.equal(result.ok, false);
      assert.match(result.diagnostics[0].message, message);
    });
  }
});

Deno.test("validate() applies the u flag's stricter grammar only with the flag", () => {
  assert.equal(validate("\\-{", "regex").ok, true);
  const result = validate("\\-{", "regex", { flags: "u" });
  assert.equal(result.ok, false);
  assert.equal(result.diagnostics[0].column, 1);
});

Deno.test("validate() spans the whole pattern with the engine's message when it cannot locate a problem", () => {
  // Mixing set operators in a v-mode class is refused by the engine but
  // not modelled by the locator.
  const result = validate("[a--b&&c]", "regex", { flags: "v" });
  assert.equal(result.ok, false);
  assert.deepEqual(result.diagnostics, [{
    line: 1,
    column: 1,
    endLine: 1,
    endColumn: 10,
    message:
      "Invalid regular expression: Invalid set operation in character class",
    severity: "error",
  }]);
});

Deno.test("validate() locates the less common regex errors", async (t) => {
  const cases: [string, string, number, RegExp][] = [
    ["(?-:a)", "", 1, /^Empty modifier group/],
    ["(?<a>x)\\k<a", "", 8, /^Unclosed group name/],
    ["[a-\\d]", "u", 2, /cannot be a range endpoint/],
    ["\\u{", "u", 1, /^Invalid Unicode escape/],
    ["[(]", "v", 2, /must be escaped in a character class/],
  ];
  for (const [source, flags, column, message] of cases) {
    await t.step(`/${source}/${flags}`, () => {
      const result = validate(source, "regex", { flags });
      assert.equal(result.ok, false);
      assert.equal(result.diagnostics[0].column, column);
      assert.match(result.diagnostics[0].message, message);
    });
  }
});

Deno.test("validate() allows the same group name in different alternatives", () => {
  assert.equal(
    validate("(?<y>\\d{4})-\\d\\d|\\d\\d-(?<y>\\d{4})", "regex").ok,
    true,
  );
  const result = validate("(?<y>a)(?:(?<y>b))", "regex");
  assert.equal(result.ok, false);
  assert.equal(result.diagnostics[0].column, 14);
});

Deno.test("validate() refuses regex sources longer than the argument limit", () => {
  const result = validate("a".repeat(70_000), "regex");
  assert.equal(result.ok, false);
  assert.match(
    result.diagnostics[0].message,
    /^Text too long for the regex format: 70000 characters/,
  );
});
