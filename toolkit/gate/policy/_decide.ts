// Internal: from a policy's evaluation (or the `unprobed` setting) to what
// the gate does with a call, and every text it says about it: the refusal
// the model reads, the question the user is asked, the audit's rule.

import type {
  Decision,
  Evaluation,
  PatternEvaluation,
} from "../../policy/mod.ts";

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
  /** `true` when decided by the tool's name, not by what it touches (flows' `unprobed`). */
  unknown?: true;
}

/**
 * The verdict on a probed call. `entry` is the policy's `tools` entry for
 * the tool: `ask` makes an allowed call asked (deny still beats it); `deny`
 * is decided by {@linkcode toolVerdict} without a probe.
 */
export function probedVerdict(
  tool: string,
  patterns: readonly string[],
  evaluation: Evaluation,
  entry?: Decision,
): Verdict {
  return new ProbedVerdict(tool, patterns, evaluation, entry === "ask");
}

/**
 * {@linkcode probedVerdict}'s verdict. A class: its words are built when
 * an outcome needs them (most calls are allowed and need none), and an
 * object literal with getters costs ~1.5 µs to create, on every probed
 * and templated call, where an instance costs ~20 ns.
 */
class ProbedVerdict implements Verdict {
  decision: Decision;
  patterns: readonly string[];
  rule: string | null;
  declined: (action: string) => string;
  #tool: string;
  #evaluation: Evaluation;
  #askedByEntry: boolean;

  constructor(
    tool: string,
    patterns: readonly string[],
    evaluation: Evaluation,
    entryAsks: boolean,
  ) {
    const askedByEntry = entryAsks && evaluation.decision !== "deny";
    const decision = askedByEntry ? "ask" : evaluation.decision;
    const deciding = evaluation.patterns.find((p) => p.decision === decision);
    this.decision = decision;
    this.patterns = patterns;
    this.rule = deciding?.rule ?? (askedByEntry ? `tools.${tool}` : null);
    this.declined = (action) =>
      declinedCall(`${tool} (${patterns.join(", ")})`)(action);
    this.#tool = tool;
    this.#evaluation = evaluation;
    this.#askedByEntry = askedByEntry;
  }

  get denied(): string {
    const denied = this.#evaluation.patterns.filter((p) =>
      p.decision === "deny"
    ).map((p) => `${p.pattern} denied by ${p.rule}`);
    return `The gate's policy refuses this call of ${this.#tool}: ${
      denied.join(", ")
    }. Nothing was run.`;
  }

  get question(): string {
    const tool = this.#tool;
    const lines = this.#evaluation.patterns.map((p) =>
      `- ${p.pattern}: ${why(p)}`
    );
    if (this.#askedByEntry) {
      lines.push(`- every call of ${tool}: asked by tools.${tool}`);
    }
    return `Allow the tool "${tool}" to run with ${
      this.patterns.length === 1 ? "this permission" : "these permissions"
    }?\n${lines.join("\n")}`;
  }

  get cannotAsk(): string {
    const tool = this.#tool;
    const asked = this.#evaluation.patterns.filter((p) => p.decision === "ask");
    const reasons = asked.map((p) => `${p.pattern} (${why(p)})`);
    const advice = [howToAllow(asked)];
    if (this.#askedByEntry) {
      reasons.push(`every call of ${tool} (asked by tools.${tool})`);
      advice.push(
        `The tools entry asks before every call of ${tool}: set tools.${tool} to allow, or remove it.`,
      );
    }
    return `This call of ${tool} needs the user's approval, and this host cannot ask for it (it did not declare the elicitation capability): ${
      reasons.join(", ")
    }. Nothing was run. ${advice.filter((a) => a !== "").join(" ")}`;
  }
}

/**
 * The verdict the policy's `tools` entry gives a tool: any decision for a
 * tool that does not answer probes, and `deny` for one that does (it is
 * not probed then).
 */
export function toolVerdict(
  tool: string,
  decision: Decision,
  entry = `tools.${tool}`,
): Verdict {
  return {
    unknown: true,
    decision,
    patterns: [],
    rule: entry,
    denied:
      `The gate's policy refuses every call of ${tool} (${entry}: deny). Nothing was run.`,
    question:
      `Allow the tool "${tool}" to run? The gate's policy asks before every call of it (${entry}: ask). It does not report which permissions it needs, so the gate cannot say what it will touch.`,
    cannotAsk:
      `This call of ${tool} needs the user's approval, and this host cannot ask for it (it did not declare the elicitation capability): the gate's policy asks before every call of it (${entry}: ask). Nothing was run. To allow such calls, set ${entry} to allow in the gate's policy file.`,
    declined: declinedCall(tool),
  };
}

/**
 * The verdict the policy's `annotations` defaults give a tool that does not
 * answer probes and has no `tools` entry: by its `readOnlyHint` or
 * `destructiveHint`, which the server chose.
 */
export function annotationVerdict(
  tool: string,
  decision: Decision,
  hint: "readOnly" | "destructive",
): Verdict {
  const entry = `annotations.${hint}`;
  const said = hint === "readOnly"
    ? "the server marks it read-only"
    : "the server marks it destructive (or does not say it is not)";
  return {
    unknown: true,
    decision,
    patterns: [],
    rule: entry,
    denied:
      `The gate's policy refuses this call of ${tool}: ${said}, and ${entry} is deny. Nothing was run.`,
    question: `Allow the tool "${tool}" to run? ${said[0].toUpperCase()}${
      said.slice(1)
    }. It does not report which permissions it needs, so the gate cannot say what it will touch.`,
    cannotAsk:
      `This call of ${tool} needs the user's approval, and this host cannot ask for it (it did not declare the elicitation capability): ${said}, and ${entry} is ask. Nothing was run. To allow such calls, set tools.${tool} to allow in the gate's policy file.`,
    declined: declinedCall(tool),
  };
}

/**
 * The verdict on a call of a tool that does not answer probes and has no
 * `tools` entry. `unlisted` is set for a tool the server's list lacks: the
 * `; did you mean "…"?` for the listed names near it, or `""`.
 */
export function unprobedVerdict(
  tool: string,
  decision: Decision,
  unlisted?: string,
): Verdict {
  const unknown = unlisted === undefined
    ? `${tool} does not report which permissions it needs (it does not list forge.supports_permission_patterns)`
    : `${tool} is not in the server's tool list${unlisted}, so it reports no permissions it needs`;
  // A misspelt name is corrected, not allowed: advice to allow it by name
  // would let through whatever tool the server hides under it.
  const advice = unlisted !== undefined
    ? "Check the tool's name."
    : `To allow such calls, set tools.${tool} to allow (this tool) or "unprobed: allow" (every such tool) in the gate's policy file.`;
  return {
    unknown: true,
    decision,
    patterns: [],
    rule: "unprobed",
    denied:
      `The gate's policy refuses this call: ${unknown}, and the policy's unprobed setting is deny. Nothing was run.`,
    question: `Allow the tool "${tool}" to run? ${
      unlisted === undefined
        ? "It does not report"
        : `The server does not list it${unlisted}, and so it cannot report`
    } which permissions it needs, so the gate cannot say what it will touch.`,
    cannotAsk:
      `This call of ${tool} needs the user's approval, and this host cannot ask for it (it did not declare the elicitation capability): ${unknown}, and the policy's unprobed setting is ask. Nothing was run. ${advice}`,
    declined: declinedCall(tool),
  };
}

/** How much of a call's arguments, as JSON, the user is shown when asked. */
const MAX_SHOWN_ARGUMENTS = 1000;

/**
 * The question with the call's arguments, so that the user sees what the
 * tool is asked to do (a tool without the probe reports nothing else). Only
 * the user sees them: the audit never holds an argument value.
 */
export function withArguments(question: string, args: unknown): string {
  if (args === undefined) return question;
  const text = JSON.stringify(args);
  const shown = text.length <= MAX_SHOWN_ARGUMENTS
    ? text
    : `${
      text.slice(0, MAX_SHOWN_ARGUMENTS)
    }… (${text.length} characters in all)`;
  return `${question}\nArguments: ${shown}`;
}

/** The refusal after the user's answer, for `call` ("write_file (write:a)"). */
function declinedCall(call: string): (action: string) => string {
  return (action) =>
    `The user ${
      action === "decline" ? "declined" : "did not approve"
    } this call of ${call}. Nothing was run.`;
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
