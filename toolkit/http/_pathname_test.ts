import assert from "node:assert/strict";
import { pathnameOf } from "./_pathname.ts";

Deno.test("pathnameOf() answers what new URL().pathname does for a request's url", () => {
  const urls = [
    "http://127.0.0.1:8000/mcp",
    "http://localhost/mcp?x=1",
    "https://example.com/a/b#frag",
    "http://example.com/mcp?q=/x#/y",
    "http://[::1]:8080/mcp/",
    "http://user:p%2Fss@host/mcp",
    "http://host/?only=query",
    "http://host/%20spaced/path",
    "http://host/a/../b/./c",
    "https://HOST.example/Mixed/Case",
    "file:///tmp/x.json",
    "foo:bar/baz",
  ];
  for (const raw of urls) {
    // Through a Request, as the layers see it: serialised once.
    const url = new Request(raw).url;
    assert.equal(pathnameOf(url), new URL(url).pathname, url);
  }
});
