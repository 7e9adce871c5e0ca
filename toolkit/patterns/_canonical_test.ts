import assert from "node:assert/strict";
import {
  type Canonical,
  canonicalHost,
  canonicalTarget,
} from "./_canonical.ts";
import { prng } from "./_testing.ts";

// verb, unescaped value, the canonical target or a piece of why none.
const CASES: [string, string | string[], Canonical | RegExp][] = [
  ["write", "secrets/key", { target: "secrets/key" }],
  ["write", "/etc/passwd", { target: "/etc/passwd" }],
  ["write", "./a//b/", { target: "a/b" }],
  ["write", "/a/../b", { target: "/b" }],
  ["write", "/../etc", { target: "/etc" }],
  ["write", ".", { target: "." }],
  ["write", "a/..", { target: "." }],
  ["write", "src/[ab].ts", { target: "src/\\[ab\\].ts" }],
  ["write", "cafe\u0301", { target: "caf\u00e9" }],
  ["write", "../x", /leaves the root/],
  ["write", "a\0", /NUL/],
  ["write", "a\n", /control character U\+000A/],
  ["net", "http://127.1", { target: "http://127.0.0.1" }],
  ["net", "http://2130706433", { target: "http://127.0.0.1" }],
  ["net", "http://0x7f.0.0.1", { target: "http://127.0.0.1" }],
  ["net", "http://0177.0.0.1", { target: "http://127.0.0.1" }],
  ["net", "http://[::ffff:127.0.0.1]", { target: "http://127.0.0.1" }],
  ["net", "http://[0:0::1]:8080", { target: "http://\\[::1\\]:8080" }],
  ["net", "HTTP://Example.COM.:80/x", { target: "http://example.com" }],
  ["net", "http://ex%61mple.com", /"%"/],
  ["exec", ["rm", "-rf x"], { target: "rm -rf\\ x" }],
  ["exec", ["echo", ""], { target: 'echo ""' }],
  ["exec", ["rm", "a\0"], /NUL/],
  ["exec", [""], /the program is empty/],
  ["x-deploy", "prod-*", { target: "prod-\\*" }],
  ["x-deploy", "prod\t", /control character U\+0009/],
  ["x-deploy", "e\u0301", { target: "\u00e9" }],
];

Deno.test("canonicalTarget() names each target as its builder does, or says why not", async (t) => {
  for (const [verb, value, expected] of CASES) {
    await t.step(`${verb} ${JSON.stringify(value)}`, () => {
      const canonical = canonicalTarget(verb, value);
      if (expected instanceof RegExp) {
        assert.ok("refused" in canonical, JSON.stringify(canonical));
        assert.match(canonical.refused, expected);
        assert.doesNotMatch(canonical.refused, /^target/);
      } else {
        assert.deepEqual(canonical, expected);
      }
    });
  }
});

Deno.test("canonicalHost() normalises every IPv4 spelling to one", async (t) => {
  const cases: [string, Canonical][] = [
    ["127.1", { target: "127.0.0.1" }],
    ["0x7f000001", { target: "127.0.0.1" }],
    ["[::ffff:7f00:1]", { target: "127.0.0.1" }],
    ["[0:0:0:0:0:0:0:1]", { target: "[::1]" }],
    ["xn--bcher-kva.de", { target: "xn--bcher-kva.de" }],
  ];
  for (const [host, expected] of cases) {
    await t.step(host, () => assert.deepEqual(canonicalHost(host), expected));
  }
  await t.step("an IPv4 part over 255 has no canonical form", () => {
    assert.ok("refused" in canonicalHost("256.1.1.1"));
  });
});

Deno.test("canonicalTarget() is a fixed point: a canonical path stays itself", () => {
  const random = prng(7);
  const parts = ["a", "b", ".", "..", "", "\u00e9", "e\u0301", "*", "x y"];
  for (let i = 0; i < 2000; i++) {
    const length = 1 + Math.floor(random() * 5);
    const path = (random() < 0.5 ? "/" : "") +
      Array.from(
        { length },
        () => parts[Math.floor(random() * parts.length)],
      ).join("/");
    const first = canonicalTarget("write", path);
    if ("refused" in first) continue;
    const unescaped = first.target.replace(/\\(.)/g, "$1");
    assert.deepEqual(canonicalTarget("write", unescaped), first, path);
  }
});
