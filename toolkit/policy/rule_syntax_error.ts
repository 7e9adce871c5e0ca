// The error a bad rule throws when it is loaded.

import type { Decision } from "./decision.ts";

/**
 * Where a rule came from, for {@linkcode RuleSyntaxError}.
 *
 * @example
 * ```ts
 * import { RuleSyntaxError } from "@forge/toolkit/policy";
 *
 * const error = new RuleSyntaxError("empty target", "read:", { column: 6, list: "allow", index: 0 });
 * ```
 */
export interface RuleSyntaxErrorOptions {
  /**
   * The 1-based column in the rule where the problem is.
   *
   * @default {1}
   */
  column?: number;
  /**
   * The policy list that holds the rule.
   *
   * @default {undefined}
   */
  list?: Decision;
  /**
   * The rule's 0-based index in that list.
   *
   * @default {undefined}
   */
  index?: number;
}

/**
 * A rule that does not follow the grammar, thrown when a {@linkcode Rule} or
 * {@linkcode Policy} is created. A rule is one line, so {@linkcode line} is
 * always 1 and {@linkcode column} points into the rule.
 *
 * @example Report a bad rule in a host's settings
 * ```ts
 * import { Policy, RuleSyntaxError } from "@forge/toolkit/policy";
 *
 * try {
 *   new Policy({ allow: ["WRITE:a.txt"] });
 * } catch (error) {
 *   if (error instanceof RuleSyntaxError) {
 *     console.error(error.list, error.index, error.column, error.message);
 *   }
 * }
 * ```
 */
export class RuleSyntaxError extends SyntaxError {
  /** The rule as written. */
  readonly rule: string;
  /** What is wrong with it and what was expected. */
  readonly problem: string;
  /** Always 1: rules hold no line breaks. */
  readonly line: number;
  /** The 1-based column of the problem. */
  readonly column: number;
  /** The policy list that holds the rule, if it came from a policy. */
  readonly list: Decision | undefined;
  /** The rule's 0-based index in that list, if it came from a policy. */
  readonly index: number | undefined;

  /**
   * Creates the error.
   *
   * @param problem What is wrong and what was expected.
   * @param rule The rule as written.
   * @param options Column and where the rule came from.
   */
  constructor(
    problem: string,
    rule: string,
    options: RuleSyntaxErrorOptions = {},
  ) {
    const column = options.column ?? 1;
    const where = options.list === undefined
      ? ""
      : `${options.list}[${options.index}] `;
    super(
      `Cannot load rule ${where}${
        JSON.stringify(rule)
      } at column ${column}: ${problem}`,
    );
    this.name = "RuleSyntaxError";
    this.rule = rule;
    this.problem = problem;
    this.line = 1;
    this.column = column;
    this.list = options.list;
    this.index = options.index;
  }
}
