// What a policy decides. One name for one thing: a Decision is the verdict
// string; an Evaluation is what Policy.evaluate() returns for a call, with a
// PatternEvaluation (the Decision and the rule behind it) per pattern.

/**
 * What a host does with a call: run it, ask the user, or refuse it.
 *
 * @example
 * ```ts
 * import { type Decision, Policy } from "@forge/toolkit/policy";
 *
 * const decision: Decision = new Policy({}).evaluate(["read:a"]).decision; // "ask"
 * ```
 */
export type Decision = "allow" | "ask" | "deny";

/**
 * How one pattern of a call was decided: the {@linkcode Decision} and the
 * rule behind it.
 *
 * @example
 * ```ts
 * import { Policy, type PatternEvaluation } from "@forge/toolkit/policy";
 *
 * const [first]: readonly PatternEvaluation[] = new Policy({ deny: ["write:/etc/**"] }).evaluate(["write:/etc/x"]).patterns;
 * // first → { pattern: "write:/etc/x", decision: "deny", rule: "write:/etc/**" }
 * ```
 */
export interface PatternEvaluation {
  /** The pattern as the tool reported it. */
  readonly pattern: string;
  /** `deny`, `ask` or `allow`; `ask` when no rule matched. */
  readonly decision: Decision;
  /** The rule that decided, or `undefined` when none matched. */
  readonly rule?: string;
  /** Why the pattern could not be matched, when it is not canonical. */
  readonly problem?: string;
}

/**
 * What `Policy.evaluate()` returns for a call: the call's
 * {@linkcode Decision}, and how each of its patterns was decided.
 *
 * @example
 * ```ts
 * import { type Evaluation, Policy } from "@forge/toolkit/policy";
 *
 * const result: Evaluation = new Policy({ allow: ["write:**"] }).evaluate(["delete:a", "write:b"]);
 * // result.decision → "ask": delete:a matched no rule
 * ```
 */
export interface Evaluation {
  /** `deny` if any pattern is denied, else `ask` if any needs asking, else `allow`. */
  readonly decision: Decision;
  /** One entry per pattern, in the order given. */
  readonly patterns: readonly PatternEvaluation[];
}
