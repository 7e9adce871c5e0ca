import assert from "node:assert/strict";
import { Policy, type PolicyRules } from "./policy.ts";
import { RuleSyntaxError } from "./rule_syntax_error.ts";
import { prng } from "../patterns/_testing.ts";

Deno.test("Policy decides a call: deny beats ask beats allow, unmatched asks", async (t) => {
  const policy = new Policy({
    allow: [
      "read:**",
      "write:src/**",
      "exec:git **",
      "net:https://**.github.com",
    ],
    ask: ["write:src/generated/**"],
    deny: ["write:src/secrets/**", "exec:git push **", "read:/etc/shadow"],
  });
  await t.step("every pattern allowed allows the call", () => {
    assert.deepEqual(policy.evaluate(["read:README.md", "write:src/a.ts"]), {
      decision: "allow",
      patterns: [
        { pattern: "read:README.md", decision: "allow", rule: "read:**" },
        { pattern: "write:src/a.ts", decision: "allow", rule: "write:src/**" },
      ],
    });
  });
  await t.step("deny beats allow on the same pattern", () => {
    assert.deepEqual(policy.evaluate(["write:src/secrets/key"]).patterns, [
      {
        pattern: "write:src/secrets/key",
        decision: "deny",
        rule: "write:src/secrets/**",
      },
    ]);
    assert.equal(
      policy.evaluate(["exec:git push --force origin"]).decision,
      "deny",
    );
  });
  await t.step("ask beats allow", () => {
    assert.equal(policy.evaluate(["write:src/generated/x.ts"]).decision, "ask");
  });
  await t.step("one denied pattern denies the whole call", () => {
    assert.equal(
      policy.evaluate(["read:a", "write:src/generated/x", "read:/etc/shadow"])
        .decision,
      "deny",
    );
  });
  await t.step("one unmatched pattern makes the call ask", () => {
    const result = policy.evaluate(["write:src/a.ts", "delete:src/a.ts"]);
    assert.equal(result.decision, "ask");
    assert.deepEqual(result.patterns[1], {
      pattern: "delete:src/a.ts",
      decision: "ask",
    });
  });
  await t.step("a host rule covers subdomains and the domain itself", () => {
    assert.equal(
      policy.evaluate(["net:https://api.github.com"]).decision,
      "allow",
    );
    assert.equal(policy.evaluate(["net:https://github.com"]).decision, "allow");
    assert.equal(policy.evaluate(["net:http://github.com"]).decision, "ask");
  });
  await t.step("a call with no patterns touches nothing and is allowed", () => {
    assert.deepEqual(policy.evaluate([]), { decision: "allow", patterns: [] });
  });
  await t.step("a non-canonical pattern asks and says why", () => {
    assert.deepEqual(policy.evaluate(["read:a/../../etc/shadow"]).patterns, [{
      pattern: "read:a/../../etc/shadow",
      decision: "ask",
      problem:
        'path "a/../../etc/shadow" is not canonical: expected no empty, "." or ".." segments',
    }]);
    assert.deepEqual(policy.evaluate(["READ:x", 5 as unknown as string]), {
      decision: "ask",
      patterns: [
        {
          pattern: "READ:x",
          decision: "ask",
          problem:
            'unknown verb "READ": expected one of read, write, delete, exec, net or x-<name> (verbs are lowercase: "read")',
        },
        {
          pattern: "5",
          decision: "ask",
          problem: "expected a pattern string, got number",
        },
      ],
    });
  });
  await t.step("a pattern with an unescaped wildcard asks", () => {
    assert.equal(
      policy.evaluate(["write:src/*"]).patterns[0].problem,
      'unescaped "*" in a pattern: expected "\\*", since patterns name concrete targets',
    );
  });
});

Deno.test("Policy refuses bad rules at load time, naming list, index and rule", async (t) => {
  await t.step("a rule with an upper-case verb", () => {
    assert.throws(
      () =>
        new Policy({ allow: ["read:**"], deny: ["exec:rm **", "WRITE:a.txt"] }),
      (error: unknown) => {
        assert.ok(error instanceof RuleSyntaxError);
        assert.equal(error.list, "deny");
        assert.equal(error.index, 1);
        assert.equal(error.rule, "WRITE:a.txt");
        assert.equal(
          error.message,
          'Cannot load rule deny[1] "WRITE:a.txt" at column 1: unknown verb "WRITE": expected one of read, write, delete, exec, net or x-<name> (verbs are lowercase: "write")',
        );
        return true;
      },
    );
  });
  await t.step("an empty target", () => {
    assert.throws(
      () => new Policy({ ask: ["net:"] }),
      /^RuleSyntaxError: Cannot load rule ask\[0\] "net:" at column 5: empty target/,
    );
  });
  await t.step("wrong shapes are TypeErrors", () => {
    assert.throws(
      () => new Policy(null as unknown as object),
      new TypeError(
        "Cannot load policy: expected an object with allow, ask and deny lists, got null",
      ),
    );
    assert.throws(
      () => new Policy({ alow: ["read:**"] } as object),
      new TypeError(
        'Cannot load policy: unknown list "alow": expected allow, ask or deny',
      ),
    );
    assert.throws(
      () => new Policy({ allow: "read:**" as unknown as string[] }),
      new TypeError(
        'Cannot load policy: "allow" must be an array of rule strings, got string',
      ),
    );
    assert.throws(
      () => new Policy({ deny: [null as unknown as string] }),
      new TypeError(
        "Cannot load policy: deny[0] must be a rule string, got null",
      ),
    );
    assert.throws(
      () => new Policy({}).evaluate("read:a" as unknown as string[]),
      new TypeError(
        "Cannot evaluate policy: expected an array of pattern strings, got string",
      ),
    );
  });
});

// A hostile tool's spellings of a denied target: rules, pattern, and the
// canonical pattern the problem must name (or a word of why there is none).
const BYPASSES: [string, PolicyRules, string, string][] = [
  [
    "an escaped / inside one segment",
    { allow: ["write:**"], deny: ["write:secrets/**"] },
    String.raw`write:secrets\u{2f}key`,
    'expected "write:secrets/key"',
  ],
  [
    "an escaped leading / that made the path look relative",
    { allow: ["write:**"], deny: ["write:/etc/**"] },
    String.raw`write:\u{2f}etc/passwd`,
    'expected "write:/etc/passwd"',
  ],
  [
    "escaped dots and slashes climbing out",
    { allow: ["write:**"], deny: ["write:/etc/**"] },
    String.raw`write:\u{2e}\u{2e}\u{2f}x`,
    "leaves the root",
  ],
  [
    "an escaped .. segment",
    { allow: ["write:**"], deny: ["write:secrets/**"] },
    String.raw`write:a/\u{2e}\u{2e}/secrets/key`,
    '".." segments',
  ],
  [
    "an escaped control character",
    { allow: ["write:**"], deny: ["write:a"] },
    String.raw`write:a\n`,
    "control character",
  ],
  [
    "an escaped NUL",
    { allow: ["write:**"], deny: ["write:a"] },
    String.raw`write:a\u{0}`,
    "NUL",
  ],
  [
    "a decomposed (NFD) name spelled with an escape",
    { allow: ["write:**"], deny: ["write:caf\u00e9"] },
    String.raw`write:cafe\u{301}`,
    'expected "write:caf\u00e9"',
  ],
  [
    "a letter spelled as an escape",
    { allow: ["read:**"], deny: ["read:key"] },
    String.raw`read:k\u{65}y`,
    'expected "read:key"',
  ],
  [
    "IPv4 short form",
    { allow: ["net:*://**"], deny: ["net:http://127.0.0.1"] },
    "net:http://127.1",
    'expected "net:http://127.0.0.1"',
  ],
  [
    "IPv4 as one decimal number",
    { allow: ["net:*://**"], deny: ["net:http://127.0.0.1"] },
    "net:http://2130706433",
    'expected "net:http://127.0.0.1"',
  ],
  [
    "IPv4 in hex",
    { allow: ["net:*://**"], deny: ["net:http://127.0.0.1"] },
    "net:http://0x7f.0.0.1",
    'expected "net:http://127.0.0.1"',
  ],
  [
    "IPv4 in octal",
    { allow: ["net:*://**"], deny: ["net:http://127.0.0.1"] },
    "net:http://0177.0.0.1",
    'expected "net:http://127.0.0.1"',
  ],
  [
    "IPv4-mapped IPv6",
    { allow: ["net:*://**"], deny: ["net:http://127.0.0.1"] },
    String.raw`net:http://\[::ffff:127.0.0.1\]`,
    'expected "net:http://127.0.0.1"',
  ],
  [
    "an uncompressed IPv6 address",
    { allow: ["net:*://**"], deny: [String.raw`net:http://\[::1\]`] },
    String.raw`net:http://\[0:0:0:0:0:0:0:1\]`,
    String.raw`expected "net:http://\\[::1\\]"`,
  ],
  [
    "an escaped space inside one argument",
    { allow: ["exec:**"], deny: ["exec:rm\\ -rf"] },
    String.raw`exec:rm\u{20}-rf`,
    String.raw`expected "exec:rm\\ -rf"`,
  ],
  [
    "an escaped NUL in an argument",
    { allow: ["exec:**"], deny: ["exec:rm **"] },
    String.raw`exec:rm a\u{0}`,
    "NUL",
  ],
  [
    "an escaped line feed in an extension target",
    { allow: ["x-deploy:**"], deny: ["x-deploy:prod"] },
    String.raw`x-deploy:prod\n`,
    "control character",
  ],
];

Deno.test("Policy asks, never allows, for a non-canonical spelling of a denied target", async (t) => {
  for (const [name, rules, pattern, why] of BYPASSES) {
    await t.step(`${name}: ${pattern}`, () => {
      const [result] = new Policy(rules).evaluate([pattern]).patterns;
      assert.equal(result.decision, "ask");
      assert.equal(result.rule, undefined);
      assert.ok(
        result.problem?.includes(why),
        `${result.problem} should say ${why}`,
      );
    });
  }
});

Deno.test("Policy never allows a random spelling of a denied target", async (t) => {
  const random = prng(2207);
  const pick = <T>(choices: readonly T[]): T =>
    choices[Math.floor(random() * choices.length)];
  const escape = (c: string) => `\\u{${c.codePointAt(0)!.toString(16)}}`;
  // Mostly as written, so that a spelling often has just one change: each
  // character as an escape or another spelling of the same thing.
  const respell = (target: string, spellings: Record<string, string[]>) =>
    [...target].map((c) =>
      random() < 0.85 ? c : pick([escape(c), ...(spellings[c] ?? [])])
    ).join("");
  // Rules, then spellings of denied targets, then the character spellings.
  const cases: [string, PolicyRules, string[], Record<string, string[]>][] = [
    [
      "paths",
      {
        allow: ["write:**", "write:/**"],
        deny: ["write:secrets/**", "write:/etc/**", "write:caf\u00e9/**"],
      },
      [
        "write:secrets/key",
        "write:./secrets/key",
        "write:secrets//key",
        "write:x/../secrets/key",
        "write:/etc/passwd",
        "write://etc/passwd",
        "write:/../etc/passwd",
        "write:/tmp/../etc/passwd",
        "write:caf\u00e9/n",
        "write:cafe\u0301/n",
      ],
      {
        "/": ["\\u{2f}", "//", "/./", "/x/../", "/\\u{2e}/"],
        "\u00e9": ["e\\u{301}", "e\u0301"],
      },
    ],
    [
      "hosts",
      {
        allow: ["net:*://**", "net:*://**:*"],
        deny: ["net:http://127.0.0.1", "net:http://example.com"],
      },
      [
        "net:http://127.0.0.1",
        "net:http://127.1",
        "net:http://127.0.1",
        "net:http://2130706433",
        "net:http://0x7f.0.0.1",
        "net:http://0x7f000001",
        "net:http://0177.0.0.1",
        "net:http://127.0.0.1.",
        "net:http://127.0.0.1:80",
        "net:http://\\[::ffff:127.0.0.1\\]",
        "net:http://\\[::ffff:7f00:1\\]",
        "net:http://example.com",
        "net:http://EXAMPLE.com",
        "net:http://example.com.",
        "net:http://example.com:80",
        "net:http://ex%61mple.com",
        "net:HTTP://example.com",
      ],
      { e: ["E"], x: ["X"], f: ["F"] },
    ],
    [
      "commands",
      { allow: ["exec:**"], deny: ["exec:rm **"] },
      ["exec:rm -rf x", "exec:rm -rf\\ x"],
      { " ": ["\\u{20}", "  "], m: ["m\\u{0}"] },
    ],
  ];
  for (const [name, rules, targets, spellings] of cases) {
    await t.step(name, () => {
      const policy = new Policy(rules);
      for (let i = 0; i < 3000; i++) {
        const target = pick(targets);
        const colon = target.indexOf(":") + 1;
        const spelled = target.slice(0, colon) +
          respell(target.slice(colon), spellings);
        const [result] = policy.evaluate([spelled]).patterns;
        // Denied when taken as canonical, else asked: never allowed.
        assert.equal(
          result.decision,
          result.problem === undefined ? "deny" : "ask",
          `${spelled}: ${result.problem}`,
        );
      }
    });
  }
});

Deno.test("a subtree pattern is decided by every name below its directory", async (t) => {
  const policy = new Policy({
    allow: ["read:**", "read:/srv/public/**"],
    ask: ["read:**/*.key"],
    deny: ["read:secrets/**", "read:/etc/**"],
  });
  const decide = (pattern: string) => {
    const [result] = policy.evaluate([pattern]).patterns;
    return [result.decision, result.rule ?? result.problem];
  };
  await t.step("a deny rule below the directory denies it", () => {
    assert.deepEqual(decide("read:**"), ["deny", "read:secrets/**"]);
    assert.deepEqual(decide("read:secrets/**"), ["deny", "read:secrets/**"]);
    assert.deepEqual(decide("read:secrets/a/**"), [
      "deny",
      "read:secrets/**",
    ]);
    assert.deepEqual(decide("read:/**"), ["deny", "read:/etc/**"]);
  });
  await t.step("an ask rule that could match a name below asks", () => {
    assert.deepEqual(decide("read:notes/**"), ["ask", "read:**/*.key"]);
  });
  await t.step("allowed only when one rule covers every name", () => {
    const open = new Policy({ allow: ["read:notes/**"] });
    assert.equal(open.evaluate(["read:notes/**"]).decision, "allow");
    assert.equal(open.evaluate(["read:notes/a/**"]).decision, "allow");
    // notes/* covers the names directly inside, not the ones below.
    const shallow = new Policy({ allow: ["read:notes/*", "read:notes"] });
    assert.equal(shallow.evaluate(["read:notes/**"]).decision, "ask");
    assert.equal(open.evaluate(["read:**"]).decision, "ask");
    assert.equal(
      new Policy({ allow: ["read:/srv/public/**"] })
        .evaluate(["read:/srv/public/x/**"]).decision,
      "allow",
    );
  });
  await t.step("a subtree has one spelling", () => {
    for (const pattern of ["read:./**", "read://**", "read:a/./**"]) {
      const [decision, problem] = decide(pattern);
      assert.equal(decision, "ask", pattern);
      assert.match(String(problem), /not canonical/, pattern);
    }
    // Only a whole last segment ** is a subtree; other globs stay refused.
    assert.match(String(decide("read:a**")[1]), /unescaped "\*"/);
    assert.match(String(decide("read:**/a")[1]), /unescaped "\*"/);
    assert.match(
      String(new Policy({}).evaluate(["exec:**"]).patterns[0].problem),
      /unescaped "\*"/,
    );
  });
});
