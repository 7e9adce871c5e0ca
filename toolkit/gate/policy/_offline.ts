// Internal: a call decided without a server, for `gate test` and `gate
// replay`: the gate's own steps (patternVerdict for a probed tool's
// patterns, mappedVerdict for a tool decided by name or templates, then
// the flows of the session), with no probe, pins or user. With a policy
// that names its servers, each call is decided by its server's view of the
// policy (serverPolicy's), and the session's flows see it as the aggregate
// shows it: `<prefix>_<tool>`, on its server. A session of a caller with
// claims decides by that caller's view (callerPolicy(): the principals
// its claims match, with their flows), as a gate with `auth:` does.

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
import type { CallerClaims } from "./_claims.ts";
import { callerPolicy } from "./_caller_policy.ts";
import { messageOf } from "../_log.ts";
import { joinName } from "../../_util/mount_names.ts";

/** What a one-server gate decides with when the file does not say. */
const DEFAULTS: {
  unprobed: Decision;
  tools: ReadonlyMap<string, Decision>;
} = { unprobed: "ask", tools: new Map() };

/** A call as a case or an audit line gives it. */
export interface OfflineCall {
  /** The call's server, in a gate of many servers (`servers:`). */
  server?: string;
  /** The tool's name: the server's own name for it, as audit lines give it. */
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
  #whole: PolicyInForce;
  // The caller's view of the whole: the whole without claims.
  #inForce: PolicyInForce;
  #claims: CallerClaims | undefined;
  #views = new Map<string, { inForce: PolicyInForce; prefix: string }>();

  /** `options.claims`: the caller's, as its verified token gives them (none by default). */
  constructor(
    inForce: PolicyInForce,
    options: { claims?: CallerClaims } = {},
  ) {
    this.#whole = inForce;
    this.#claims = options.claims;
    this.#inForce = callerView(inForce, options.claims);
  }

  /**
   * Decides `call` as the gate would, with the flows the session set off:
   * by its server's view of the policy when it names one.
   *
   * @throws {RangeError} When `call.server` is not one of {@linkcode serverNames}.
   */
  async decide(call: OfflineCall): Promise<OfflineDecision> {
    const { inForce, prefix } = this.#view(call.server);
    const { tool } = call;
    // As the aggregate's gatekeeper gives it to the flows (_gatekeeper.ts).
    const shown = {
      tool: prefix === undefined ? tool : joinName(prefix, tool),
      ...(call.server === undefined ? {} : { server: call.server }),
    };
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
          call: { ...shown, patterns: [], unknown: false },
        };
      }
      verdict = mapped.verdict;
    }
    const flowCall = {
      ...shown,
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
    // Every server's view holds the top level's flows (and the caller's).
    if (this.#inForce.flows !== undefined) {
      this.#flows.forwarded(this.#inForce.flows, call, line);
    }
  }

  /**
   * The policy `server`'s calls are decided by (the whole policy for no
   * server).
   *
   * @throws {RangeError} When `server` is not one of {@linkcode serverNames}.
   */
  policyFor(server: string | undefined): PolicyInForce {
    return this.#view(server).inForce;
  }

  #view(
    server: string | undefined,
  ): { inForce: PolicyInForce; prefix?: string } {
    if (server === undefined) return { inForce: this.#inForce };
    let view = this.#views.get(server);
    if (view === undefined) {
      const entry = this.#whole.file?.servers?.get(server);
      if (entry === undefined) {
        throw new RangeError(
          `Cannot decide a call on server "${server}": ${
            unknownServer(this.#whole)
          }`,
        );
      }
      // As serverPolicy views the entry for the server's gate (and
      // callerPolicySource for a caller's).
      const file = this.#claims === undefined
        ? entry.policy
        : callerPolicy(this.#whole.file!, this.#claims, server);
      view = {
        inForce: { ...policyInForce(file, DEFAULTS), file },
        prefix: entry.prefix,
      };
      this.#views.set(server, view);
    }
    return view;
  }
}

/** The policy `claims`' caller is decided by: `inForce` itself without principals. */
function callerView(
  inForce: PolicyInForce,
  claims: CallerClaims | undefined,
): PolicyInForce {
  if (inForce.file === undefined) return inForce;
  const file = callerPolicy(inForce.file, claims);
  return file === inForce.file
    ? inForce
    : { ...policyInForce(file, DEFAULTS), file };
}

/**
 * The names of the policy's servers (`servers:`), in the file's order;
 * `undefined` for a policy of one server.
 */
export function serverNames(
  inForce: PolicyInForce,
): readonly string[] | undefined {
  const servers = inForce.file?.servers;
  return servers === undefined ? undefined : [...servers.keys()];
}

/** What the policy's servers are, for an error about a server it lacks. */
export function unknownServer(inForce: PolicyInForce): string {
  const names = serverNames(inForce);
  return names === undefined
    ? "the policy names no servers"
    : `the policy's servers are ${names.join(", ")}`;
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
    const file = parsePolicyText(text, format);
    return { ...policyInForce(file, DEFAULTS), file };
  } catch (error) {
    const { line, column } = error as { line?: number; column?: number };
    return {
      problem: line === undefined
        ? `${shown}: ${messageOf(error)}`
        : `${shown}:${line}:${column}: ${messageOf(error)}`,
    };
  }
}
