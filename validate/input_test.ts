import assert from "node:assert/strict";
import { parse, validate } from "./mod.ts";

const encode = (text: string) => new TextEncoder().encode(text);

Deno.test("parse() reads UTF-8 bytes like the same text", () => {
  const result = parse(encode('{"name": "ünïcødé 😀"}'), "json");
  assert.ok(result.ok);
  assert.deepEqual(result.value, { name: "ünïcødé 😀" });
});

Deno.test("validate() reports the first byte that is not UTF-8 at its line:column", async (t) => {
  await t.step("an invalid start byte after an emoji on line 2", () => {
    const bytes = new Uint8Array([
      ...encode('{\n  "a😀'),
      0xff,
      ...encode('": 1\n}'),
    ]);
    const result = validate(bytes, "json");
    assert.equal(result.ok, false);
    const [error] = result.diagnostics;
    assert.deepEqual([error.line, error.column], [2, 6]);
    assert.match(
      error.message,
      /^Text is not valid UTF-8: byte 0xFF at byte offset 10/,
    );
  });
  await t.step("a truncated sequence at the end", () => {
    const result = validate(new Uint8Array([0x61, 0xe2, 0x82]), "yaml");
    assert.equal(result.ok, false);
    assert.deepEqual(
      [result.diagnostics[0].line, result.diagnostics[0].column],
      [1, 2],
    );
  });
  await t.step("an encoded surrogate (CESU-8) is refused", () => {
    const result = validate(new Uint8Array([0xed, 0xa0, 0x80]), "toml");
    assert.equal(result.ok, false);
    assert.match(result.diagnostics[0].message, /not valid UTF-8/);
  });
});

Deno.test("validate() refuses UTF-16 input by its byte order mark", () => {
  const result = validate(
    new Uint8Array([0xff, 0xfe, 0x7b, 0, 0x7d, 0]),
    "json",
  );
  assert.equal(result.ok, false);
  assert.match(result.diagnostics[0].message, /UTF-16 .*expected UTF-8/);
});

Deno.test("validate() refuses a string with a lone surrogate", () => {
  const result = validate('{"a": "x\ud800"}', "json");
  assert.equal(result.ok, false);
  assert.deepEqual(
    [result.diagnostics[0].line, result.diagnostics[0].column],
    [1, 9],
  );
  assert.match(result.diagnostics[0].message, /lone surrogate U\+D800/);
});

Deno.test("parse() skips a leading byte order mark and does not count it as a column", async (t) => {
  await t.step("yaml: no diagnostic", () => {
    const result = parse("\ufeffa: 1\n", "yaml");
    assert.ok(result.ok);
    assert.deepEqual(result.value, { a: 1 });
    assert.deepEqual(result.diagnostics, []);
  });
  await t.step("bytes: EF BB BF", () => {
    const result = parse(
      new Uint8Array([0xef, 0xbb, 0xbf, ...encode("x = 1")]),
      "toml",
    );
    assert.ok(result.ok);
    // smol-toml builds tables without a prototype.
    assert.deepEqual({ ...(result.value as object) }, { x: 1 });
  });
  await t.step("json: a warning, because JSON.parse rejects it", () => {
    const result = parse('\ufeff{"a": 1}', "json");
    assert.ok(result.ok);
    assert.equal(result.diagnostics[0].severity, "warning");
    assert.match(result.diagnostics[0].message, /^Byte order mark/);
  });
  await t.step("columns on line 1 start after the mark", () => {
    const result = validate("\ufeff[1,]", "json");
    const error = result.diagnostics.find((d) => d.severity === "error")!;
    assert.deepEqual([error.line, error.column], [1, 3]);
  });
});

Deno.test("validate() throws a TypeError for input that is not text or bytes", () => {
  assert.throws(
    () => validate(42 as unknown as string, "json"),
    (error: Error) =>
      error instanceof TypeError &&
      error.message ===
        "Cannot validate: expected the text as a string or Uint8Array, got number",
  );
});
