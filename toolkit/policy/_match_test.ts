import assert from "node:assert/strict";
import { parsePattern } from "./_match.ts";
import { Policy } from "./policy.ts";

Deno.test("parsePattern() answers a pattern seen before alike, with a result no caller can change", () => {
  const first = parsePattern("read:notes/a.md");
  assert.ok(typeof first !== "string" && first.kind === "path");
  // The same object, frozen: a caller that changed it would change the
  // next call's decision.
  assert.equal(parsePattern("read:notes/a.md"), first);
  assert.ok(Object.isFrozen(first) && Object.isFrozen(first.items));
  assert.throws(() => (first.items as string[]).push("x"), TypeError);
  assert.deepEqual(first.items, ["notes", "a.md"]);
  // A subtree and a problem are kept apart from their neighbours.
  const subtree = parsePattern("read:notes/**");
  assert.ok(
    typeof subtree !== "string" && subtree.kind === "path" &&
      subtree.subtree === true,
  );
  assert.match(String(parsePattern("read:notes/*.md")), /unescaped "\*"/);
  assert.match(String(parsePattern("read:notes/*.md")), /unescaped "\*"/);
});

Deno.test("parsePattern() keeps no long pattern, and a flood of new ones decides as the first time", () => {
  const long = `read:${"a/".repeat(200)}x`;
  const once = parsePattern(long);
  assert.ok(typeof once !== "string");
  assert.notEqual(parsePattern(long), once);
  assert.deepEqual(parsePattern(long), once);
  const policy = new Policy({ allow: ["read:**"], deny: ["read:secrets/**"] });
  for (let i = 0; i < 3000; i++) {
    assert.equal(policy.evaluate([`read:notes/${i}`]).decision, "allow");
  }
  assert.equal(policy.evaluate(["read:secrets/key"]).decision, "deny");
  assert.equal(policy.evaluate(["read:notes/7"]).decision, "allow");
});
