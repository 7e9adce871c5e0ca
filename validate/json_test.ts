import assert from "node:assert/strict";
import { parse, validate } from "./mod.ts";
import { engineResultIsExact } from "./json.ts";
import { scanJson } from "./json_scanner.ts";

Deno.test("parse() returns the same value as JSON.parse for valid JSON", () => {
  const text =
    '{"a": [1, 2.5e3, -0, true, null, "x\\n\\u00e9"], "b": {"c": {}}}';
  const result = parse(text, "json");
  assert.ok(result.ok);
  assert.deepEqual(result.value, JSON.parse(text));
  assert.deepEqual(result.diagnostics, []);
});

Deno.test("validate() warns about duplicate JSON keys and stays ok", async (t) => {
  await t.step("a repeated key, with where it was first", () => {
    const result = validate('{\n  "port": 80,\n  "port": 8080\n}', "json");
    assert.equal(result.ok, true);
    assert.deepEqual(result.diagnostics, [{
      line: 3,
      column: 3,
      endLine: 3,
      endColumn: 9,
      message:
        'Duplicate key "port" (first at line 2, column 3): most readers silently keep only the last value',
      severity: "warning",
    }]);
  });
  await t.step("keys equal after unescaping are duplicates", () => {
    const result = validate('{"a": 1, "\\u0061": 2}', "json");
    assert.equal(result.diagnostics.length, 1);
    assert.equal(result.diagnostics[0].column, 10);
  });
  await t.step("the same key in different objects is fine", () => {
    const result = validate('[{"a": 1}, {"a": 2}, {"b": {"a": 3}}]', "json");
    assert.deepEqual(result.diagnostics, []);
  });
  await t.step("parse() keeps the last value, like JSON.parse", () => {
    const result = parse('{"a": 1, "a": {"b": 2}}', "json");
    assert.ok(result.ok);
    assert.deepEqual(result.value, { a: { b: 2 } });
  });
  await t.step("more than 100 duplicates are summarised", () => {
    const members = Array.from({ length: 150 }, (_, i) => `"k": ${i}`);
    const result = validate(`{${members.join(",")}}`, "json");
    assert.equal(result.diagnostics.length, 101);
    assert.equal(
      result.diagnostics[100].message,
      "49 more duplicate keys not listed",
    );
  });
});

Deno.test("engineResultIsExact() agrees with the scanner on duplicates", async (t) => {
  const cases: [string, boolean][] = [
    ['{"a": 1, "b": 2}', true],
    ['{"a": 1, "a": 2}', false],
    ['{"a": "x\\"y", "b": "\\\\"}', true],
    ['{"q\\"": 1, "q\\"": 2}', false],
    ['[{"a": 1}, {"a": 1}]', true],
    ['{"a": {"a": {"a": 1}}}', true],
    ['{"x": "a:b", "x" : "c"}', false],
    ['"just a string"', true],
    ["[1, 2, 3]", true],
  ];
  for (const [text, exact] of cases) {
    await t.step(text, () => {
      assert.equal(engineResultIsExact(text, JSON.parse(text)), exact);
      const scan = scanJson(text, {
        comments: false,
        trailingCommas: false,
        buildValue: false,
        name: "JSON",
      });
      assert.equal(scan.warnings.length === 0, exact);
    });
  }
});

Deno.test("parse() returns the right keys where V8's JSON.parse decodes an escaped key wrongly", () => {
  // V8 15.0 reuses an earlier key for an escaped key whose raw text
  // matches it: after the first parse, JSON.parse reads "\n" as "\\".
  JSON.parse('{"y":"😀","\\\\":1}');
  const text = '{"y":"😀","\\n":2}';
  const result = parse(text, "json");
  assert.ok(result.ok);
  assert.deepEqual(Object.keys(result.value as object), ["y", "\n"]);
});

Deno.test("parse() keeps a __proto__ key as data, like JSON.parse", () => {
  const result = parse(
    '{"__proto__": {"polluted": true}, "a": 1, "a": 2}',
    "json",
  );
  assert.ok(result.ok);
  const value = result.value as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.deepEqual(Object.keys(value), ["__proto__", "a"]);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

Deno.test("validate() explains the common JSON mistakes", async (t) => {
  const cases: [string, string, number, string][] = [
    ["trailing comma", "[1, 2,]", 6, "Trailing comma before ']'"],
    ["comment", '{"a": 1 /* c */}', 9, "Comments are not allowed in JSON"],
    ["single quotes", "{'a': 1}", 2, "(JSON strings use double quotes)"],
    ["True", '{"a": True}', 7, "(literals are lowercase: true)"],
    ["undefined", "[undefined]", 2, "(undefined is not a JSON value)"],
    ["plus sign", "[+1]", 2, "(numbers cannot start with '+')"],
    [
      "no fraction digits",
      "[1.]",
      4,
      "Expected a digit after the decimal point",
    ],
    ["no exponent digits", "[1e]", 4, "Expected a digit in the exponent"],
    ["bad unicode escape", '["\\u12"]', 3, "Invalid unicode escape"],
    ["line break in string", '["a\nb"]', 4, "Line break in a string"],
    [
      "no-break space",
      "[1,\u00a02]",
      4,
      "Unexpected whitespace character U+00A0",
    ],
    ["unterminated string", '["abc', 2, "Unterminated string"],
  ];
  for (const [name, text, column, message] of cases) {
    await t.step(name, () => {
      const result = validate(text, "json");
      assert.equal(result.ok, false);
      assert.equal(result.diagnostics[0].column, column);
      assert.ok(
        result.diagnostics[0].message.includes(message),
        result.diagnostics[0].message,
      );
    });
  }
});

Deno.test("parse() reads JSONC with comments and trailing commas", () => {
  const text = `// settings
{
  /* block */ "a": [1, 2,], // trailing
  "b": { "c": "// not a comment", },
}`;
  const result = parse(text, "jsonc");
  assert.ok(result.ok);
  assert.deepEqual(result.value, { a: [1, 2], b: { c: "// not a comment" } });
});

Deno.test("validate() warns about duplicate JSONC keys too", () => {
  const result = validate('{"a": 1, // one\n "a": 2}', "jsonc");
  assert.equal(result.ok, true);
  assert.equal(result.diagnostics[0].severity, "warning");
  assert.deepEqual([result.diagnostics[0].line, result.diagnostics[0].column], [
    2,
    2,
  ]);
});

Deno.test("validate() handles 100 000 nested brackets without overflowing the stack", async (t) => {
  const open = "[".repeat(100_000);
  for (const format of ["json", "jsonc"] as const) {
    await t.step(`${format}: balanced is valid`, () => {
      assert.equal(validate(open + "]".repeat(100_000), format).ok, true);
    });
    await t.step(`${format}: unclosed names the innermost bracket`, () => {
      const result = validate(open, format);
      assert.equal(result.ok, false);
      assert.equal(result.diagnostics[0].column, 100_001);
      assert.match(
        result.diagnostics[0].message,
        /opened at line 1, column 100000$/,
      );
    });
  }
});
