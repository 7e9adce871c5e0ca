import assert from "node:assert/strict";
import { escapeGlob, escapeToken } from "./escape.ts";

Deno.test("escapeGlob() escapes exactly the glob characters and the backslash", () => {
  assert.equal(
    escapeGlob("a*b?c[d]e{f}g\\h"),
    "a\\*b\\?c\\[d\\]e\\{f\\}g\\\\h",
  );
  assert.equal(escapeGlob('plain "text", -x'), 'plain "text", -x');
  assert.throws(
    () => escapeGlob(1 as unknown as string),
    new TypeError(
      "Cannot escape glob characters: expected a string, got number",
    ),
  );
});

Deno.test("escapeToken() writes one argv word as one exec token", () => {
  const cases: [string, string][] = [
    ["", '""'],
    ["a b", "a\\ b"],
    ['"', '\\"'],
    ["*?[]{}", "\\*\\?\\[\\]\\{\\}"],
    ["\\", "\\\\"],
    ["\n\r\t", "\\n\\r\\t"],
    ["\u0000\u007f\u0085", "\\u{0}\\u{7f}\\u{85}"],
    ["é", "é"],
  ];
  for (const [word, token] of cases) assert.equal(escapeToken(word), token);
});
