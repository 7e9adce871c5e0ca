import assert from "node:assert/strict";
import { parse, validate } from "./mod.ts";

Deno.test("parse() reads TOML tables, arrays of tables and dotted keys", () => {
  const text =
    '[server]\nhost = "localhost"\nport = 8080\n\n[[users]]\nname = "a"\n[[users]]\nname = "b"\n[x]\ny.z = true\n';
  const result = parse(text, "toml");
  assert.ok(result.ok);
  assert.deepEqual(JSON.parse(JSON.stringify(result.value)), {
    server: { host: "localhost", port: 8080 },
    users: [{ name: "a" }, { name: "b" }],
    x: { y: { z: true } },
  });
});

Deno.test("validate() refuses a TOML key defined twice at the second definition", () => {
  const result = validate("a = 1\nb = 2\na = 3\n", "toml");
  assert.equal(result.ok, false);
  assert.deepEqual(result.diagnostics, [{
    line: 3,
    column: 1,
    message: "Key or table defined twice: TOML allows each key and table once",
    severity: "error",
  }]);
});

Deno.test("validate() counts TOML columns in code points after emoji and CJK", () => {
  const result = validate('"😀漢" = 1 2\n', "toml");
  assert.deepEqual([result.diagnostics[0].line, result.diagnostics[0].column], [
    1,
    10,
  ]);
});

Deno.test("validate() refuses TOML nested deeper than 1000 levels without a crash", () => {
  const result = validate("a = " + "[".repeat(100_000), "toml");
  assert.equal(result.ok, false);
  assert.match(result.diagnostics[0].message, /^Nesting too deep/);
});

Deno.test("validate() reports unterminated TOML strings at the end of their line", () => {
  const result = validate('a = "x\nb = 1\n', "toml");
  assert.deepEqual([result.diagnostics[0].line, result.diagnostics[0].column], [
    1,
    7,
  ]);
  assert.match(result.diagnostics[0].message, /^Unterminated string/);
});
