import assert from "node:assert/strict";
import {
  checkPattern,
  codePointName,
  isNetScheme,
  isPatternVerb,
  patternProblem,
  targetKind,
} from "./_pattern_grammar.ts";

Deno.test("patternProblem() names the rule broken and the range to fix", async (t) => {
  const cases: [string, string, number, number][] = [
    ["no colon", "no-colon", 0, 8],
    ["Read:a", "verb", 0, 4],
    ["x-:a", "verb", 0, 2],
    ["read:", "empty-target", 4, 5],
    ["exec:a b\u0007", "control", 8, 9],
    ["read:x/e\u0301", "nfc", 7, 8],
  ];
  for (const [pattern, kind, start, end] of cases) {
    await t.step(JSON.stringify(pattern), () => {
      const problem = patternProblem(pattern);
      assert.deepEqual(
        problem && [problem.kind, problem.start, problem.end],
        [kind, start, end],
      );
      assert.equal(checkPattern(pattern), problem?.message);
    });
  }
  await t.step("a non-string", () => {
    assert.equal(
      patternProblem(null as unknown as string)?.message,
      'expected a string "verb:target", got null',
    );
  });
});

Deno.test("checkPattern() splits at the first colon", () => {
  assert.equal(patternProblem("net:https://a.com:8080"), undefined);
  assert.deepEqual(checkPattern("net:https://a.com:8080"), {
    verb: "net",
    target: "https://a.com:8080",
  });
  assert.deepEqual(checkPattern("x-deploy:prod"), {
    verb: "x-deploy",
    target: "prod",
  });
});

Deno.test("the verb, scheme and control-character rules", () => {
  assert.ok(isPatternVerb("exec") && isPatternVerb("x-a1-b"));
  assert.ok(
    !isPatternVerb("Exec") && !isPatternVerb("x-") && !isPatternVerb(""),
  );
  assert.ok(isNetScheme("wss") && !isNetScheme("ftp") && !isNetScheme(1));
  assert.equal(codePointName("\u0000"), "U+0000");
  assert.equal(codePointName("\u009f"), "U+009F");
  assert.match(
    checkPattern("read:a\u007f") as string,
    /control character U\+007F at offset 1$/,
  );
});

Deno.test("targetKind() gives each verb the shape of its target", async (t) => {
  const cases: [string, string][] = [
    ["read", "path"],
    ["write", "path"],
    ["delete", "path"],
    ["exec", "exec"],
    ["net", "net"],
    ["x-deploy", "opaque"],
  ];
  for (const [verb, kind] of cases) {
    await t.step(verb, () => assert.equal(targetKind(verb), kind));
  }
});
