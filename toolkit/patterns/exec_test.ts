import assert from "node:assert/strict";
import { execAccess } from "./exec.ts";
import { checkPattern } from "../../validate/_pattern_grammar.ts";
import { check, type Expect, prng, refused } from "./_testing.ts";
import { Policy } from "../policy/policy.ts";

const EXEC_CASES: [string, unknown, Expect][] = [
  [
    "a shell string",
    "rm -rf x",
    refused(/^argv: got the shell string "rm -rf x": expected an argv array/),
  ],
  ["plain words", ["rm", "-rf", "x"], ["exec:rm -rf x"]],
  ["a space inside an argument", ["rm", "-rf x"], ["exec:rm -rf\\ x"]],
  ["an empty argument", ["echo", ""], ['exec:echo ""']],
  ["no arguments", ["echo"], ["exec:echo"]],
  ["a line feed", ["printf", "a\nb"], ["exec:printf a\\nb"]],
  ["a glob argument", ["ls", "*"], ["exec:ls \\*"]],
  ["quotes", ["echo", 'say "hi"'], ['exec:echo say\\ \\"hi\\"']],
  ["a backslash", ["echo", "a\\b"], ["exec:echo a\\\\b"]],
  ["an escape sequence", ["echo", "\u001b[0m"], ["exec:echo \\u{1b}\\[0m"]],
  [
    "a program by path is also named by its base name",
    ["/bin/rm", "-rf", "x"],
    ["exec:/bin/rm -rf x", "exec:rm -rf x"],
  ],
  ["a relative program path", ["./rm", "x"], ["exec:./rm x", "exec:rm x"]],
  ["an NFD argument becomes NFC", ["cat", "cafe\u0301"], [
    "exec:cat caf\u00e9",
  ]],
  ["an empty argv", [], refused(/^argv: the argv array is empty/)],
  ["an empty program", [""], refused(/^argv\[0\]: the program is empty/)],
  [
    "a NUL in an argument",
    ["rm", "a\0"],
    refused(/^argv\[1\]: "a\\u0000" contains a NUL character/),
  ],
  ["a directory as program", ["bin/"], refused(/ends with "\/"/)],
];

Deno.test("execAccess() names argv so that no two argument lists share a pattern", async (t) => {
  for (const [name, input, expect] of EXEC_CASES) {
    await t.step(`${name}: ${JSON.stringify(input)}`, () => {
      check(() => execAccess(input as string[]).patterns, expect);
    });
  }
  await t.step("a deny on exec:rm ** catches rm however it is spelled", () => {
    const policy = new Policy({ allow: ["exec:**"], deny: ["exec:rm **"] });
    for (const argv of [["rm", "-rf", "x"], ["/bin/rm", "-rf", "x"], ["rm"]]) {
      assert.equal(
        policy.evaluate(execAccess(argv).patterns).decision,
        "deny",
        JSON.stringify(argv),
      );
    }
    assert.equal(
      policy.evaluate(execAccess(["rmdir", "x"]).patterns).decision,
      "allow",
    );
  });
  await t.step("program and args are what to run", () => {
    const run = execAccess(["git", "log", "-n", "1"]);
    assert.equal(run.program, "git");
    assert.deepEqual(run.args, ["log", "-n", "1"]);
    run.args.push("--all");
    assert.deepEqual(run.args, ["log", "-n", "1"]);
  });
  await t.step("a non-string word is a TypeError", () => {
    assert.throws(
      () => execAccess(["rm", 1 as unknown as string]),
      new TypeError(
        "Cannot build an exec target: argv[1] must be a string, got number",
      ),
    );
  });
});

const WORDS = ["", " ", "a", "a b", '"', '""', "\\", "*", "-rf", "\n", "x y z"];

Deno.test("execAccess() is injective over random argv arrays", () => {
  const random = prng(7);
  const seen = new Map<string, string>();
  for (let n = 0; n < 5000; n++) {
    const argv = Array.from(
      { length: 1 + Math.floor(random() * 4) },
      () => WORDS[Math.floor(random() * WORDS.length)],
    );
    argv[0] = argv[0] || "p";
    const [pattern] = execAccess(argv).patterns;
    const key = JSON.stringify(argv);
    const before = seen.get(pattern);
    assert.ok(before === undefined || before === key, `${before} vs ${key}`);
    seen.set(pattern, key);
    assert.equal(typeof checkPattern(pattern), "object", pattern);
  }
});
