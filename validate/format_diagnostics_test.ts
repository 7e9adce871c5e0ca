import assert from "node:assert/strict";
import { formatDiagnostics, validate } from "./mod.ts";

Deno.test("formatDiagnostics() prints path:line:column, the lines and a caret", () => {
  const source = "name: demo\nport: 80\nname: again\n";
  const text = formatDiagnostics(validate(source, "yaml"), {
    path: "app.yaml",
    source,
  });
  assert.equal(
    text,
    [
      'app.yaml:3:1: Duplicate key "name" in a mapping: YAML keys must be unique',
      " 2 | port: 80",
      " 3 | name: again",
      "   | ^",
    ].join("\n"),
  );
});

Deno.test("formatDiagnostics() underlines a span and labels warnings", () => {
  const source = '{"a": 1, "a": 2}';
  const text = formatDiagnostics(validate(source, "json"), {
    path: "x.json",
    source,
  });
  assert.equal(
    text,
    [
      'x.json:1:10: warning: Duplicate key "a" (first at line 1, column 2): most readers silently keep only the last value',
      ' 1 | {"a": 1, "a": 2}',
      "   |          ^~~",
    ].join("\n"),
  );
});

Deno.test("formatDiagnostics() lines the caret up under wide characters and tabs", async (t) => {
  await t.step("CJK and emoji take two cells", () => {
    const source = '["漢字😀", 1,]';
    const text = formatDiagnostics(validate(source, "json"), { source });
    const [, line, caret] = text.split("\n");
    assert.equal(line, ' 1 | ["漢字😀", 1,]');
    // 12 cells before the comma, after the "| " gutter.
    assert.equal(caret, "   | " + " ".repeat(12) + "^");
  });
  await t.step("tabs stay tabs", () => {
    const source = "a:\n\t- b";
    const result = {
      diagnostics: [{
        line: 2,
        column: 2,
        message: "X",
        severity: "error" as const,
      }],
    };
    const caret = formatDiagnostics(result, { source }).split("\n")[3];
    assert.equal(caret, "   | \t^");
  });
});

Deno.test("formatDiagnostics() cuts long lines around the caret", () => {
  const source = "[" + "1,".repeat(5000) + "]";
  const text = formatDiagnostics(validate(source, "json"), {
    source,
    maxWidth: 40,
  });
  const [first, line, caret] = text.split("\n");
  assert.equal(
    first,
    "<input>:1:10001: Trailing comma before ']': JSON does not allow a comma after the last element",
  );
  assert.ok(line.startsWith(" 1 | …") && line.endsWith("]"), line);
  assert.ok(caret.length <= 50);
  // The caret sits under the trailing comma.
  assert.equal(line[caret.indexOf("^")], ",");
});

Deno.test("formatDiagnostics() without a source prints only the position lines", () => {
  const result = validate("[1,", "json");
  assert.equal(
    formatDiagnostics(result, { path: "a.json" }),
    "a.json:1:4: Unexpected end of the text: expected ']' to close the array opened at line 1, column 1",
  );
});

Deno.test("formatDiagnostics() returns an empty string when there is nothing to report", () => {
  assert.equal(formatDiagnostics(validate("{}", "json")), "");
});

Deno.test("formatDiagnostics() rejects bad options with a RangeError", async (t) => {
  await t.step("contextLines", () => {
    assert.throws(
      () => formatDiagnostics({ diagnostics: [] }, { contextLines: -1 }),
      RangeError,
    );
  });
  await t.step("maxWidth", () => {
    assert.throws(
      () => formatDiagnostics({ diagnostics: [] }, { maxWidth: 5 }),
      RangeError,
    );
  });
  await t.step("not a result", () => {
    assert.throws(() => formatDiagnostics(null as never), TypeError);
  });
});
