import assert from "node:assert/strict";
import { matchPattern, Rule } from "./rule.ts";
import { RuleSyntaxError } from "./rule_syntax_error.ts";
import { Policy } from "./policy.ts";
import { escapeGlob } from "../patterns/escape.ts";
import { prng } from "../patterns/_testing.ts";

// rule, pattern, expected match.
const MATCH_CASES: [string, string, boolean][] = [
  // paths: * is one segment
  ["write:*", "write:a.txt", true],
  ["write:*", "write:a/b", false],
  ["write:*", "write:.env", true],
  ["write:src/*.ts", "write:src/a.ts", true],
  ["write:src/*.ts", "write:src/a/b.ts", false],
  ["write:src/*.ts", "write:src/a.tsx", false],
  // paths: ** is zero or more whole segments
  ["write:**", "write:a/b/c", true],
  ["write:**", "write:.", true],
  ["write:dir/**", "write:dir", true],
  ["write:dir/**", "write:dir/a/b", true],
  ["write:dir/**", "write:dirx/a", false],
  ["write:a/**/b", "write:a/b", true],
  ["write:a/**/b", "write:a/x/y/b", true],
  ["write:a/**/b", "write:a/x/y/c", false],
  ["write:**/*.ts", "write:deep/er/x.ts", true],
  // paths: relative and absolute never mix
  ["write:**", "write:/etc/passwd", false],
  ["write:/**", "write:/etc/passwd", true],
  ["write:/**", "write:etc/passwd", false],
  ["write:/etc/**", "write:/etc", true],
  ["write:{,/}**", "write:/etc/x", true],
  // anchored: a rule never matches a prefix or a suffix
  ["write:a", "write:a/b", false],
  ["write:b", "write:a/b", false],
  ["read:a.txt", "write:a.txt", false],
  // escapes: a literal rule matches only the literal name
  ["write:\\*", "write:\\*", true],
  ["write:\\*", "write:a", false],
  ["write:*", "write:\\*", true],
  ["write:src/\\[ab\\].ts", "write:src/\\[ab\\].ts", true],
  ["write:src/\\[ab\\].ts", "write:src/a.ts", false],
  ["write:src/[ab].ts", "write:src/a.ts", true],
  ["write:src/[ab].ts", "write:src/c.ts", false],
  ["write:src/[!ab].ts", "write:src/c.ts", true],
  ["write:src/[a-c].ts", "write:src/b.ts", true],
  ["write:src/[ab].ts", "write:src/\\[ab\\].ts", false],
  ["write:?.md", "write:\u00e9.md", true],
  ["write:{a,b}.txt", "write:b.txt", true],
  ["write:{a,b}.txt", "write:\\{a,b\\}.txt", false],
  ["write:\\{a,b\\}.txt", "write:\\{a,b\\}.txt", true],
  // paths: non-canonical patterns match nothing, not even **
  ["write:**", "write:a/../../etc/x", false],
  ["write:**", "write:a//b", false],
  ["write:**", "write:*", false],
  ["write:**", "write:./a", false],
  // hosts: * is one label, ** any number
  ["net:https://*.example.com", "net:https://api.example.com", true],
  ["net:https://*.example.com", "net:https://example.com", false],
  ["net:https://*.example.com", "net:https://a.b.example.com", false],
  ["net:https://**.example.com", "net:https://example.com", true],
  ["net:https://**.example.com", "net:https://a.b.example.com", true],
  ["net:https://**.example.com", "net:https://evilexample.com", false],
  ["net:https://example.com", "net:https://example.com.evil.net", false],
  ["net:https://api-*.example.com", "net:https://api-eu.example.com", true],
  ["net:http://127.0.0.*", "net:http://127.0.0.1", true],
  // hosts: ports and schemes
  ["net:https://example.com", "net:https://example.com:8443", false],
  ["net:https://example.com:*", "net:https://example.com:8443", true],
  ["net:https://example.com:*", "net:https://example.com", false],
  ["net:https://example.com{,:*}", "net:https://example.com", true],
  ["net:*://example.com", "net:wss://example.com", true],
  ["net:http://example.com", "net:https://example.com", false],
  ["net:http://\\[::1\\]:*", "net:http://\\[::1\\]:8080", true],
  ["net:https://example.com", "net:https://EXAMPLE.com", false],
  // exec: * is one argument, ** any number
  ["exec:rm **", "exec:rm -rf x", true],
  ["exec:rm **", "exec:rm", true],
  ["exec:rm *", "exec:rm -rf x", false],
  ["exec:rm *", "exec:rm -rf\\ x", true],
  ["exec:git status", "exec:git status --short", false],
  ["exec:git {status,diff} **", "exec:git diff --stat", true],
  ["exec:git -C * status", "exec:git -C /repo status", true],
  ['exec:echo ""', 'exec:echo ""', true],
  ["exec:echo *", 'exec:echo ""', true],
  ["exec:rm -rf\\ x", "exec:rm -rf x", false],
  ["exec:ls \\*", "exec:ls \\*", true],
  ["exec:ls \\*", "exec:ls a", false],
  ["exec:**", "exec:/bin/rm -rf /", true],
  // extension verbs: one opaque target
  ["x-deploy:prod-*", "x-deploy:prod-eu/1", true],
  ["x-deploy:prod-*", "x-deploy:staging", false],
  ["x-deploy:prod", "x-other:prod", false],
];

Deno.test("matchPattern() matches whole targets with wildcards shaped by the verb", async (t) => {
  for (const [rule, pattern, expected] of MATCH_CASES) {
    await t.step(
      `${rule} ${expected ? "matches" : "does not match"} ${pattern}`,
      () => {
        assert.equal(matchPattern(rule, pattern), expected);
      },
    );
  }
});

// rule, column, the problem after "at column N: ".
const BAD_RULES: [string, number, string][] = [
  [
    "WRITE:a.txt",
    1,
    'unknown verb "WRITE": expected one of read, write, delete, exec, net or x-<name> (verbs are lowercase: "write")',
  ],
  ["write:", 7, 'empty target in "write:": expected "write:<target>"'],
  [
    "bogus:x",
    1,
    'unknown verb "bogus": expected one of read, write, delete, exec, net or x-<name>',
  ],
  ["no colon", 9, 'expected "verb:target", got "no colon" (no colon)'],
  [
    "exec:a\u0007",
    7,
    "target contains control character U+0007 at offset 1",
  ],
  ["read:x/e\u0301", 8, "target is not in Unicode NFC form"],
  [
    "write:a//b",
    9,
    'empty path segment (a "//" or a trailing "/"): expected names separated by single slashes',
  ],
  [
    "write:a/",
    9,
    'empty path segment (a "//" or a trailing "/"): expected names separated by single slashes',
  ],
  [
    "write:a/../b",
    9,
    '".." never appears in a canonical path: expected names, "*" or "**"',
  ],
  [
    "write:./a",
    7,
    '"." never appears in a canonical path: expected names, "*" or "**"',
  ],
  [
    "write:a**",
    8,
    '"**" inside a name: expected "**" alone between separators, or "*" within a name',
  ],
  [
    "write:{a,b",
    7,
    '"{" is never closed: expected {a,b} alternatives, or "\\{" for a literal brace',
  ],
  [
    "write:a}",
    8,
    '"}" has no matching "{": expected {a,b} alternatives, or "\\}" for a literal brace',
  ],
  [
    "write:[]",
    7,
    "empty character class: expected characters such as [abc] or a range such as [a-z]",
  ],
  [
    "write:[ab",
    7,
    '"[" is never closed: expected a class such as [abc], or "\\[" for a literal bracket',
  ],
  [
    "write:a]",
    8,
    '"]" has no opening partner: expected "\\]" for a literal',
  ],
  [
    "write:[z-a]",
    8,
    'range "z-a" runs backwards: expected the lower character first',
  ],
  [
    "write:a\\q",
    8,
    'invalid escape "\\q": expected one of \\\\ \\* \\? \\[ \\] \\{ \\} \\" "\\ " \\n \\r \\t \\u{hex}',
  ],
  [
    "write:a\\",
    8,
    "a backslash ends the rule: expected an escaped character after it",
  ],
  [
    "net:https://Example.com",
    13,
    '"E" never appears in a canonical host: expected lowercase, such as "example"',
  ],
  [
    "net:https://b\u00fccher.de",
    14,
    '"\u00fc" never appears in a canonical host: expected punycode, such as "xn--bcher-kva"',
  ],
  [
    "net:https://example.com:443",
    25,
    'the default port 443 of https is never named: expected the rule without ":443"',
  ],
  [
    "net:https://example.com.",
    25,
    'empty host label (a leading, trailing or doubled "."): expected labels separated by single dots',
  ],
  [
    "net:example.com",
    5,
    "expected scheme://host[:port], such as https://*.example.com",
  ],
  [
    "net:https://a.com/x",
    18,
    "a path after the host: expected scheme://host[:port] only, since net patterns never name a path",
  ],
  [
    "net:ftp://x.com",
    5,
    'scheme "ftp" is never named: expected http, https, ws or wss',
  ],
  [
    "net:http://[::1]",
    12,
    "an IPv6 address in a rule: expected its brackets escaped, such as \\[::1\\]",
  ],
  [
    "net:https://x.com:99999",
    19,
    'port "99999" is out of range: expected 0 to 65535 without leading zeros',
  ],
  [
    "exec:rm  x",
    9,
    'empty argument (two spaces, or a space at either end): expected words separated by single spaces, and "" for an empty argument',
  ],
  [
    'exec:a"b',
    7,
    'a quote inside an argument: expected \\" for a literal quote, or "" alone for an empty argument',
  ],
];

Deno.test("Rule refuses a bad rule with its column and what was expected", async (t) => {
  for (const [rule, column, problem] of BAD_RULES) {
    await t.step(rule, () => {
      assert.throws(() => new Rule(rule), (error: unknown) => {
        assert.ok(error instanceof RuleSyntaxError);
        assert.ok(error instanceof SyntaxError);
        assert.equal(error.problem, problem);
        assert.equal(error.column, column);
        assert.equal(error.line, 1);
        assert.equal(
          error.message,
          `Cannot load rule ${
            JSON.stringify(rule)
          } at column ${column}: ${problem}`,
        );
        return true;
      });
    });
  }
  await t.step("a non-string rule is a TypeError", () => {
    assert.throws(
      () => new Rule(7 as unknown as string),
      new TypeError(
        'Cannot load rule: expected a string "verb:target", got number',
      ),
    );
  });
  await t.step("a brace bomb is refused", () => {
    assert.throws(
      () => new Rule(`write:${"{a,b}".repeat(9)}`),
      /expand to more than 256 rules/,
    );
  });
});

// rule, column, a piece of the problem that names the canonical form: rules
// that could never match a canonical pattern, so that as deny rules they
// would silently miss.
const NON_CANONICAL_RULES: [string, number, string][] = [
  ["net:http://127.1", 12, 'expected "net:http://127.0.0.1"'],
  ["net:http://2130706433", 12, 'expected "net:http://127.0.0.1"'],
  ["net:http://0x7f.0.0.1", 12, 'expected "net:http://127.0.0.1"'],
  ["net:http://0177.0.0.1", 12, 'expected "net:http://127.0.0.1"'],
  [
    String.raw`net:http://\[::ffff:127.0.0.1\]`,
    12,
    'expected "net:http://127.0.0.1"',
  ],
  [
    String.raw`net:https://\[0:0::1\]:8443`,
    13,
    String.raw`expected "net:https://\\[::1\\]:8443"`,
  ],
  ["net:*://127.1:*", 9, 'expected "net:*://127.0.0.1:*"'],
  ["net:http://0x7f.0.0.*", 12, '"0x7f"'],
  ["net:http://*.1", 12, "four"],
  [String.raw`write:a\u{2f}b`, 8, 'expected "write:a/b"'],
  [String.raw`write:\u{2f}etc/**`, 7, 'expected "write:/etc/**"'],
  [String.raw`write:{a,b\u{2f}c}`, 11, 'expected "write:{a,b/c}"'],
  [String.raw`write:\u{2e}\u{2e}/x`, 7, '".."'],
  [String.raw`write:/a/\u{2e}\u{2e}/b`, 10, 'expected "write:/b"'],
  [String.raw`write:\u{2e}/a`, 7, '"."'],
  [String.raw`write:a\n`, 8, "control character U+000A"],
  [String.raw`write:*\u{0}`, 8, "control character U+0000"],
  [String.raw`write:cafe\u{301}`, 10, 'expected "write:caf\u00e9"'],
  [String.raw`exec:rm a\u{0}`, 10, "NUL"],
  [String.raw`exec:cafe\u{301} **`, 9, 'expected "exec:caf\u00e9 **"'],
  [String.raw`x-deploy:prod\t`, 14, "control character U+0009"],
];

Deno.test("Rule refuses a rule that no canonical pattern matches, naming the canonical form", async (t) => {
  for (const [rule, column, problem] of NON_CANONICAL_RULES) {
    await t.step(rule, () => {
      assert.throws(() => new Rule(rule), (error: unknown) => {
        assert.ok(error instanceof RuleSyntaxError, String(error));
        assert.ok(
          error.problem.includes(problem),
          `${error.problem} should say ${problem}`,
        );
        assert.equal(error.column, column, error.problem);
        return true;
      });
    });
  }
});

Deno.test("Rule answers for many stars against a long name, without exponential backtracking", () => {
  const rule = new Rule("write:*a*a*a*a*a*a*a*b");
  assert.equal(rule.test(`write:${"a".repeat(5000)}`), false);
  assert.equal(rule.test(`write:${"a".repeat(5000)}b`), true);
  const labels = new Rule("net:https://**.a.**.a.**.b");
  assert.equal(labels.test(`net:https://${"a.".repeat(100)}c`), false);
});

Deno.test("Rule keeps its source and verb and tests many patterns", () => {
  const rule = new Rule("read:docs/**");
  assert.equal(rule.source, "read:docs/**");
  assert.equal(rule.verb, "read");
  assert.equal(rule.test("read:docs/a/b.md"), true);
  assert.equal(rule.test("read:src/a.ts"), false);
  assert.equal(rule.test("not a pattern"), false);
});

Deno.test("an escaped name used as a rule matches only itself", () => {
  const random = prng(99);
  const alphabet = [
    "a",
    "b",
    "*",
    "?",
    "[",
    "]",
    "{",
    "}",
    "\\",
    ",",
    "!",
    "-",
  ];
  const names = new Set<string>();
  while (names.size < 300) {
    const length = 1 + Math.floor(random() * 5);
    names.add(
      Array.from(
        { length },
        () => alphabet[Math.floor(random() * alphabet.length)],
      ).join(""),
    );
  }
  const patterns = [...names].map((name) => `write:dir/${escapeGlob(name)}`);
  for (const source of patterns) {
    const rule = new Rule(source);
    assert.deepEqual(patterns.filter((pattern) => rule.test(pattern)), [
      source,
    ]);
  }
});

Deno.test("net:** and exec:** take any network target and any program", async (t) => {
  const targets: [string, boolean, boolean][] = [
    ["net:https://example.com", true, false],
    ["net:http://example.com:8080", true, false],
    ["net:wss://a.b.example.com:1", true, false],
    [String.raw`net:http://\[::1\]:9`, true, false],
    ["net:http://127.0.0.1", true, false],
    ["exec:curl -d @secrets/key https://x", false, true],
    ["exec:sh", false, true],
    ["read:secrets/key", false, false],
    ["x-net:https://example.com", false, false],
  ];
  const net = new Rule("net:**");
  const exec = new Rule("exec:**");
  for (const [pattern, byNet, byExec] of targets) {
    await t.step(pattern, () => {
      assert.equal(net.test(pattern), byNet);
      assert.equal(exec.test(pattern), byExec);
    });
  }
  await t.step("net:*://** still leaves out explicit ports", () => {
    assert.equal(
      matchPattern("net:*://**", "net:http://example.com:8080"),
      false,
    );
  });
  await t.step("a deny of net:** beats an allow of one host", () => {
    const policy = new Policy({
      allow: ["net:https://example.com:8443"],
      deny: ["net:**"],
    });
    const result = policy.evaluate(["net:https://example.com:8443"]);
    assert.equal(result.decision, "deny");
    assert.equal(result.patterns[0].rule, "net:**");
  });
});
