// The error readEnv() throws, with one problem per variable.

/**
 * One problem {@linkcode EnvError} reports.
 *
 * @example Log problems as structured data
 * ```ts
 * import { env, EnvError, type EnvProblem, readEnv } from "@forge/toolkit/env";
 *
 * try {
 *   const spec = { port: env.port("PORT"), key: env.secret("API_KEY") };
 *   readEnv(spec, { source: { PORT: "http" } });
 * } catch (err) {
 *   if (!(err instanceof EnvError)) throw err;
 *   const problems: readonly EnvProblem[] = err.problems;
 *   console.error(JSON.stringify(problems.map(({ name, reason }) => ({ name, reason }))));
 *   // [{"name":"PORT","reason":"invalid"},{"name":"API_KEY","reason":"missing"}]
 * }
 * ```
 */
export interface EnvProblem {
  /** The variable's name. */
  name: string;
  /** Why it failed: unset or empty, wrong form, or not readable. */
  reason: "missing" | "invalid" | "denied";
  /** The form a valid value has. */
  expected: string;
  /** One line naming the variable, what was wrong and what was expected. */
  message: string;
}

/**
 * Thrown by {@linkcode readEnv} when the environment cannot give a valid
 * config: it lists every problem at once, one per line, so a user fixes them
 * all in one go instead of one per restart. Also thrown, with a message
 * naming the `--allow-env` flag to add, when reading is not permitted.
 *
 * @example Report and exit
 * ```ts
 * import { env, EnvError, readEnv } from "@forge/toolkit/env";
 *
 * try {
 *   readEnv({ port: env.port("PORT") }, { source: { PORT: "70000" } });
 * } catch (err) {
 *   if (!(err instanceof EnvError)) throw err;
 *   console.error(err.message);
 *   // Invalid environment: 1 problem
 *   //   PORT: expected a port number from 1 to 65535, got "70000"
 * }
 * ```
 */
export class EnvError extends Error {
  /** Every problem found, in declaration order. */
  readonly problems: readonly EnvProblem[];

  /**
   * Creates an environment error.
   *
   * @param message The full message, usually a header and one line per problem.
   * @param problems The problems found.
   * @param options Standard error options such as `cause`.
   */
  constructor(
    message: string,
    problems: readonly EnvProblem[] = [],
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "EnvError";
    this.problems = problems;
  }
}
