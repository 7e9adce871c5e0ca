/**
 * What a failed decode or reader reports: one {@linkcode ArgumentProblem}
 * per argument, {@linkcode formatProblems} to render them and
 * {@linkcode ArgumentError}, the domain error that carries them.
 *
 * ```text
 * Invalid arguments for tool "greet":
 * name: expected string, got number
 * mode: expected one of "a", "b", got "c"
 * nme: unknown argument; did you mean "name"?
 * ```
 *
 * @module
 */

import { ToolError } from "../result/result.ts";

/**
 * One problem with a tool's arguments.
 *
 * @example Collect every problem before answering
 * ```ts
 * import { ArgumentError, type ArgumentProblem, type RawArguments } from "@forge/toolkit/args";
 *
 * function checkRange(args: RawArguments): void {
 *   const problems: ArgumentProblem[] = [];
 *   for (const name of ["from", "to"]) {
 *     const message = `expected number, got ${typeof args[name]}`;
 *     if (typeof args[name] !== "number") problems.push({ path: name, message });
 *   }
 *   if (problems.length > 0) throw new ArgumentError(problems, { tool: "range" });
 * }
 * ```
 */
export interface ArgumentProblem {
  /** Where: `name`, `items[2].id`, or `arguments` for the whole object. */
  path: string;
  /** What was expected and what came: `expected string, got number`. */
  message: string;
}

/**
 * A domain error for invalid arguments. It is a {@linkcode ToolError}, so a
 * handler that throws it (or lets an accessor throw it) answers `isError`
 * with one line per problem.
 *
 * @example
 * ```ts
 * import { ArgumentError } from "@forge/toolkit/args";
 *
 * function checkLimit(limit: number): void {
 *   if (!Number.isInteger(limit)) {
 *     throw new ArgumentError([{ path: "limit", message: `expected integer, got ${limit}` }]);
 *   }
 * }
 * ```
 */
export class ArgumentError extends ToolError {
  /** Every problem found, in order. */
  readonly problems: readonly ArgumentProblem[];

  /**
   * Creates the error; its message lists the problems.
   *
   * @param problems What was wrong, one entry per argument.
   * @param options `tool` names the tool in the first line.
   */
  constructor(
    problems: readonly ArgumentProblem[],
    options: ArgumentErrorOptions = {},
  ) {
    super(formatProblems(problems, options));
    this.name = "ArgumentError";
    this.problems = problems;
  }
}

/**
 * Options for {@linkcode ArgumentError} and {@linkcode formatProblems}.
 *
 * @example Name the tool in the heading
 * ```ts
 * import { type ArgumentErrorOptions, formatProblems } from "@forge/toolkit/args";
 *
 * const options: ArgumentErrorOptions = { tool: "search" };
 * formatProblems([{ path: "query", message: "required" }], options);
 * // 'Invalid arguments for tool "search":\nquery: required'
 * ```
 */
export interface ArgumentErrorOptions {
  /**
   * The tool whose arguments were wrong, named in the heading.
   *
   * @default {undefined}
   */
  tool?: string;
}

/**
 * Renders problems as the text of an `isError` result: a heading, then one
 * `path: message` line per problem.
 *
 * @example
 * ```ts
 * import { formatProblems } from "@forge/toolkit/args";
 *
 * formatProblems([{ path: "name", message: "required" }], { tool: "greet" });
 * // 'Invalid arguments for tool "greet":\nname: required'
 * ```
 */
export function formatProblems(
  problems: readonly ArgumentProblem[],
  options: ArgumentErrorOptions = {},
): string {
  const heading = options.tool === undefined
    ? "Invalid arguments:"
    : `Invalid arguments for tool ${JSON.stringify(options.tool)}:`;
  return [heading, ...problems.map((p) => `${p.path}: ${p.message}`)].join(
    "\n",
  );
}
