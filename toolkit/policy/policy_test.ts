import assert from "node:assert/strict";
import { Policy } from "./policy.ts";
import { RuleSyntaxError } from "./rule_syntax_error.ts";

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
