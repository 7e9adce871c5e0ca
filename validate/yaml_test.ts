import assert from "node:assert/strict";
import { parse, validate } from "./mod.ts";
import { YAML_MAX_ALIAS_NODES } from "./yaml.ts";

Deno.test("parse() returns one value per YAML document", () => {
  const result = parse("a: 1\n---\n- x\n- y\n---\n", "yaml");
  assert.ok(result.ok);
  assert.deepEqual(result.value, [{ a: 1 }, ["x", "y"], null]);
});

Deno.test("parse() of an empty YAML stream is an empty list of documents", () => {
  const result = parse("# only a comment\n", "yaml");
  assert.ok(result.ok);
  assert.deepEqual(result.value, []);
});

Deno.test("parse() applies YAML merge keys and shares anchored values", () => {
  const text = "base: &base {a: 1, b: 2}\nchild:\n  <<: *base\n  b: 3\n";
  const result = parse(text, "yaml");
  assert.ok(result.ok);
  assert.deepEqual(result.value, [{
    base: { a: 1, b: 2 },
    child: { a: 1, b: 3 },
  }]);
});

Deno.test("validate() refuses duplicate YAML keys as errors", () => {
  const result = validate("name: a\nother: 1\nname: b\n", "yaml");
  assert.equal(result.ok, false);
  assert.deepEqual(result.diagnostics, [{
    line: 3,
    column: 1,
    message: 'Duplicate key "name" in a mapping: YAML keys must be unique',
    severity: "error",
  }]);
});

Deno.test("validate() refuses a billion-laughs document without expanding it", () => {
  let text = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
  const names = "abcdefghij";
  for (let i = 1; i < names.length; i++) {
    text += `${names[i]}: &${names[i]} [${
      Array(9).fill(`*${names[i - 1]}`).join(",")
    }]\n`;
  }
  const result = validate(text, "yaml");
  assert.equal(result.ok, false);
  assert.match(
    result.diagnostics[0].message,
    new RegExp(`^Aliases expand to more than ${YAML_MAX_ALIAS_NODES} nodes`),
  );
});

Deno.test("validate() accepts many small aliases below the bound", () => {
  const lines = ["x: &x {k: v}"];
  for (let i = 0; i < 1000; i++) lines.push(`y${i}: *x`);
  assert.equal(validate(lines.join("\n"), "yaml").ok, true);
});

Deno.test("validate() refuses recursive and unknown YAML aliases", async (t) => {
  await t.step("recursive", () => {
    const result = validate("a: &a\n  - *a\n", "yaml");
    assert.match(result.diagnostics[0].message, /^Recursive alias "\*a"/);
    assert.deepEqual(
      [result.diagnostics[0].line, result.diagnostics[0].column],
      [2, 5],
    );
  });
  await t.step("unknown", () => {
    const result = validate("a: *nope\n", "yaml");
    assert.match(result.diagnostics[0].message, /^Unknown alias "\*nope"/);
  });
});

Deno.test("validate() points at the opening of an unterminated quote or flow collection", async (t) => {
  await t.step(
    "a quote left open, ignoring quotes in comments and block scalars",
    () => {
      const text = "# it's fine\nnote: |\n  don't \"stop\n  here\nkey: 'open\n";
      const result = validate(text, "yaml");
      assert.equal(result.ok, false);
      assert.deepEqual([
        result.diagnostics[0].line,
        result.diagnostics[0].column,
      ], [5, 6]);
      assert.equal(
        result.diagnostics[0].message,
        "Unterminated quoted string: expected a closing '",
      );
    },
  );
  await t.step("a flow mapping left open", () => {
    const result = validate("a: {b: 1\nc: 2\n", "yaml");
    assert.deepEqual(
      [result.diagnostics[0].line, result.diagnostics[0].column],
      [1, 4],
    );
    assert.match(result.diagnostics[0].message, /^Unclosed '\{'/);
  });
});

Deno.test("validate() refuses YAML nested deeper than the bound, quickly and without a crash", () => {
  const result = validate("[".repeat(100_000), "yaml");
  assert.equal(result.ok, false);
  assert.match(result.diagnostics[0].message, /^Nesting too deep/);
});
