/**
 * Typed environment configuration: declare each variable once with
 * {@linkcode env}, read them all with {@linkcode readEnv}, and get either a
 * fully typed config object or one {@linkcode EnvError} that lists every
 * missing or invalid variable together with the form it expects.
 *
 * Rules that hold for every kind:
 * - A variable that is unset or set to the empty string is missing: its
 *   default applies, or it is reported as required.
 * - Defaults and options are checked when the variable is declared, so a bad
 *   default fails at start-up, not on the first deployment that lacks it.
 * - Secret values are read as a {@linkcode Secret}, which prints as
 *   `[redacted]`, and never appear in error messages.
 *
 * @example A server's configuration
 * ```ts
 * import { env, readEnv } from "@forge/toolkit/env";
 *
 * const config = readEnv({
 *   root: env.string("HELLO_ROOT", { default: "." }),
 *   port: env.port("PORT", { default: 8080 }),
 *   timeout: env.duration("TIMEOUT", { default: "5s" }),
 *   verbose: env.bool("VERBOSE", { default: false }),
 *   mode: env.enum("MODE", ["dev", "prod"], { default: "dev" }),
 *   token: env.secret("API_TOKEN"),
 * }, { source: { API_TOKEN: "s3cret" } });
 *
 * config.port; // 8080
 * config.mode; // "dev"
 * config.token.reveal(); // "s3cret"
 * ```
 *
 * @module
 */

export {
  type EnvConfig,
  type EnvOptions,
  type EnvReadResult,
  type EnvVar,
} from "./env_var.ts";
export { EnvError, type EnvProblem } from "./env_error.ts";
export { Secret } from "./secret.ts";
export {
  type EnvDurationOptions,
  type EnvListOptions,
  type EnvNumberOptions,
  type EnvSecretOptions,
  type EnvUrlOptions,
} from "./kind_options.ts";
export { env, type EnvKinds } from "./kinds.ts";
export { type EnvSource, readEnv, type ReadEnvOptions } from "./read_env.ts";
