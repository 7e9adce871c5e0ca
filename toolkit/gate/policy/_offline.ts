// Internal: a call decided without a server, for `gate test` and `gate
// replay`: the gate's own steps (patternVerdict for a probed tool's
// patterns, mappedVerdict for a tool decided by name or templates, then
// the flows of the session), with no probe, pins or user.

import type { Decision } from "../../policy/mod.ts";
import { type FlowCall, FlowSession, type FlowVerdict } from "./_flows.ts";
import type { Verdict } from "./_decide.ts";
import { mappedVerdict, patternVerdict } from "./_mapped_call.ts";
import {
  parsePolicyText,
  type PolicyInForce,
  policyInForce,
} from "./_policy_source.ts";
import { readSettingsFile } from "./_settings_file.ts";
import { messageOf } from "../_log.ts";

/** A call as a case or an audit line gives it. */
export interface OfflineCall {
  tool: string;
  /** The patterns a probed tool answers; the tool is then taken as probed. */
  patterns?: readonly string[];
  /** The call's arguments, for a tool decided by name or templates. */
  arguments?: Record<string, unknown>;
  /** Whether the server lists the tool (default true). */
  listed?: boolean;
  /** The tool's annotations, as listed. */
  annotations?: Record<string, unknown>;
}

/** How a call was decided: the verdict, or the refusal of its arguments. */
export type OfflineDecision =
  | { decision: Decision; verdict: Verdict | FlowVerdict; call: FlowCall }
  | { decision: "deny"; refused: string; call: FlowCall };

/** One host session's calls, decided in order. */
export class OfflineSession {
  #flows = new FlowSession();
  #inForce: PolicyInForce;

  constructor(inForce: PolicyInForce) {
    this.#inForce = inForce;
  }

  /** Decides `call` as the gate would, with the flows the session set off. */
  async decide(call: OfflineCall): Promise<OfflineDecision> {
    const inForce = this.#inForce;
    const { tool } = call;
    let verdict: Verdict;
    if (call.patterns !== undefined) {
      verdict = patternVerdict(tool, call.patterns, inForce);
    } else {
      const listed = call.listed ?? true;
      const mapped = await mappedVerdict(tool, call.arguments, inForce, {
        listed,
        annotations: call.annotations,
        ...(listed ? {} : { suggestion: "" }),
      });
      if ("refused" in mapped) {
        return {
          decision: "deny",
          refused: mapped.refused,
          call: { tool, patterns: [], unknown: false },
        };
      }
      verdict = mapped.verdict;
    }
    const flowCall = {
      tool,
      patterns: verdict.patterns,
      unknown: !!verdict.unknown,
    };
    if (inForce.flows !== undefined) {
      verdict = this.#flows.tighten(inForce.flows, flowCall, verdict);
    }
    return { decision: verdict.decision, verdict, call: flowCall };
  }

  /** Notes that a decided call ran (`line`: its audit line's SHA-256). */
  ran(call: FlowCall, line?: string): void {
    if (this.#inForce.flows !== undefined) {
      this.#flows.forwarded(this.#inForce.flows, call, line);
    }
  }
}

/** What decided a call, for a report: the rule, the flow, or the refusal. */
export function decidedBy(decided: OfflineDecision): string {
  if ("refused" in decided) return decided.refused;
  const { verdict } = decided;
  if ("flow" in verdict) {
    const { name, trigger } = verdict.flow;
    const by = trigger.pattern === undefined
      ? `${trigger.tool} (effects unknown)`
      : `${trigger.pattern} of ${trigger.tool}`;
    return `${name} (${verdict.rule}), set off by ${by}`;
  }
  if (verdict.rule === null) {
    return verdict.patterns.length === 0 ? "no patterns" : "no rule matches";
  }
  return verdict.rule;
}

/**
 * Reads and checks the policy file at `path` (`shown` as the user named
 * it); the message is `file:line:column: problem` for a wrong field.
 */
export async function loadPolicy(
  path: string,
  shown: string,
): Promise<PolicyInForce | { problem: string }> {
  const file = await readSettingsFile(path, shown);
  if ("problem" in file) return file;
  const { text, format } = file;
  try {
    return policyInForce(parsePolicyText(text, format), {
      unprobed: "ask",
      tools: new Map(),
    });
  } catch (error) {
    const { line, column } = error as { line?: number; column?: number };
    return {
      problem: line === undefined
        ? `${shown}: ${messageOf(error)}`
        : `${shown}:${line}:${column}: ${messageOf(error)}`,
    };
  }
}
