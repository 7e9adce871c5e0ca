// Internal: from a policy's evaluation (or the `unprobed` setting) to what
// the gate does with a call, and every text it says about it: the refusal
// the model reads, the question the user is asked, the audit's rule.

import type { Decision, Evaluation, PatternEvaluation } from "../policy/mod.ts";

/** What the gate decided about one call, with the words for each outcome. */
export interface Verdict {
  /** The policy's decision. */
  decision: Decision;
  /** Every pattern the call needs (always and argument patterns). */
  patterns: readonly string[];
  /** The rule behind the decision: the first denying or asking rule, or `"unprobed"`; `null` when no rule matched. */
  rule: string | null;
  /** The text of the `isError` result when the call is denied. */
  denied: string;
  /** The elicitation message when the call needs asking. */
  question: string;
  /** The refusal when the call needs asking and the host cannot ask. */
  cannotAsk: string;
  /** The refusal when the user declines or cancels. */
  declined: (action: string) => string;
}

/** The verdict on a probed call. */
export function probedVerdict(
  tool: string,
  patterns: readonly string[],
  evaluation: Evaluation,
): Verdict {
  const { decision } = evaluation;
  const deciding = evaluation.patterns.find((p) => p.decision === decision);
  const denied = evaluation.patterns.filter((p) => p.decision === "deny")
    .map((p) => `${p.pattern} denied by ${p.rule}`);
  const asked = evaluation.patterns.filter((p) => p.decision === "ask");
  return {
    decision,
    patterns,
    rule: deciding?.rule ?? null,
    denied: `The gate's policy refuses this call of ${tool}: ${
      denied.join(", ")
    }. Nothing was run.`,
    question: `Allow the tool "${tool}" to run with ${
      patterns.length === 1 ? "this permission" : "these permissions"
    }?\n${
      evaluation.patterns.map((p) => `- ${p.pattern}: ${why(p)}`).join("\n")
    }`,
    cannotAsk:
      `This call of ${tool} needs the user's approval, and this host cannot ask for it (it did not declare the elicitation capability): ${
        asked.map((p) => `${p.pattern} (${why(p)})`).join(", ")
      }. Nothing was run. ${howToAllow(asked)}`,
    declined: (action) =>
      `The user ${
        action === "decline" ? "declined" : "did not approve"
      } this call of ${tool} (${patterns.join(", ")}). Nothing was run.`,
  };
}

/** The verdict on a call of a tool that does not answer probes. */
export function unprobedVerdict(tool: string, decision: Decision): Verdict {
  const unknown =
    `${tool} does not report which permissions it needs (it does not list forge.supports_permission_patterns)`;
  return {
    decision,
    patterns: [],
    rule: "unprobed",
    denied:
      `The gate's policy refuses this call: ${unknown}, and the policy's unprobed setting is deny. Nothing was run.`,
    question:
      `Allow the tool "${tool}" to run? It does not report which permissions it needs, so the gate cannot say what it will touch.`,
    cannotAsk:
      `This call of ${tool} needs the user's approval, and this host cannot ask for it (it did not declare the elicitation capability): ${unknown}, and the policy's unprobed setting is ask. Nothing was run. To allow such calls, set "unprobed: allow" in the gate's policy file.`,
    declined: (action) =>
      `The user ${
        action === "decline" ? "declined" : "did not approve"
      } this call of ${tool}. Nothing was run.`,
  };
}

function why(p: PatternEvaluation): string {
  if (p.problem !== undefined) return `not a canonical pattern: ${p.problem}`;
  if (p.rule === undefined) return "no rule matches";
  return `${
    p.decision === "allow"
      ? "allowed"
      : p.decision === "ask"
      ? "asked"
      : "denied"
  } by ${p.rule}`;
}

function howToAllow(asked: readonly PatternEvaluation[]): string {
  const unmatched = asked.filter((p) =>
    p.rule === undefined && p.problem === undefined
  )
    .map((p) => JSON.stringify(p.pattern));
  const byRule = [
    ...new Set(asked.flatMap((p) => p.rule === undefined ? [] : [p.rule])),
  ];
  const parts: string[] = [];
  if (unmatched.length > 0) {
    parts.push(
      `To allow such calls, add a rule to the allow list of the gate's policy file, for example allow: [${
        unmatched.join(", ")
      }]`,
    );
  }
  if (byRule.length > 0) {
    parts.push(
      `The ask ${byRule.length === 1 ? "rule" : "rules"} ${
        byRule.join(", ")
      } must be removed or narrowed for an allow rule to apply (ask beats allow)`,
    );
  }
  if (asked.some((p) => p.problem !== undefined)) {
    parts.push(
      "A pattern that is not canonical can never be allowed by a rule",
    );
  }
  return parts.length === 0 ? "" : `${parts.join(". ")}.`;
}
