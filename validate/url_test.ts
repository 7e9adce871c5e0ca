import assert from "node:assert/strict";
import { parse, validate } from "./mod.ts";

Deno.test("parse() returns a WHATWG URL with the host normalised", () => {
  const result = parse("HTTPS://Bücher.Example:443/a/../b?x=1", "url");
  assert.ok(result.ok);
  assert.equal(
    (result.value as URL).href,
    "https://xn--bcher-kva.example/b?x=1",
  );
});

Deno.test("validate() warns about what the URL standard silently repairs", async (t) => {
  const cases: [string, number, RegExp][] = [
    [" https://a.example", 1, /^Leading whitespace/],
    ["https://a.example/x y", 20, /^Space inside the URL/],
    ["https://a.ex\tample/", 13, /^Tab or line break inside the URL/],
    ["https:a.example", 7, /^Missing '\/\/' after 'https:'/],
    ["https://a.example\\b", 18, /^Backslash in a https: URL/],
    ["https://a.example/100%", 22, /^'%' not followed by two hex digits/],
    ["https://me:secret@a.example/", 18, /credentials/],
  ];
  for (const [url, column, message] of cases) {
    await t.step(JSON.stringify(url), () => {
      const result = validate(url, "url");
      assert.equal(result.ok, true);
      const warning = result.diagnostics.find((d) => message.test(d.message));
      assert.ok(warning, JSON.stringify(result.diagnostics));
      assert.equal(warning.severity, "warning");
      assert.equal(warning.column, column);
    });
  }
});

Deno.test("validate() accepts non-special schemes without a host", () => {
  for (
    const url of [
      "urn:isbn:0451450523",
      "data:text/plain,hi",
      "mailto:a@b.example",
    ]
  ) {
    assert.deepEqual(validate(url, "url").diagnostics, []);
  }
});
