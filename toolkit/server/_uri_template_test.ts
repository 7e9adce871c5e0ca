import assert from "node:assert/strict";
import { UriTemplate, UriTemplateSyntaxError } from "./_uri_template.ts";

function match(template: string, uri: string): unknown {
  return new UriTemplate(template).match(uri);
}

Deno.test("UriTemplate.match() gives the variables that expand to a URI", async (t) => {
  await t.step("simple expansion, percent-decoded", () => {
    assert.deepEqual(match("users://{id}/profile", "users://ada/profile"), {
      id: "ada",
    });
    assert.deepEqual(match("notes://{name}", "notes://to%20do.md"), {
      name: "to do.md",
    });
    assert.deepEqual(match("x://{a},{b}", "x://1,2"), { a: "1", b: "2" });
    assert.deepEqual(match("x://{a,b}", "x://1,2"), { a: "1", b: "2" });
  });
  await t.step("a simple value never holds a reserved character", () => {
    assert.equal(match("users://{id}/profile", "users://a/b/profile"), null);
    assert.equal(match("users://{id}", "users://a?b"), null);
  });
  await t.step("an undefined variable expands to nothing", () => {
    assert.deepEqual(match("notes://{name}", "notes://"), {});
  });
  await t.step("reserved and fragment expansion keep / ? and #", () => {
    assert.deepEqual(match("file:///{+path}", "file:///home/ada/a.txt"), {
      path: "home/ada/a.txt",
    });
    assert.deepEqual(
      match("file:///{+path}/meta", "file:///a/b/meta"),
      { path: "a/b" },
    );
    assert.deepEqual(match("doc://x{#section}", "doc://x#intro/2"), {
      section: "intro/2",
    });
  });
  await t.step("label and path segments; explode gives a list", () => {
    assert.deepEqual(match("x://host{.ext}", "x://host.json"), {
      ext: "json",
    });
    assert.deepEqual(match("repo://r{/owner,name}", "repo://r/deno/std"), {
      owner: "deno",
      name: "std",
    });
    assert.deepEqual(match("fs://{/path*}", "fs:///a/b/c"), {
      path: ["a", "b", "c"],
    });
    assert.deepEqual(match("x://{list*}", "x://a,b"), { list: ["a", "b"] });
  });
  await t.step("query parameters in any order, any left out", () => {
    const template = "search://items{?q,limit}";
    assert.deepEqual(match(template, "search://items?q=red%20fox&limit=5"), {
      q: "red fox",
      limit: "5",
    });
    assert.deepEqual(match(template, "search://items?limit=5&q=x"), {
      q: "x",
      limit: "5",
    });
    assert.deepEqual(match(template, "search://items?q=x"), { q: "x" });
    assert.deepEqual(match(template, "search://items"), {});
    assert.deepEqual(match("s://i?fixed=1{&page}", "s://i?fixed=1&page=2"), {
      page: "2",
    });
    assert.deepEqual(match("s://i{;v}", "s://i;v=1"), { v: "1" });
    assert.deepEqual(match("s://i{?tag*}", "s://i?tag=a&tag=b"), {
      tag: ["a", "b"],
    });
  });
  await t.step("a query no expansion gives does not match", () => {
    const template = "search://items{?q}";
    assert.equal(match(template, "search://items?other=1"), null);
    assert.equal(match(template, "search://items?q=1&q=2"), null);
  });
  await t.step("a prefix limits the length", () => {
    assert.deepEqual(match("x://{id:3}", "x://abc"), { id: "abc" });
    assert.equal(match("x://{id:3}", "x://abcd"), null);
  });
  await t.step("literals match exactly, regex characters included", () => {
    assert.equal(match("a.b://{x}", "aXb://1"), null);
    assert.deepEqual(match("a.b://{x}", "a.b://1"), { x: "1" });
    assert.equal(match("notes://{name}", "other://x"), null);
  });
  await t.step("a malformed escape does not match", () => {
    assert.equal(match("notes://{name}", "notes://%E0%A4%A"), null);
    assert.equal(match("notes://{name}", "notes://%FF"), null);
  });
  await t.step("a variable named like an Object property is kept", () => {
    const found = match("x://{__proto__}/{constructor}", "x://a/b") as Record<
      string,
      unknown
    >;
    assert.equal(Object.hasOwn(found, "__proto__"), true);
    assert.equal(found["constructor"], "b");
  });
});

Deno.test("new UriTemplate() refuses templates that break RFC 6570", async (t) => {
  const cases: [string, RegExp, number][] = [
    ["notes://{name", /Unclosed '\{'/, 9],
    ["notes://name}", /Unmatched '\}'/, 13],
    ["notes://{}", /Empty expression/, 9],
    ["notes://{=x}", /Operator '=' is reserved/, 10],
    ["notes://{a b}", /Invalid variable name "a b"/, 10],
    ["notes://{x:0}", /Invalid prefix length "0"/, 12],
    ["notes://{x}/{x}", /Variable x appears twice/, 13],
  ];
  for (const [template, message, column] of cases) {
    await t.step(template, () => {
      assert.throws(
        () => new UriTemplate(template),
        (e: unknown) => {
          assert.ok(e instanceof UriTemplateSyntaxError);
          assert.match(e.message, message);
          assert.equal(e.column, column);
          return true;
        },
      );
    });
  }
  await t.step("a template over 1000 characters", () => {
    assert.throws(() => new UriTemplate("x".repeat(1001)), RangeError);
  });
});
