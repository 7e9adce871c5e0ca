import assert from "node:assert/strict";
import { parse, validate, type XmlElement } from "./mod.ts";

Deno.test("parse() returns the XML root element with attributes, text and children", () => {
  const text = `<?xml version="1.0"?>
<!-- prolog comment -->
<config version="2" note="a &amp; b">
  <name>Démo &lt;1&gt; &#x1F600;</name>
  <empty/>
  <raw><![CDATA[<not-a-tag> & ]]>tail</raw>
  <?pi ignored?>
</config>`;
  const result = parse(text, "xml");
  assert.ok(result.ok);
  assert.deepEqual(result.value as XmlElement, {
    name: "config",
    attributes: { version: "2", note: "a & b" },
    children: [
      { name: "name", attributes: {}, children: ["Démo <1> 😀"] },
      { name: "empty", attributes: {}, children: [] },
      { name: "raw", attributes: {}, children: ["<not-a-tag> & tail"] },
    ],
  });
});

Deno.test("parse() does not expand DTD entities, so an entity bomb costs nothing", () => {
  const text = `<!DOCTYPE lolz [
  <!ENTITY lol "lol">
  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
]>
<lolz>&lol2;</lolz>`;
  const result = parse(text, "xml");
  assert.ok(result.ok);
  assert.deepEqual((result.value as XmlElement).children, ["&lol2;"]);
});

Deno.test("validate() accepts unknown entities when an external DTD may declare them", () => {
  const text =
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "x.dtd"><html>&nbsp;</html>';
  assert.equal(validate(text, "xml").ok, true);
});

Deno.test("validate() warns about an undeclared namespace prefix", () => {
  const result = validate('<root><x:item a:b="1"/></root>', "xml");
  assert.equal(result.ok, true);
  assert.deepEqual(
    result.diagnostics.map((
      d,
    ) => [d.column, d.severity, d.message.slice(0, 31)]),
    [
      [8, "warning", 'Namespace prefix "x" is not dec'],
      [15, "warning", 'Namespace prefix "a" is not dec'],
    ],
  );
});

Deno.test("validate() accepts prefixes declared on the element or an ancestor", () => {
  const text = '<r xmlns:a="urn:a"><a:x xmlns:b="urn:b" b:y="1"/></r>';
  assert.deepEqual(validate(text, "xml").diagnostics, []);
});

Deno.test("validate() checks the XML declaration", async (t) => {
  const cases: [string, number, RegExp][] = [
    ['<?xml encoding="UTF-8"?><a/>', 7, /without a version/],
    ['<?xml version="2.0"?><a/>', 16, /^Unsupported XML version "2.0"/],
    [
      '<?xml version="1.0" standalone="maybe"?><a/>',
      33,
      /^Invalid standalone value/,
    ],
  ];
  for (const [text, column, message] of cases) {
    await t.step(text, () => {
      const result = validate(text, "xml");
      assert.equal(result.ok, false);
      assert.equal(result.diagnostics[0].column, column);
      assert.match(result.diagnostics[0].message, message);
    });
  }
});

Deno.test("validate() reads 100 000 nested XML elements without overflowing the stack", () => {
  const text = "<a>".repeat(100_000) + "</a>".repeat(100_000);
  assert.equal(validate(text, "xml").ok, true);
  const open = validate("<a>".repeat(100_000), "xml");
  assert.equal(open.ok, false);
  assert.match(open.diagnostics[0].message, /^Unexpected end of the document/);
});

Deno.test("validate() reports the earliest XML problem when a forbidden character comes later", () => {
  const result = validate("<a><b></a>\u0001", "xml");
  assert.equal(result.diagnostics[0].column, 7);
  assert.match(result.diagnostics[0].message, /^Mismatched end tag/);
});
