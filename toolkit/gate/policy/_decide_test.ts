import assert from "node:assert/strict";
import { Policy } from "../../policy/mod.ts";
import { probedVerdict, toolVerdict, unprobedVerdict } from "./_decide.ts";
import { askedAsNew } from "../pins/_pins.ts";

const POLICY = new Policy({
  allow: ["read:**", "write:notes/**"],
  ask: ["exec:git push **"],
  deny: ["write:secrets/**"],
});

function verdict(patterns: string[]) {
  return probedVerdict("tool", patterns, POLICY.evaluate(patterns));
}

Deno.test("probedVerdict() keeps Policy's decision and names the deciding rule", () => {
  const allowed = verdict(["read:a", "write:notes/b"]);
  assert.equal(allowed.decision, "allow");
  assert.equal(allowed.rule, "read:**");
  const denied = verdict(["read:a", "write:secrets/k", "write:secrets/j"]);
  assert.equal(denied.decision, "deny");
  assert.equal(denied.rule, "write:secrets/**");
  assert.equal(
    denied.denied,
    "The gate's policy refuses this call of tool: write:secrets/k denied by write:secrets/**, write:secrets/j denied by write:secrets/**. Nothing was run.",
  );
  const unmatched = verdict(["net:https://x.dev"]);
  assert.equal(unmatched.decision, "ask");
  assert.equal(unmatched.rule, null);
  assert.equal(verdict([]).decision, "allow");
});

Deno.test("probedVerdict()'s question names the tool and every pattern", () => {
  const { question } = verdict(["read:a", "exec:git push origin", "write:x"]);
  assert.equal(
    question,
    'Allow the tool "tool" to run with these permissions?\n' +
      "- read:a: allowed by read:**\n" +
      "- exec:git push origin: asked by exec:git push **\n" +
      "- write:x: no rule matches",
  );
});

Deno.test("probedVerdict()'s refusal says which patterns need approval and how to allow them", () => {
  const { cannotAsk } = verdict([
    "read:a",
    "exec:git push origin",
    "write:x",
    "write:Bad/../x",
  ]);
  assert.match(
    cannotAsk,
    /cannot ask for it \(it did not declare the elicitation capability\)/,
  );
  assert.match(
    cannotAsk,
    /exec:git push origin \(asked by exec:git push \*\*\)/,
  );
  assert.match(cannotAsk, /write:x \(no rule matches\)/);
  assert.doesNotMatch(cannotAsk, /read:a/);
  assert.match(cannotAsk, /allow: \["write:x"\]/);
  assert.match(
    cannotAsk,
    /ask rule exec:git push \*\* must be removed or narrowed/,
  );
  assert.match(cannotAsk, /not a canonical pattern/);
});

Deno.test("unprobedVerdict() decides by the setting and says how to change it", () => {
  for (const decision of ["allow", "ask", "deny"] as const) {
    const v = unprobedVerdict("hello", decision);
    assert.equal(v.decision, decision);
    assert.deepEqual(v.patterns, []);
    assert.equal(v.rule, "unprobed");
  }
  const v = unprobedVerdict("hello", "ask");
  assert.match(
    v.cannotAsk,
    /set tools\.hello to allow \(this tool\) or "unprobed: allow" \(every such tool\)/,
  );
  assert.match(v.question, /"hello"/);
  assert.match(
    unprobedVerdict("hello", "deny").denied,
    /unprobed setting is deny/,
  );
  assert.equal(
    v.declined("decline"),
    "The user declined this call of hello. Nothing was run.",
  );
});

Deno.test("unprobedVerdict() corrects a misspelt tool instead of advising to allow it", () => {
  const typo = unprobedVerdict("helo", "ask", '; did you mean "hello"?');
  assert.match(
    typo.cannotAsk,
    /helo is not in the server's tool list; did you mean "hello"\?, so it reports no permissions/,
  );
  assert.match(typo.cannotAsk, /Check the tool's name\.$/);
  assert.doesNotMatch(typo.cannotAsk, /tools\.helo/);
  assert.match(typo.question, /does not list it; did you mean "hello"\?/);
  assert.match(
    unprobedVerdict("helo", "deny", '; did you mean "hello"?').denied,
    /did you mean "hello"\?/,
  );
  // Nothing near: the name may be a tool the server hides from its list.
  const hidden = unprobedVerdict("zzz", "ask", "");
  assert.match(hidden.cannotAsk, /zzz is not in the server's tool list, so/);
  assert.doesNotMatch(hidden.cannotAsk, /tools\.zzz/);
});

Deno.test("a tools entry decides a tool by name", async (t) => {
  await t.step("toolVerdict() gives the entry's decision and names it", () => {
    for (const decision of ["allow", "ask", "deny"] as const) {
      const v = toolVerdict("run_shell", decision);
      assert.equal(v.decision, decision);
      assert.deepEqual(v.patterns, []);
      assert.equal(v.rule, "tools.run_shell");
    }
    assert.equal(
      toolVerdict("run_shell", "deny").denied,
      "The gate's policy refuses every call of run_shell (tools.run_shell: deny). Nothing was run.",
    );
    assert.match(
      toolVerdict("run_shell", "ask").cannotAsk,
      /\(tools\.run_shell: ask\)\. Nothing was run\. To allow such calls, set tools\.run_shell to allow/,
    );
  });
  await t.step(
    "ask makes an allowed probed call asked, naming the entry",
    () => {
      const patterns = ["read:a"];
      const v = probedVerdict(
        "tool",
        patterns,
        POLICY.evaluate(patterns),
        "ask",
      );
      assert.equal(v.decision, "ask");
      assert.equal(v.rule, "tools.tool");
      assert.equal(
        v.question,
        'Allow the tool "tool" to run with this permission?\n' +
          "- read:a: allowed by read:**\n" +
          "- every call of tool: asked by tools.tool",
      );
      assert.match(
        v.cannotAsk,
        /: every call of tool \(asked by tools\.tool\)\. Nothing was run\. The tools entry asks before every call of tool: set tools\.tool to allow, or remove it\.$/,
      );
    },
  );
  await t.step(
    "ask keeps an asking rule as the rule, and deny beats it",
    () => {
      const asked = ["exec:git push origin"];
      assert.equal(
        probedVerdict("tool", asked, POLICY.evaluate(asked), "ask").rule,
        "exec:git push **",
      );
      const denied = ["write:secrets/k"];
      const v = probedVerdict("tool", denied, POLICY.evaluate(denied), "ask");
      assert.equal(v.decision, "deny");
      assert.equal(v.rule, "write:secrets/**");
    },
  );
  await t.step("allow leaves the patterns to decide", () => {
    const unmatched = ["net:https://x.dev"];
    const v = probedVerdict(
      "tool",
      unmatched,
      POLICY.evaluate(unmatched),
      "allow",
    );
    assert.equal(v.decision, "ask");
    assert.equal(v.rule, null);
  });
});

Deno.test("probedVerdict()'s words survive a spread and a new-tool question", () => {
  const denied = verdict(["write:secrets/key"]);
  const copy = { ...denied, rule: "other" };
  // Own fields are copied; the words are read from the verdict itself.
  assert.equal(copy.decision, "deny");
  assert.deepEqual(copy.patterns, ["write:secrets/key"]);
  assert.equal(typeof copy.declined, "function");
  const allowed = askedAsNew(verdict(["write:notes/a"]), "It is new.");
  assert.equal(allowed.decision, "ask");
  assert.match(allowed.denied, /^The gate's policy refuses this call of tool/);
  assert.match(allowed.question, /^It is new\.\nAllow the tool "tool"/);
  assert.match(allowed.declined("decline"), /declined this call of tool/);
});
