import assert from "node:assert/strict";
import { Policy } from "../../policy/mod.ts";
import { mappedVerdict, mappedVerdictNow } from "./_mapped_call.ts";
import { policyInForce } from "./_policy_source.ts";
import { parsePolicyText } from "./_policy_source.ts";

Deno.test("mappedVerdictNow() decides without a wait what mappedVerdict() decides, and leaves templates to it", async (t) => {
  const file = parsePolicyText(
    JSON.stringify({
      allow: ["x-echo:**"],
      deny: ["x-echo:secret*"],
      unprobed: "deny",
      annotations: { readOnly: "allow" },
      tools: { echo: { patterns: ["x-echo:{text}"] }, shell: "ask" },
    }),
    "json",
  );
  const inForce = policyInForce(file, { unprobed: "ask", tools: new Map() });
  assert.ok(inForce.policy instanceof Policy);
  const cases = [
    { tool: "shell", listed: { listed: true } },
    { tool: "plain", listed: { listed: true } },
    {
      tool: "reader",
      listed: { listed: true, annotations: { readOnlyHint: true } },
    },
    { tool: "helo", listed: { listed: false, suggestion: "" } },
  ];
  for (const { tool, listed } of cases) {
    await t.step(tool, async () => {
      const now = mappedVerdictNow(tool, inForce, listed);
      const later = await mappedVerdict(tool, {}, inForce, listed);
      assert.ok(now !== undefined && "verdict" in later);
      assert.equal(now.verdict.decision, later.verdict.decision);
      assert.equal(now.verdict.rule, later.verdict.rule);
      assert.equal(now.verdict.denied, later.verdict.denied);
    });
  }
  await t.step("a templated tool", async () => {
    assert.equal(
      mappedVerdictNow("echo", inForce, { listed: true }),
      undefined,
    );
    const filled = await mappedVerdict(
      "echo",
      { text: "secret1" },
      inForce,
      { listed: true },
    );
    assert.ok("verdict" in filled);
    assert.equal(filled.verdict.decision, "deny");
  });
});
