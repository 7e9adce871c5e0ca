// One compiled rule, and matchPattern() for a single test.

import { type Compiled, compileRule } from "./_compile.ts";
import { matches, parsePattern } from "./_match.ts";

/**
 * One compiled rule. Compile once, test many patterns.
 *
 * @example Paths, hosts and commands
 * ```ts
 * import { Rule } from "@forge/toolkit/policy";
 *
 * new Rule("write:src/**").test("write:src/a/b.ts"); // true
 * new Rule("net:https://*.example.com").test("net:https://example.com"); // false
 * new Rule("exec:rm **").test("exec:rm -rf x"); // true
 * ```
 */
export class Rule {
  /** The rule as written. */
  readonly source: string;
  /** The rule's verb. */
  readonly verb: string;
  #compiled: Compiled;

  /**
   * Parses and compiles a rule.
   *
   * @param rule A rule such as `write:src/**`.
   * @throws {RuleSyntaxError} When the rule does not follow the grammar.
   * @throws {TypeError} When `rule` is not a string.
   */
  constructor(rule: string) {
    this.#compiled = compileRule(rule);
    this.source = rule;
    this.verb = this.#compiled.verb;
  }

  /**
   * Whether `pattern` matches this rule. A pattern that is not canonical
   * (bad grammar, an unescaped glob character, `..`) matches no rule. A
   * subtree (`read:notes/**`) matches when the rule matches every name in
   * it (`read:**` does, `read:notes/*` does not).
   *
   * @example
   * ```ts
   * import { Rule } from "@forge/toolkit/policy";
   *
   * new Rule("read:*.md").test("read:README.md"); // true
   * ```
   *
   * @param pattern A pattern a tool reported.
   * @returns `true` when the rule matches the whole pattern.
   */
  test(pattern: string): boolean {
    const parsed = parsePattern(pattern);
    return typeof parsed !== "string" && matches(this.#compiled, parsed);
  }
}

/**
 * Whether `pattern` matches `rule` (anchored, see the module docs for the
 * wildcards). To test many patterns, compile the rule once with
 * {@linkcode Rule} or use a {@linkcode Policy}.
 *
 * @example Segments and labels
 * ```ts
 * import { matchPattern } from "@forge/toolkit/policy";
 *
 * matchPattern("write:src/*.ts", "write:src/a.ts"); // true
 * matchPattern("write:src/*.ts", "write:src/a/b.ts"); // false
 * matchPattern("write:dir/**", "write:dir"); // true
 * ```
 *
 * @param rule A rule such as `write:src/**`.
 * @param pattern A pattern a tool reported.
 * @returns `true` when the rule matches the whole pattern.
 * @throws {RuleSyntaxError} When the rule does not follow the grammar.
 */
export function matchPattern(rule: string, pattern: string): boolean {
  return new Rule(rule).test(pattern);
}
