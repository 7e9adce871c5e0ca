// The variable kinds: the env object and its type.

import type { EnvOptions, EnvVar } from "./env_var.ts";
import type {
  EnvDurationOptions,
  EnvListOptions,
  EnvNumberOptions,
  EnvSecretOptions,
  EnvUrlOptions,
} from "./kind_options.ts";
import type { Secret } from "./secret.ts";
import { checkVar, makeVar } from "./_declare.ts";
import { declareNumber, declarePort } from "./_number_kinds.ts";
import { declareDuration } from "./_duration_kind.ts";
import {
  declareBool,
  declareEnum,
  declareList,
  declareString,
  declareUrl,
} from "./_text_kinds.ts";
import { declareSecret } from "./_secret_kind.ts";

/**
 * The variable kinds, as the {@linkcode env} object offers them.
 *
 * @example Take the kinds you use from `env`
 * ```ts
 * import { env, type EnvKinds, readEnv } from "@forge/toolkit/env";
 *
 * const { port, bool }: EnvKinds = env;
 * const spec = { port: port("PORT", { default: 8080 }), debug: bool("DEBUG", { default: false }) };
 * const config = readEnv(spec, { source: { DEBUG: "yes" } });
 * config.debug; // true
 * ```
 */
export interface EnvKinds {
  /**
   * Any non-empty text, taken as is (not trimmed).
   *
   * @example
   * ```ts
   * import { env } from "@forge/toolkit/env";
   *
   * const root = env.string("HELLO_ROOT", { default: "." });
   * ```
   */
  string(name: string, options?: EnvOptions<string>): EnvVar<string>;
  /**
   * A decimal integer such as `42` or `-3`, within `min` and `max`.
   *
   * @example
   * ```ts
   * import { env } from "@forge/toolkit/env";
   *
   * const workers = env.int("WORKERS", { default: 4, min: 1, max: 64 });
   * ```
   */
  int(name: string, options?: EnvNumberOptions): EnvVar<number>;
  /**
   * A finite decimal number such as `0.5` or `1e3`, within `min` and `max`.
   *
   * @example
   * ```ts
   * import { env } from "@forge/toolkit/env";
   *
   * const ratio = env.number("SAMPLE_RATIO", { default: 0.1, min: 0, max: 1 });
   * ```
   */
  number(name: string, options?: EnvNumberOptions): EnvVar<number>;
  /**
   * `true`/`false`, `1`/`0`, `yes`/`no` or `on`/`off`, in any case.
   *
   * @example
   * ```ts
   * import { env } from "@forge/toolkit/env";
   *
   * const verbose = env.bool("VERBOSE", { default: false });
   * ```
   */
  bool(name: string, options?: EnvOptions<boolean>): EnvVar<boolean>;
  /**
   * An absolute URL, read as a new `URL` object on every read.
   *
   * @example
   * ```ts
   * import { env } from "@forge/toolkit/env";
   *
   * const upstream = env.url("UPSTREAM", {
   *   default: "http://127.0.0.1:9000",
   *   protocols: ["http", "https"],
   * });
   * ```
   */
  url(name: string, options?: EnvUrlOptions): EnvVar<URL>;
  /**
   * A TCP/UDP port number from 1 to 65535. (For port 0, meaning "any free
   * port", use `env.int(name, { min: 0, max: 65535 })`.)
   *
   * @example
   * ```ts
   * import { env } from "@forge/toolkit/env";
   *
   * const port = env.port("PORT", { default: 8080 });
   * ```
   */
  port(name: string, options?: EnvOptions<number>): EnvVar<number>;
  /**
   * A duration, read as whole milliseconds: one or more `<number><unit>`
   * parts with units `d`, `h`, `m`, `s`, `ms` from largest to smallest, each
   * at most once (`500ms`, `1.5s`, `1h30m`). A bare number is refused,
   * because `30` could mean seconds or milliseconds; only `0` may stand alone.
   *
   * @example
   * ```ts
   * import { env } from "@forge/toolkit/env";
   *
   * const timeout = env.duration("TIMEOUT", { default: "5s", max: "10m" });
   * ```
   */
  duration(name: string, options?: EnvDurationOptions): EnvVar<number>;
  /**
   * A list split on `separator` (default `,`), each item trimmed, empty
   * items dropped.
   *
   * @example
   * ```ts
   * import { env } from "@forge/toolkit/env";
   *
   * const hosts = env.list("HOSTS", { default: [] });
   * ```
   */
  list(name: string, options?: EnvListOptions): EnvVar<string[]>;
  /**
   * One of `values`, matched exactly after trimming; the result type is the
   * union of the values.
   *
   * @example
   * ```ts
   * import { env } from "@forge/toolkit/env";
   *
   * const mode = env.enum("MODE", ["dev", "prod"], { default: "dev" });
   * ```
   */
  enum<const V extends readonly string[]>(
    name: string,
    values: V,
    options?: EnvOptions<V[number]>,
  ): EnvVar<V[number]>;
  /**
   * A secret string, read as a {@linkcode Secret} and never echoed.
   *
   * @example
   * ```ts
   * import { env } from "@forge/toolkit/env";
   *
   * const token = env.secret("API_TOKEN", { minLength: 16 });
   * ```
   */
  secret(name: string, options?: EnvSecretOptions): EnvVar<Secret>;
  /**
   * Makes a variable optional: when it is unset or empty the value is
   * `undefined` instead of a "required" problem.
   *
   * @example
   * ```ts
   * import { env } from "@forge/toolkit/env";
   *
   * const logFile = env.optional(env.string("LOG_FILE")); // EnvVar<string | undefined>
   * ```
   */
  optional<T>(variable: EnvVar<T>): EnvVar<T | undefined>;
}

function declareOptional<T>(variable: EnvVar<T>): EnvVar<T | undefined> {
  checkVar("optional()", variable);
  return makeVar<T | undefined>(
    variable.name,
    variable.expected,
    variable.secret,
    (raw) =>
      raw === undefined ? { ok: true, value: undefined } : variable.read(raw),
  );
}

/**
 * The variable kinds. Each factory takes the variable's name and options,
 * checks the options and default at once, and returns an {@linkcode EnvVar}
 * for {@linkcode readEnv}.
 *
 * @example Declare a spec
 * ```ts
 * import { env } from "@forge/toolkit/env";
 *
 * const spec = {
 *   port: env.port("PORT", { default: 8080 }),
 *   hosts: env.list("HOSTS", { default: [] }),
 *   upstream: env.url("UPSTREAM", { default: "http://127.0.0.1:9000" }),
 *   workers: env.int("WORKERS", { default: 4, min: 1, max: 64 }),
 * };
 * ```
 */
export const env: EnvKinds = Object.freeze({
  string: declareString,
  int: (name: string, options?: EnvNumberOptions) =>
    declareNumber(name, options, true),
  number: (name: string, options?: EnvNumberOptions) =>
    declareNumber(name, options, false),
  bool: declareBool,
  url: declareUrl,
  port: declarePort,
  duration: declareDuration,
  list: declareList,
  enum: declareEnum,
  secret: declareSecret,
  optional: declareOptional,
});
