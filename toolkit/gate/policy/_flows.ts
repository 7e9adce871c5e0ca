// Internal: rules across calls (`flows:` in the policy file). Once a call
// that matches a flow's `after` has been forwarded, the flow's `deny` and
// `ask` rules apply to the later calls of the same session: they tighten a
// decision (allow → ask → deny), never loosen it. The session remembers
// which `after` rules were set off, and by which call, not the calls.

import { type Decision, Policy, RuleSyntaxError } from "../../policy/mod.ts";
import { isRecord, typeName } from "../../_util/json_type.ts";
import type { Verdict } from "./_decide.ts";
import { MappingError } from "./_tool_mapping.ts";

/** The word in a flow's list for a call whose effects the gate cannot know. */
export const UNPROBED = "unprobed";

const FLOW_KEYS: readonly string[] = ["after", "deny", "ask", "server"];

/** One list of a flow: rules, and whether it names `unprobed` calls. */
interface FlowList {
  /** Each rule with a policy that denies what it meets (a subtree too). */
  readonly rules: readonly { rule: string; policy: Policy }[];
  /** The deny or ask rules together, for a call's patterns. */
  readonly policy: Policy;
  readonly unprobed: boolean;
}

/**
 * One flow of a policy file (`flows:`), checked: its place and its lists as
 * written. Once a call that an `after` rule meets has run in the session,
 * the `deny` and `ask` rules apply to later calls; `unprobed` in a list
 * names calls whose effects the gate cannot know.
 *
 * @example
 * ```ts
 * import { parseGatePolicy } from "@forge/toolkit/gate";
 *
 * const { flows } = parseGatePolicy({
 *   flows: [{ after: ["read:secrets/**"], deny: ["net:**", "exec:**"] }],
 * });
 * flows?.[0].name; // "flows[0]"
 * flows?.[0].deny; // ["net:**", "exec:**"]
 * ```
 */
export type GateFlow = Flow;

/**
 * One checked flow of a policy file: its place (`flows[0]`) and its lists
 * as written (rule strings, and `unprobed`).
 */
export interface Flow {
  readonly name: string;
  /** In a gate of many servers: only calls on this server set the flow off. */
  readonly server?: string;
  readonly after: readonly string[];
  readonly deny: readonly string[];
  readonly ask: readonly string[];
}

/** A flow's lists, compiled. */
interface Compiled {
  readonly after: FlowList;
  readonly deny: FlowList;
  readonly ask: FlowList;
}

// Kept apart from the flows, which the policy file's readers see as written.
const COMPILED = new WeakMap<Flow, Compiled>();

function compiled(flow: Flow): Compiled {
  const found = COMPILED.get(flow);
  if (found === undefined) {
    throw new TypeError(`Cannot use flow ${flow.name}: it was not checked`);
  }
  return found;
}

/**
 * Checks `flows`: a list of `{ after, deny?, ask? }`, each a list of rule
 * strings or `unprobed`, with at least one of deny and ask. `options.at`
 * is where the list's owner stands in the file (`["principals", 1]` for a
 * principal's flows), which its errors and its flows' names start with
 * (`principals[1].flows[0]`); the top level by default.
 *
 * @throws {MappingError} Naming the wrong field (and the column in a rule).
 */
export function parseFlows(
  value: unknown,
  options: {
    servers?: readonly string[];
    at?: readonly (string | number)[];
  } = {},
): readonly Flow[] {
  const at = [...options.at ?? [], "flows"];
  if (!Array.isArray(value)) {
    throw new MappingError(
      `expected a list of flows ({ after: [rules], deny: [rules], ask: [rules] }), got ${
        typeName(value)
      }`,
      at,
    );
  }
  return Object.freeze(value.map((entry: unknown, index) => {
    const path = [...at, index];
    if (!isRecord(entry)) {
      throw new MappingError(
        `expected { after: [rules], deny: [rules], ask: [rules] }, got ${
          typeName(entry)
        }`,
        path,
      );
    }
    for (const key of Object.keys(entry)) {
      if (!FLOW_KEYS.includes(key)) {
        throw new MappingError(
          options.servers === undefined
            ? "unknown key: expected after, deny or ask"
            : "unknown key: expected after, deny, ask or server",
          [...path, key],
        );
      }
    }
    if (entry.server !== undefined) {
      if (options.servers === undefined) {
        throw new MappingError(
          "this policy names no servers: expected no server in a flow",
          [...path, "server"],
        );
      }
      if (
        typeof entry.server !== "string" ||
        !options.servers.includes(entry.server)
      ) {
        throw new MappingError(
          `expected the name of one of the policy's servers (${
            options.servers.join(", ")
          }), got ${
            typeof entry.server === "string"
              ? JSON.stringify(entry.server)
              : typeName(entry.server)
          }`,
          [...path, "server"],
        );
      }
    }
    if (entry.after === undefined) {
      throw new MappingError(
        'missing: expected the rules that set the flow off, such as after: ["read:secrets/**"]',
        [...path, "after"],
      );
    }
    if (entry.deny === undefined && entry.ask === undefined) {
      throw new MappingError(
        'a flow without deny or ask: expected what it refuses or asks, such as deny: ["net:**"]',
        path,
      );
    }
    const lists = {
      after: flowList(entry.after, [...path, "after"]),
      deny: flowList(entry.deny ?? [], [...path, "deny"]),
      ask: flowList(entry.ask ?? [], [...path, "ask"]),
    };
    const flow: Flow = Object.freeze({
      name: fieldName(path),
      ...(entry.server === undefined ? {} : { server: entry.server as string }),
      after: Object.freeze([...entry.after as string[]]),
      deny: Object.freeze([...(entry.deny ?? []) as string[]]),
      ask: Object.freeze([...(entry.ask ?? []) as string[]]),
    });
    COMPILED.set(flow, lists);
    return flow;
  }));
}

/** `flows[0]`, `principals[1].flows[0]`. */
function fieldName(path: readonly (string | number)[]): string {
  return path.map((part, i) =>
    typeof part === "number" ? `[${part}]` : i === 0 ? part : `.${part}`
  ).join("");
}

function flowList(value: unknown, path: (string | number)[]): FlowList {
  if (!Array.isArray(value)) {
    const hint = typeof value === "string" ? ` (write ["${value}"])` : "";
    throw new MappingError(
      `expected a list of rule strings or "unprobed", got ${
        typeName(value)
      }${hint}`,
      path,
    );
  }
  const rules: string[] = [];
  let unprobed = false;
  value.forEach((rule: unknown, index) => {
    if (typeof rule !== "string") {
      throw new MappingError(
        `expected a rule string or "unprobed", got ${typeName(rule)}`,
        [...path, index],
      );
    }
    if (rule === UNPROBED) unprobed = true;
    else rules.push(rule);
  });
  const indexes = value.flatMap((rule, i) => rule === UNPROBED ? [] : [i]);
  try {
    const policy = new Policy({ deny: rules });
    return {
      rules: rules.map((rule) => ({
        rule,
        policy: new Policy({ deny: [rule] }),
      })),
      policy,
      unprobed,
    };
  } catch (error) {
    if (error instanceof RuleSyntaxError) {
      throw new MappingError(
        `${error.problem} (in rule ${JSON.stringify(error.rule)})`,
        [...path, indexes[error.index ?? 0] ?? 0],
        error.column,
      );
    }
    throw error;
  }
}

/** What set a flow's `after` rule off: the call, and its audit line. */
export interface FlowTrigger {
  /** The call's tool. */
  readonly tool: string;
  /** The pattern the rule met; `undefined` for a call of unknown effects. */
  readonly pattern: string | undefined;
  /** The SHA-256 of the call's audit line (the next line's `prev`); absent without a log. */
  readonly line?: string;
}

/** What a flow made of a call: who decided, and since when. */
export interface FlowVerdict extends Verdict {
  /** The flow (`flows[0]`) and the call that set it off. */
  flow: { name: string; trigger: FlowTrigger };
}

/** A call as flows see it. */
export interface FlowCall {
  /** The tool as the host names it (`files_read_text_file` in an aggregate). */
  tool: string;
  /** The server the call is for, in a gate of many servers. */
  server?: string;
  /** The call's patterns, whole. */
  patterns: readonly string[];
  /** Whether the gate cannot know what the call touches (no probe, no templates). */
  unknown: boolean;
}

/**
 * How many `after` rules one session remembers as set off. At the bound
 * the session takes every flow as set off from then on: the strict side.
 */
export const MAX_TRIGGERS = 4096;

/**
 * What a session's flows have set off, as a store outside the gate keeps
 * it (_flow_store.ts): each set-off rule by its key (its text, or
 * `server\u0000rule` for a flow of one server), and the call that reached
 * the bound, if one did.
 */
export interface FlowState {
  readonly triggers: readonly (readonly [string, FlowTrigger])[];
  readonly full?: FlowTrigger;
}

/**
 * The flows set off in one host session: by `after` rule text (or
 * `unprobed`), the first call that met it. A flow is set off while any of
 * its `after` rules is, so it stays set off across a reload that keeps
 * that rule, wherever the flow now stands in the list.
 */
export class FlowSession {
  #triggers = new Map<string, FlowTrigger>();
  #full: FlowTrigger | undefined;
  #max: number;
  // What forwarded() set off, for the store to keep.
  #added: [string, FlowTrigger][] = [];

  constructor(options: { max?: number; state?: FlowState } = {}) {
    this.#max = options.max ?? MAX_TRIGGERS;
    const { state } = options;
    if (state === undefined) return;
    for (const [rule, trigger] of state.triggers) {
      if (this.#triggers.size >= this.#max) {
        this.#full ??= trigger;
        break;
      }
      this.#triggers.set(rule, trigger);
    }
    if (state.full !== undefined) this.#full = state.full;
  }

  /**
   * Notes a call that was forwarded: the `after` rules it meets. Returns
   * what this call set off that was not set off before (empty when
   * nothing was), which a store outside the gate adds to its own.
   */
  forwarded(flows: readonly Flow[], call: FlowCall, line?: string): FlowState {
    this.#added = [];
    const wasFull = this.#full !== undefined;
    this.#note(flows, call, line);
    const added = this.#added;
    this.#added = [];
    return !wasFull && this.#full !== undefined
      ? { triggers: added, full: this.#full }
      : { triggers: added };
  }

  #note(flows: readonly Flow[], call: FlowCall, line?: string): void {
    if (this.#full !== undefined) return;
    const unknown = call.unknown || notCanonical(call.patterns);
    for (const flow of flows) {
      if (flow.server !== undefined && flow.server !== call.server) continue;
      const { after } = compiled(flow);
      if (unknown && after.unprobed) {
        this.#set(triggerKey(flow, UNPROBED), {
          tool: call.tool,
          pattern: undefined,
          line,
        });
      }
      if (call.patterns.length === 0) continue;
      for (const { rule, policy } of after.rules) {
        const key = triggerKey(flow, rule);
        if (this.#triggers.has(key)) continue;
        const met = policy.evaluate(call.patterns).patterns.find((p) =>
          p.decision === "deny"
        );
        if (met !== undefined) {
          this.#set(key, { tool: call.tool, pattern: met.pattern, line });
        }
      }
    }
  }

  #set(rule: string, trigger: FlowTrigger): void {
    if (this.#triggers.has(rule) || this.#full !== undefined) return;
    if (this.#triggers.size >= this.#max) {
      this.#full = trigger;
      return;
    }
    this.#triggers.set(rule, trigger);
    this.#added.push([rule, trigger]);
  }

  /** What set `flow` off, or `undefined` while it is not. */
  trigger(flow: Flow): FlowTrigger | undefined {
    if (this.#full !== undefined) return this.#full;
    if (this.#triggers.size === 0) return undefined;
    const { after } = compiled(flow);
    if (after.unprobed) {
      const found = this.#triggers.get(triggerKey(flow, UNPROBED));
      if (found !== undefined) return found;
    }
    for (const { rule } of after.rules) {
      const found = this.#triggers.get(triggerKey(flow, rule));
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /**
   * The verdict once the flows set off have had their say: a flow that
   * denies or asks more than the policy decides the call; one that asks
   * what the policy asks too is named, so that no remembered approval
   * lets the call through. Otherwise `verdict` itself.
   */
  tighten(
    flows: readonly Flow[],
    call: FlowCall,
    verdict: Verdict,
  ): Verdict | FlowVerdict {
    if (this.#triggers.size === 0 && this.#full === undefined) return verdict;
    let found: { flow: Flow; trigger: FlowTrigger; said: Said } | undefined;
    for (const flow of flows) {
      const trigger = this.trigger(flow);
      if (trigger === undefined) continue;
      const said = flowSays(flow, call);
      if (
        said !== undefined &&
        (found === undefined ||
          SEVERITY[said.decision] > SEVERITY[found.said.decision])
      ) {
        found = { flow, trigger, said };
      }
    }
    if (found === undefined) return verdict;
    const { decision } = found.said;
    if (SEVERITY[decision] < SEVERITY[verdict.decision]) return verdict;
    if (decision === "deny" && verdict.decision === "deny") return verdict;
    return flowVerdict(verdict, call, found);
  }

  /** Whether the memory of set-off rules reached its bound. */
  get full(): boolean {
    return this.#full !== undefined;
  }
}

/**
 * What the session remembers a set-off rule by: its text, and for a flow
 * that watches one server, that server's name (the same rule set off on
 * another server does not count for it).
 */
function triggerKey(flow: Flow, rule: string): string {
  return flow.server === undefined ? rule : `${flow.server}\u0000${rule}`;
}

const SEVERITY: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };

/** What one flow says of a call: the first rule of its deny, else its ask. */
interface Said {
  decision: "deny" | "ask";
  /** The rule, or `unprobed`. */
  rule: string;
  /** The call's pattern it met; `undefined` for `unprobed`. */
  pattern: string | undefined;
}

function flowSays(flow: Flow, call: FlowCall): Said | undefined {
  const unknown = call.unknown || notCanonical(call.patterns);
  const lists = compiled(flow);
  for (const decision of ["deny", "ask"] as const) {
    const list = lists[decision];
    if (unknown && list.unprobed) {
      return { decision, rule: UNPROBED, pattern: undefined };
    }
    if (call.patterns.length === 0 || list.rules.length === 0) continue;
    const met = list.policy.evaluate(call.patterns).patterns.find((p) =>
      p.decision === "deny"
    );
    if (met !== undefined) {
      return { decision, rule: met.rule!, pattern: met.pattern };
    }
  }
  return undefined;
}

/** A pattern that is not canonical says nothing sure of what it touches. */
function notCanonical(patterns: readonly string[]): boolean {
  if (patterns.length === 0) return false;
  // A policy without rules still says which patterns it cannot read.
  return NO_RULES.evaluate(patterns).patterns.some((p) =>
    p.problem !== undefined
  );
}

const NO_RULES = new Policy({});

/** `read secrets/key with read_text_file`: what the session did. */
export function describeTrigger(trigger: FlowTrigger): string {
  const { pattern, tool } = trigger;
  if (pattern === undefined) {
    return `ran ${tool}, whose effects the gate cannot know`;
  }
  const colon = pattern.indexOf(":");
  const verb = pattern.slice(0, colon);
  const target = pattern.slice(colon + 1);
  const did = PAST[verb] ?? `used ${verb} on`;
  return `${did} ${target} with ${tool}`;
}

const PAST: Record<string, string> = {
  read: "read",
  write: "wrote",
  delete: "deleted",
  exec: "ran",
  net: "reached",
};

function flowVerdict(
  verdict: Verdict,
  call: FlowCall,
  found: { flow: Flow; trigger: FlowTrigger; said: Said },
): FlowVerdict {
  const { flow, trigger, said } = found;
  const { tool } = call;
  const why = `this session ${describeTrigger(trigger)}`;
  const what = said.pattern === undefined
    ? `a call of ${tool}, whose effects the gate cannot know,`
    : said.pattern;
  const by = `${flow.name} (${said.rule})`;
  return {
    decision: said.decision,
    patterns: verdict.patterns,
    rule: said.rule,
    flow: { name: flow.name, trigger },
    ...(verdict.unknown ? { unknown: true as const } : {}),
    denied:
      `The gate's policy refuses this call of ${tool}: ${what} denied by ${by}, since ${why}. Nothing was run.`,
    get question() {
      const base = verdict.decision === "ask" ? `\n${verdict.question}` : "";
      return `Allow the tool "${tool}" to run? ${what} is asked by ${by}, since ${why}.${base}`;
    },
    cannotAsk:
      `This call of ${tool} needs the user's approval, and this host cannot ask for it (it did not declare the elicitation capability): ${what} is asked by ${by}, since ${why}. Nothing was run.`,
    declined: verdict.declined,
  };
}
