// Internal: the verdict on a call of a tool that does not answer the
// probe. Its `tools` entry (by name, glob, or a preset's) decides it by
// name or fills pattern templates from its arguments, which the policy
// then decides like a probe's patterns; else the annotation defaults, else
// `unprobed`.

import { isRecord } from "../../_util/json_type.ts";
import {
  annotationVerdict,
  probedVerdict,
  toolVerdict,
  unprobedVerdict,
  type Verdict,
} from "./_decide.ts";
import type { PolicyInForce } from "./_policy_source.ts";
import { FillError, fillTemplates } from "./_template.ts";

/** What the gate knows of the tool from the server's list. */
export interface ListedTool {
  /** Whether the server's list holds it. */
  listed: boolean;
  /** Its `annotations`, as listed. */
  annotations?: Record<string, unknown>;
  /** For a tool not listed: `; did you mean "…"?` for listed names near it, or `""`. */
  suggestion?: string;
}

/**
 * The verdict on a call of `tool` with `args`, or the refusal when the
 * arguments cannot fill its templates (`path: missing: …`): such a call is
 * never let through.
 */
export async function mappedVerdict(
  tool: string,
  args: unknown,
  inForce: PolicyInForce,
  listed: ListedTool,
): Promise<{ verdict: Verdict } | { refused: string }> {
  const { mapping } = inForce;
  const found = mapping.entry(tool);
  if (found === undefined || typeof found.entry === "string") {
    return mappedVerdictNow(tool, inForce, listed)!;
  }
  try {
    const patterns = await fillTemplates(
      found.entry,
      isRecord(args) ? args : {},
      mapping.files,
    );
    return {
      verdict: probedVerdict(
        tool,
        patterns,
        inForce.policy.evaluate(patterns),
      ),
    };
  } catch (error) {
    if (!(error instanceof FillError)) throw error;
    return {
      refused:
        `The gate cannot check this call of ${tool}: ${error.message} (${found.source} decides it by its arguments). Nothing was run.`,
    };
  }
}

/**
 * {@linkcode mappedVerdict}'s verdict when no template is to be filled (a
 * decision by name, the annotation defaults or `unprobed`), without a
 * wait; `undefined` for a tool whose templates decide it.
 */
export function mappedVerdictNow(
  tool: string,
  inForce: PolicyInForce,
  listed: ListedTool,
): { verdict: Verdict } | undefined {
  const { mapping } = inForce;
  const found = mapping.entry(tool);
  if (typeof found?.entry === "string") {
    return { verdict: toolVerdict(tool, found.entry, found.source) };
  }
  if (found !== undefined) return undefined;
  const byHint = listed.listed
    ? mapping.byAnnotation(listed.annotations)
    : undefined;
  if (byHint !== undefined) {
    return { verdict: annotationVerdict(tool, byHint.decision, byHint.hint) };
  }
  return {
    verdict: unprobedVerdict(
      tool,
      inForce.unprobed,
      listed.listed ? undefined : listed.suggestion ?? "",
    ),
  };
}

/**
 * The verdict on a call of a probed tool whose probe answered `patterns`:
 * its `tools` entry `deny` refuses it, `ask` asks even when the patterns
 * are allowed; else the policy decides the patterns.
 */
export function patternVerdict(
  tool: string,
  patterns: readonly string[],
  inForce: PolicyInForce,
): Verdict {
  const entry = inForce.mapping.decision(tool);
  return entry?.decision === "deny"
    ? toolVerdict(tool, entry.decision, entry.source)
    : probedVerdict(
      tool,
      patterns,
      inForce.policy.evaluate(patterns),
      entry?.decision,
    );
}
