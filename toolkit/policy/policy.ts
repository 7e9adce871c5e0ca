// The Policy: allow, ask and deny rules that decide a call.

import type { Decision, Evaluation, PatternEvaluation } from "./decision.ts";
import { type Compiled, compileRule } from "./_compile.ts";
import { matches, overlaps, parsePattern } from "./_match.ts";
import { typeName } from "../_util/json_type.ts";

/**
 * The rule lists of a {@linkcode Policy}.
 *
 * @example
 * ```ts
 * import { Policy, type PolicyRules } from "@forge/toolkit/policy";
 *
 * const rules: PolicyRules = JSON.parse('{"allow": ["read:**"], "deny": ["exec:rm **"]}');
 * const policy = new Policy(rules);
 * ```
 */
export interface PolicyRules {
  /** Rules whose matches may run without asking. */
  allow?: readonly string[];
  /** Rules whose matches need the user's approval. */
  ask?: readonly string[];
  /** Rules whose matches are refused. */
  deny?: readonly string[];
}

/**
 * Allow, ask and deny rules, parsed when the policy is created, that decide
 * each call from its patterns: deny beats ask beats allow, a call is allowed
 * only when every one of its patterns is, and a pattern no rule matches (or
 * one that is not canonical) needs asking. A call with no patterns touches
 * nothing and is allowed.
 *
 * @example Deny wins over allow
 * ```ts
 * import { Policy } from "@forge/toolkit/policy";
 *
 * const policy = new Policy({ allow: ["exec:**"], deny: ["exec:rm **"] });
 * const result = policy.evaluate(["exec:rm -rf x"]);
 * // result.decision → "deny"; result.patterns[0].rule → "exec:rm **"
 * ```
 */
export class Policy {
  #byVerb = new Map<string, Record<Decision, CompiledEntry[]>>();

  /**
   * Parses every rule.
   *
   * @param rules The allow, ask and deny lists; each may be omitted.
   * @throws {RuleSyntaxError} Naming the list, index and rule that is bad.
   * @throws {TypeError} When `rules` or a list has the wrong shape.
   */
  constructor(rules: PolicyRules) {
    if (rules === null || typeof rules !== "object" || Array.isArray(rules)) {
      throw new TypeError(
        `Cannot load policy: expected an object with allow, ask and deny lists, got ${
          typeName(rules)
        }`,
      );
    }
    for (const key of Object.keys(rules)) {
      if (!(LISTS as readonly string[]).includes(key)) {
        throw new TypeError(
          `Cannot load policy: unknown list ${
            JSON.stringify(key)
          }: expected allow, ask or deny`,
        );
      }
    }
    for (const list of LISTS) {
      const entries: unknown = rules[list];
      if (entries === undefined) continue;
      if (!Array.isArray(entries)) {
        throw new TypeError(
          `Cannot load policy: "${list}" must be an array of rule strings, got ${
            typeName(entries)
          }`,
        );
      }
      entries.forEach((rule: unknown, index) => {
        if (typeof rule !== "string") {
          throw new TypeError(
            `Cannot load policy: ${list}[${index}] must be a rule string, got ${
              typeName(rule)
            }`,
          );
        }
        const compiled = compileRule(rule, { list, index });
        let lists = this.#byVerb.get(compiled.verb);
        if (lists === undefined) {
          lists = { allow: [], ask: [], deny: [] };
          this.#byVerb.set(compiled.verb, lists);
        }
        lists[list].push({ rule, compiled });
      });
    }
  }

  /**
   * Decides a call from all of its patterns (the probe's `forge.patterns`
   * and `forge.always` together).
   *
   * @example
   * ```ts
   * import { Policy } from "@forge/toolkit/policy";
   *
   * const policy = new Policy({ allow: ["write:**"] });
   * policy.evaluate(["delete:a.txt", "write:b.txt"]).decision; // "ask"
   * ```
   *
   * @param patterns The patterns of one call.
   * @returns The call's decision and the decision for each pattern.
   * @throws {TypeError} When `patterns` is not an array.
   */
  evaluate(patterns: readonly string[]): Evaluation {
    if (!Array.isArray(patterns)) {
      throw new TypeError(
        `Cannot evaluate policy: expected an array of pattern strings, got ${
          typeName(patterns)
        }`,
      );
    }
    let decision: Decision = "allow";
    const each = patterns.map((pattern: unknown) => {
      const result = this.#decide(pattern);
      if (SEVERITY[result.decision] > SEVERITY[decision]) {
        decision = result.decision;
      }
      return result;
    });
    return { decision, patterns: each };
  }

  #decide(pattern: unknown): PatternEvaluation {
    if (typeof pattern !== "string") {
      return {
        pattern: String(pattern),
        decision: "ask",
        problem: `expected a pattern string, got ${typeName(pattern)}`,
      };
    }
    const parsed = parsePattern(pattern);
    if (typeof parsed === "string") {
      return { pattern, decision: "ask", problem: parsed };
    }
    const lists = this.#byVerb.get(parsed.verb);
    if (lists !== undefined) {
      for (const list of ORDER) {
        for (const entry of lists[list]) {
          // A subtree (read:notes/**) is denied or asked when a rule meets
          // any name below it, and allowed only when one covers them all.
          const hit = list === "allow"
            ? matches(entry.compiled, parsed)
            : overlaps(entry.compiled, parsed);
          if (hit) {
            return { pattern, decision: list, rule: entry.rule };
          }
        }
      }
    }
    return { pattern, decision: "ask" };
  }
}

const LISTS: readonly Decision[] = ["allow", "ask", "deny"];
const ORDER: readonly Decision[] = ["deny", "ask", "allow"];
const SEVERITY: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };

interface CompiledEntry {
  rule: string;
  compiled: Compiled;
}
