import assert from "node:assert/strict";
import {
  FORMATS,
  MAX_ARGUMENT_LENGTH,
  parse,
  validate,
  type ValidationResult,
} from "./mod.ts";

Deno.test("validate() is ok exactly when no error-severity diagnostic exists", async (t) => {
  const samples: [string, Parameters<typeof validate>[1]][] = [
    ['{"a":1,"a":2}', "json"],
    ["[1,]", "json"],
    ["<x:a/>", "xml"],
    ["<a>", "xml"],
    ["https://a.example/x y", "url"],
    ["http://", "url"],
    ["a\\b", "glob"],
  ];
  for (const [text, format] of samples) {
    await t.step(`${format}: ${text}`, () => {
      const result: ValidationResult = validate(text, format);
      const hasError = result.diagnostics.some((d) => d.severity === "error");
      assert.equal(result.ok, !hasError);
      assert.equal(result.format, format);
      assert.ok(result.diagnostics.length > 0);
    });
  }
});

Deno.test("validate() and parse() give the same diagnostics", async (t) => {
  for (const format of FORMATS) {
    for (const text of ["{ [ < : ", '{"a": 1}']) {
      await t.step(`${format}: ${text}`, () => {
        const { ok, diagnostics } = parse(text, format);
        assert.deepEqual(validate(text, format), { ok, format, diagnostics });
      });
    }
  }
});

Deno.test("validate() throws a TypeError naming the formats for an unknown format", () => {
  assert.throws(
    () => validate("x", "ini" as never),
    (error: Error) =>
      error instanceof TypeError &&
      error.message ===
        'Cannot validate: unknown format "ini": expected one of json, jsonc, yaml, toml, xml, regex, glob, url, pattern',
  );
});

Deno.test("validate() gives every format a clear result for empty input", async (t) => {
  const expected: Record<string, boolean> = {
    json: false,
    jsonc: false,
    yaml: true, // a stream with no documents
    toml: true, // an empty table
    xml: false,
    regex: true, // matches the empty string
    glob: false,
    url: false,
    pattern: false,
  };
  for (const format of FORMATS) {
    await t.step(format, () => {
      const result = validate("", format);
      assert.equal(result.ok, expected[format]);
      if (!result.ok) {
        assert.deepEqual([
          result.diagnostics[0].line,
          result.diagnostics[0].column,
        ], [1, 1]);
      }
    });
  }
});

Deno.test("validate() refuses argument formats longer than MAX_ARGUMENT_LENGTH", () => {
  for (const format of ["regex", "glob", "url", "pattern"] as const) {
    const result = validate("a".repeat(MAX_ARGUMENT_LENGTH + 1), format);
    assert.equal(result.ok, false);
    assert.match(
      result.diagnostics[0].message,
      /^Text too long for the \w+ format/,
    );
  }
});

Deno.test("the validate module imports and runs with no permissions at all", async () => {
  const script = `
import { validate } from ${
    JSON.stringify(new URL("./mod.ts", import.meta.url).href)
  };
const samples = [
  ['{"a": 1}', "json"], ['{/* c */ "a": 1,}', "jsonc"], ["a: 1", "yaml"],
  ["a = 1", "toml"], ["<a/>", "xml"], ["^a+$", "regex"], ["**/*.ts", "glob"],
  ["https://example.com", "url"], ["read:a.txt", "pattern"],
];
for (const [text, format] of samples) {
  if (!validate(text, format).ok) throw new Error(format);
}
console.log("ok");
`;
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--quiet",
      "--config",
      new URL("../deno.json", import.meta.url).pathname,
      "-",
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = output.stdin.getWriter();
  await writer.write(new TextEncoder().encode(script));
  await writer.close();
  const { code, stdout, stderr } = await output.output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  assert.equal(new TextDecoder().decode(stdout).trim(), "ok");
});
