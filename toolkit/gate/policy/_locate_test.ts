import assert from "node:assert/strict";
import { locateField, placeOf } from "./_locate.ts";

Deno.test("locateField() finds a rule in each format's spelling", async (t) => {
  await t.step("YAML flow list", () => {
    const text = 'allow: ["read:**"]\ndeny: ["write:a", "WRITE:b"]\n';
    const items = ["write:a", "WRITE:b"];
    assert.deepEqual(locateField(text, ["deny", 1], items, 1), {
      line: 2,
      column: 20,
    });
  });
  await t.step("YAML block list, plain scalars, column inside the rule", () => {
    const text = "# deny: [WRITE:b]\ndeny:\n  - write:a\n  - write:b//c\n";
    assert.deepEqual(
      locateField(text, ["deny", 1], ["write:a", "write:b//c"], 9),
      { line: 4, column: 13 },
    );
  });
  await t.step("JSON with escapes points at the rule's start", () => {
    const text = '{\n  "allow": ["write:\\\\*", "write:\\\\q"]\n}';
    const place = locateField(
      text,
      ["allow", 1],
      ["write:\\*", "write:\\q"],
      7,
    );
    assert.deepEqual(place, { line: 2, column: 27 });
  });
  await t.step("TOML, a repeated rule counts its copies", () => {
    const text = 'ask = ["x-a:b"]\ndeny = ["x-a:b", "x-a:b"]\n';
    assert.deepEqual(
      locateField(text, ["deny", 1], ["x-a:b", "x-a:b"]),
      { line: 2, column: 19 },
    );
  });
  await t.step("a key, a number item, and the file itself", () => {
    const text = '\n\n{ "unprobed": "maybe",\n  "deny": [1, 42] }';
    assert.deepEqual(locateField(text, ["unprobed"]), { line: 3, column: 3 });
    assert.deepEqual(locateField(text, ["deny", 1], [1, 42]), {
      line: 4,
      column: 15,
    });
    assert.deepEqual(locateField(text, []), { line: 3, column: 1 });
  });
  await t.step("a key inside an object, in YAML, TOML and JSON", () => {
    const yaml = "unprobed: ask\ntools:\n  search: allow\n  run_shell: never\n";
    assert.deepEqual(locateField(yaml, ["tools", "run_shell"]), {
      line: 4,
      column: 3,
    });
    const toml = 'run_shell = 1\n[tools]\nrun_shell = "never"\n';
    assert.deepEqual(locateField(toml, ["tools", "run_shell"]), {
      line: 3,
      column: 1,
    });
    const json = '{ "tools": { "tools": "x" } }';
    assert.deepEqual(locateField(json, ["tools", "tools"]), {
      line: 1,
      column: 14,
    });
  });
  await t.step("falls back to the key when the item is not found", () => {
    const text = "deny:\n  - !!str write:a\n";
    assert.deepEqual(locateField(text, ["deny", 0], [{}]), {
      line: 1,
      column: 1,
    });
  });
});

Deno.test("placeOf() counts lines of every break and columns in code points", () => {
  assert.deepEqual(placeOf("a\r\nb\rc\n😀x", 10), { line: 4, column: 3 });
});
