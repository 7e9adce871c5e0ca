// The options each kind takes beyond a default.

import type { EnvOptions } from "./env_var.ts";

/**
 * Options for {@linkcode EnvKinds.int} and {@linkcode EnvKinds.number}.
 *
 * @example Bound a pool size
 * ```ts
 * import { env, type EnvNumberOptions, readEnv } from "@forge/toolkit/env";
 *
 * const POOL: EnvNumberOptions = { default: 10, min: 1, max: 100 };
 * const config = readEnv({ pool: env.int("DB_POOL", POOL) }, { source: { DB_POOL: "25" } });
 * config.pool; // 25
 * // with DB_POOL=500: "DB_POOL: expected an integer from 1 to 100, got "500""
 * ```
 */
export interface EnvNumberOptions extends EnvOptions<number> {
  /**
   * The smallest accepted value, inclusive.
   *
   * @default {-Infinity}
   */
  min?: number;
  /**
   * The largest accepted value, inclusive.
   *
   * @default {Infinity}
   */
  max?: number;
}

/**
 * Options for {@linkcode EnvKinds.duration}. Durations may be given as text
 * (`"5s"`) or as milliseconds.
 *
 * @example A request timeout between one second and five minutes
 * ```ts
 * import { env, type EnvDurationOptions, readEnv } from "@forge/toolkit/env";
 *
 * const options: EnvDurationOptions = { default: "30s", min: "1s", max: "5m" };
 * const source = { TIMEOUT: "1m30s" };
 * const config = readEnv({ timeout: env.duration("TIMEOUT", options) }, { source });
 * config.timeout; // 90000
 * ```
 */
export interface EnvDurationOptions extends EnvOptions<number | string> {
  /**
   * The shortest accepted duration, inclusive.
   *
   * @default {0}
   */
  min?: number | string;
  /**
   * The longest accepted duration, inclusive.
   *
   * @default {Number.MAX_SAFE_INTEGER}
   */
  max?: number | string;
}

/**
 * Options for {@linkcode EnvKinds.url}.
 *
 * @example Accept only an HTTPS webhook
 * ```ts
 * import { env, type EnvUrlOptions, readEnv } from "@forge/toolkit/env";
 *
 * const options: EnvUrlOptions = { protocols: ["https"] };
 * const source = { WEBHOOK_URL: "https://hooks.example.com/abc" };
 * const config = readEnv({ webhook: env.url("WEBHOOK_URL", options) }, { source });
 * config.webhook.hostname; // "hooks.example.com"; an http:// URL would be refused
 * ```
 */
export interface EnvUrlOptions extends EnvOptions<string | URL> {
  /**
   * The accepted schemes, such as `["http", "https"]`; a trailing `:` is
   * optional.
   *
   * @default {undefined} (any scheme)
   */
  protocols?: readonly string[];
}

/**
 * Options for {@linkcode EnvKinds.list}.
 *
 * @example A colon-separated search path
 * ```ts
 * import { env, type EnvListOptions, readEnv } from "@forge/toolkit/env";
 *
 * const options: EnvListOptions = { separator: ":", default: ["./notes"] };
 * const source = { NOTES_PATH: "/srv/notes : /home/ada/notes" };
 * const config = readEnv({ dirs: env.list("NOTES_PATH", options) }, { source });
 * config.dirs; // ["/srv/notes", "/home/ada/notes"]
 * ```
 */
export interface EnvListOptions extends EnvOptions<readonly string[]> {
  /**
   * What separates the items.
   *
   * @default {","}
   */
  separator?: string;
}

/**
 * Options for {@linkcode EnvKinds.secret}.
 *
 * @example Catch a truncated API key at start-up
 * ```ts
 * import { env, type EnvSecretOptions, readEnv } from "@forge/toolkit/env";
 *
 * const options: EnvSecretOptions = { minLength: 32 };
 * const source = { API_KEY: "k".repeat(40) };
 * const config = readEnv({ apiKey: env.secret("API_KEY", options) }, { source });
 * const headers = { authorization: `Bearer ${config.apiKey.reveal()}` };
 * ```
 */
export interface EnvSecretOptions extends EnvOptions<string> {
  /**
   * The fewest characters a valid secret has, to catch truncated tokens.
   *
   * @default {1}
   */
  minLength?: number;
}
