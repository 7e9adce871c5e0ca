// What a declared variable is: the contract between the kinds and readEnv(),
// and the one a custom kind implements.

/**
 * What an {@linkcode EnvVar} made of one raw value: a value, or a failure
 * that says whether the variable was missing or held text of the wrong form.
 *
 * @example Read a hex colour in a custom kind
 * ```ts
 * import type { EnvReadResult } from "@forge/toolkit/env";
 *
 * function readColour(raw: string | undefined): EnvReadResult<string> {
 *   if (raw === undefined) return { ok: false, missing: true };
 *   if (!/^#[0-9a-f]{6}$/i.test(raw)) return { ok: false, missing: false };
 *   return { ok: true, value: raw.toLowerCase() };
 * }
 * readColour("#FF8800"); // { ok: true, value: "#ff8800" }
 * ```
 */
export type EnvReadResult<T> =
  | { ok: true; value: T }
  | { ok: false; missing: boolean };

/**
 * One declared variable. The factories on {@linkcode env} make these; a
 * custom kind is any object of this shape.
 *
 * @example A custom kind: a comma-separated list of integers
 * ```ts
 * import { type EnvVar, readEnv } from "@forge/toolkit/env";
 *
 * const shards: EnvVar<number[]> = {
 *   name: "SHARDS",
 *   expected: "a comma-separated list of integers",
 *   secret: false,
 *   read(raw) {
 *     if (raw === undefined) return { ok: true, value: [] };
 *     const items = raw.split(",").map((item) => item.trim());
 *     if (!items.every((item) => /^\d+$/.test(item))) return { ok: false, missing: false };
 *     return { ok: true, value: items.map(Number) };
 *   },
 * };
 * const config = readEnv({ shards }, { source: { SHARDS: "1, 2" } });
 * config.shards; // [1, 2]
 * ```
 */
export interface EnvVar<T> {
  /** The variable's name, such as `PORT`. */
  readonly name: string;
  /** The form a valid value has, as messages print it: `a port number from 1 to 65535`. */
  readonly expected: string;
  /** Whether the value must never be echoed in messages. */
  readonly secret: boolean;
  /**
   * Turns the raw text into a value. `raw` is `undefined` when the variable
   * is unset or empty; the result is then the default, or a missing failure.
   */
  read(raw: string | undefined): EnvReadResult<T>;
}

/**
 * The config object {@linkcode readEnv} returns for a spec `S`.
 *
 * @example Name the config type for the code that uses it
 * ```ts
 * import { env, type EnvConfig, readEnv } from "@forge/toolkit/env";
 *
 * const SPEC = {
 *   root: env.string("NOTES_ROOT", { default: "." }),
 *   timeout: env.duration("TIMEOUT", { default: "5s" }),
 * };
 * type Config = EnvConfig<typeof SPEC>; // { readonly root: string; readonly timeout: number }
 *
 * function describe(config: Config): string {
 *   return `notes in ${config.root}, ${config.timeout} ms per call`;
 * }
 * describe(readEnv(SPEC, { source: {} })); // "notes in ., 5000 ms per call"
 * ```
 */
export type EnvConfig<S> = {
  readonly [K in keyof S]: S[K] extends EnvVar<infer T> ? T : never;
};

/**
 * Options shared by every kind: the default used when the variable is missing.
 *
 * @example A kind of your own that takes the same options
 * ```ts
 * import { env, type EnvOptions, type EnvVar } from "@forge/toolkit/env";
 *
 * const LEVELS = ["debug", "info", "warning", "error"] as const;
 * type Level = typeof LEVELS[number];
 * function logLevel(name: string, options: EnvOptions<Level> = {}): EnvVar<Level> {
 *   return env.enum(name, LEVELS, options);
 * }
 * const level = logLevel("LOG_LEVEL", { default: "info" });
 * ```
 */
export interface EnvOptions<T> {
  /**
   * The value used when the variable is unset or empty. Without one, the
   * variable is required.
   *
   * @default {undefined}
   */
  default?: T;
}
