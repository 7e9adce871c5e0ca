import assert from "node:assert/strict";
import { parse, parseAll, validate } from "./mod.ts";
import { YAML_MAX_ALIAS_NODES } from "./yaml.ts";

Deno.test("parseAll() returns one value per YAML document", () => {
  const result = parseAll("a: 1\n---\n- x\n- y\n---\n", "yaml");
  assert.ok(result.ok);
  assert.deepEqual(result.value, [{ a: 1 }, ["x", "y"], null]);
});

Deno.test("parseAll() of an empty YAML stream is an empty list of documents", () => {
  const result = parseAll("# only a comment\n", "yaml");
  assert.ok(result.ok);
  assert.deepEqual(result.value, []);
});

Deno.test("parseAll() reports errors in any document, and only reads yaml", () => {
  const result = parseAll("a: 1\n---\nb: [1,\n", "yaml");
  assert.equal(result.ok, false);
  assert.equal(result.diagnostics[0].severity, "error");
  assert.throws(
    // @ts-expect-error: only "yaml" is a multi-document format
    () => parseAll("{}", "json"),
    TypeError,
    'Cannot parse all documents: only yaml holds several documents, got "json"',
  );
});

Deno.test("parse() returns the one YAML document, as @std/yaml does", async (t) => {
  await t.step("a mapping", () => {
    const result = parse("a: 1\nb: [x, y]\n", "yaml");
    assert.ok(result.ok);
    assert.deepEqual(result.value, { a: 1, b: ["x", "y"] });
  });
  await t.step("an explicit document with an end marker", () => {
    const result = parse("---\n- 1\n...\n# trailing comment\n", "yaml");
    assert.ok(result.ok);
    assert.deepEqual(result.value, [1]);
  });
  await t.step("an empty stream is null", () => {
    const result = parse("# only a comment\n", "yaml");
    assert.ok(result.ok);
    assert.equal(result.value, null);
  });
});

Deno.test("parse() refuses several YAML documents at the line:column of the second", async (t) => {
  const cases: [string, string, number, number, number][] = [
    ["after an implicit first document", "a: 1\nb: 2\n---\nc: 3\n", 3, 1, 2],
    ["a marker with content on its line", "--- a\n--- b\n", 2, 1, 2],
    ["after a block scalar", "text: |\n  ---\n  body\n---\nx\n", 4, 1, 2],
    [
      "after a multi-line flow collection",
      "a: [1,\n  2\n  ]\n---\nb\n",
      4,
      1,
      2,
    ],
    ["with directives", "%YAML 1.2\n---\na\n...\n%YAML 1.2\n---\nb\n", 5, 1, 2],
    ["a bare document after an end marker", "a\n...\n# note\n  b\n", 4, 3, 2],
    ["an empty first document", "---\n---\nb\n---\nc\n", 2, 1, 3],
    ["after a comment", "a: 1 # one\n# between\n---\n", 3, 1, 2],
  ];
  for (const [name, text, line, column, count] of cases) {
    await t.step(name, () => {
      const result = parse(text, "yaml");
      assert.equal(result.ok, false);
      assert.deepEqual(
        result.diagnostics.map((d) => [d.line, d.column, d.message]),
        [[
          line,
          column,
          `Expected one YAML document, found ${count}: a second document starts here`,
        ]],
      );
    });
  }
  await t.step("validate() still accepts the stream", () => {
    assert.equal(validate("a: 1\n---\nb: 2\n", "yaml").ok, true);
  });
});

Deno.test("parse() applies YAML merge keys and shares anchored values", () => {
  const text = "base: &base {a: 1, b: 2}\nchild:\n  <<: *base\n  b: 3\n";
  const result = parse(text, "yaml");
  assert.ok(result.ok);
  assert.deepEqual(result.value, {
    base: { a: 1, b: 2 },
    child: { a: 1, b: 3 },
  });
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
