// The variable kinds, their parsers, and readEnv().

/**
 * Where variables are read from: a plain record or a lookup function.
 *
 * @example Read every variable under a prefix
 * ```ts
 * import { env, type EnvSource, readEnv } from "@forge/toolkit/env";
 *
 * const vars: Record<string, string> = { NOTES_PORT: "9000" }; // stands in for Deno.env
 * const prefixed: EnvSource = (name) => vars[`NOTES_${name}`];
 * const config = readEnv({ port: env.port("PORT") }, { source: prefixed });
 * config.port; // 9000
 * ```
 */
export type EnvSource =
  | Readonly<Record<string, string | undefined>>
  | ((name: string) => string | undefined);

/**
 * Options for {@linkcode readEnv}.
 *
 * @example Test a config without touching the process environment
 * ```ts
 * import { env, readEnv, type ReadEnvOptions } from "@forge/toolkit/env";
 * import assert from "node:assert/strict";
 *
 * const spec = { workers: env.int("WORKERS", { default: 4 }) };
 * const options: ReadEnvOptions = { source: { WORKERS: "8" } };
 * assert.equal(readEnv(spec, options).workers, 8);
 * ```
 */
export interface ReadEnvOptions {
  /**
   * Where to read variables from. Pass a record or a function in tests so
   * they do not depend on, or change, the process environment.
   *
   * @default {Deno.env.get}
   */
  source?: EnvSource;
}

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

const REDACTED = "[redacted]";
const ENCODER = new TextEncoder();

/**
 * A secret value. It prints as `[redacted]` through `String()`, template
 * literals, `JSON.stringify`, `console.log` and `Deno.inspect`, so logging a
 * whole config object cannot leak it; {@linkcode Secret.prototype.reveal}
 * is the one, greppable, way to get the text.
 *
 * @example Use a token without leaking it
 * ```ts
 * import { Secret } from "@forge/toolkit/env";
 *
 * const token = new Secret("s3cret");
 * `${token}`; // "[redacted]"
 * JSON.stringify({ token }); // '{"token":"[redacted]"}'
 * token.reveal(); // "s3cret"
 * token.equals("s3cret"); // true
 * ```
 */
export class Secret {
  #value: string;

  /**
   * Wraps a secret value.
   *
   * @param value The secret text.
   */
  constructor(value: string) {
    if (typeof value !== "string") {
      throw new TypeError(
        `Cannot create a secret: expected a string, got ${typeof value}`,
      );
    }
    this.#value = value;
  }

  /**
   * The secret text. Call this only where the value is used, never to log it.
   *
   * @example
   * ```ts
   * import { Secret } from "@forge/toolkit/env";
   *
   * const token = new Secret("s3cret");
   * const headers = { authorization: `Bearer ${token.reveal()}` };
   * ```
   */
  reveal(): string {
    return this.#value;
  }

  /**
   * Compares `candidate` with the secret in time that does not depend on
   * where they differ, for checking bearer tokens and similar. The length of
   * the secret is not hidden.
   *
   * @example Check a bearer token
   * ```ts
   * import { Secret } from "@forge/toolkit/env";
   *
   * const token = new Secret("s3cret");
   * token.equals("guess"); // false
   * ```
   */
  equals(candidate: string | Secret): boolean {
    const a = ENCODER.encode(this.#value);
    const b = ENCODER.encode(
      candidate instanceof Secret ? candidate.#value : String(candidate),
    );
    let diff = a.length ^ b.length;
    for (let i = 0; i < b.length; i++) {
      diff |= b[i] ^ (a.length === 0 ? 0 : a[i % a.length]);
    }
    return diff === 0;
  }

  /**
   * Always `[redacted]`.
   *
   * @example
   * ```ts
   * import { Secret } from "@forge/toolkit/env";
   *
   * String(new Secret("s3cret")); // "[redacted]"
   * ```
   */
  toString(): string {
    return REDACTED;
  }

  /**
   * Always `[redacted]`, so `JSON.stringify` never writes the value.
   *
   * @example
   * ```ts
   * import { Secret } from "@forge/toolkit/env";
   *
   * JSON.stringify(new Secret("s3cret")); // '"[redacted]"'
   * ```
   */
  toJSON(): string {
    return REDACTED;
  }

  /**
   * What `console.log` and `Deno.inspect` print: `[redacted]`.
   *
   * @example
   * ```ts
   * import { Secret } from "@forge/toolkit/env";
   *
   * Deno.inspect({ token: new Secret("s3cret") }); // "{ token: [redacted] }"
   * ```
   */
  [Symbol.for("Deno.customInspect")](): string {
    return REDACTED;
  }

  /**
   * What Node's `util.inspect` prints: `[redacted]`.
   *
   * @example
   * ```ts
   * import { inspect } from "node:util";
   * import { Secret } from "@forge/toolkit/env";
   *
   * inspect({ token: new Secret("s3cret") }); // "{ token: [redacted] }"
   * ```
   */
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return REDACTED;
  }
}

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

const NAME_RE = /^[^=\0]+$/;
const INT_RE = /^[+-]?\d+$/;
const NUMBER_RE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const TRUE_WORDS = new Set(["true", "1", "yes", "on"]);
const FALSE_WORDS = new Set(["false", "0", "no", "off"]);
const BOOL_EXPECTED = "a boolean (true/false, 1/0, yes/no, on/off)";
const MAX_PORT = 65535;
const DURATION_PART_RE = /(\d+(?:\.\d+)?|\.\d+)(ms|d|h|m|s)/y;
// Largest first: a duration lists its units in this order, each at most once.
const DURATION_UNITS = ["d", "h", "m", "s", "ms"] as const;
const UNIT_MS: Readonly<Record<string, number>> = {
  d: 86_400_000,
  h: 3_600_000,
  m: 60_000,
  s: 1_000,
  ms: 1,
};
const DURATION_EXAMPLES = "such as 500ms, 5s, 2m, 1h30m";
const MAX_ECHO = 60;

function checkName(name: unknown): string {
  if (typeof name !== "string" || !NAME_RE.test(name)) {
    throw new TypeError(
      `Invalid environment variable name: expected a non-empty string without "=" or NUL, got ${
        describeValue(name)
      }`,
    );
  }
  return name;
}

function describeValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") {
    return String(value);
  }
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}

function checkOptions(name: string, options: unknown): void {
  if (
    options !== undefined && (options === null || typeof options !== "object")
  ) {
    throw new TypeError(
      `Invalid options for ${name}: expected an object, got ${
        describeValue(options)
      }`,
    );
  }
}

function orDefault<T>(
  raw: string | undefined,
  fallback: { value: T } | undefined,
  parse: (text: string) => T | undefined,
): EnvReadResult<T> {
  if (raw === undefined) {
    return fallback === undefined
      ? { ok: false, missing: true }
      : { ok: true, value: fallback.value };
  }
  const value = parse(raw);
  return value === undefined
    ? { ok: false, missing: false }
    : { ok: true, value };
}

function makeVar<T>(
  name: string,
  expected: string,
  secret: boolean,
  read: (raw: string | undefined) => EnvReadResult<T>,
): EnvVar<T> {
  return Object.freeze({ name, expected, secret, read });
}

function rangeText(min: number, max: number): string {
  if (min > -Infinity && max < Infinity) return ` from ${min} to ${max}`;
  if (min > -Infinity) return ` >= ${min}`;
  if (max < Infinity) return ` <= ${max}`;
  return "";
}

function checkBound(
  name: string,
  key: string,
  value: unknown,
): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || Number.isNaN(value)) {
    throw new TypeError(
      `Invalid options for ${name}: ${key} must be a number, got ${
        describeValue(value)
      }`,
    );
  }
  return value;
}

function declareNumber(
  name: string,
  options: EnvNumberOptions | undefined,
  integer: boolean,
): EnvVar<number> {
  checkName(name);
  checkOptions(name, options);
  const min = checkBound(name, "min", options?.min) ?? -Infinity;
  const max = checkBound(name, "max", options?.max) ?? Infinity;
  if (min > max) {
    throw new RangeError(
      `Invalid options for ${name}: min must not exceed max, got min ${min} and max ${max}`,
    );
  }
  const expected = (integer ? "an integer" : "a number") +
    rangeText(min, max);
  const accept = (n: number): boolean =>
    (integer ? Number.isSafeInteger(n) : Number.isFinite(n)) && n >= min &&
    n <= max;
  const fallback = checkDefault(name, expected, options, (value) => {
    if (typeof value !== "number") return "type";
    return accept(value) ? value : "range";
  });
  const pattern = integer ? INT_RE : NUMBER_RE;
  return makeVar(
    name,
    expected,
    false,
    (raw) =>
      orDefault(raw, fallback, (text) => {
        const trimmed = text.trim();
        if (!pattern.test(trimmed)) return undefined;
        // `+ 0` turns -0 into 0, which is what a user who wrote "-0" means.
        const n = Number(trimmed) + 0;
        return accept(n) ? n : undefined;
      }),
  );
}

/**
 * Validates a declared default with `check`, which returns the value to use,
 * `"type"` for a value of the wrong type or `"range"` for one out of range.
 */
function checkDefault<T>(
  name: string,
  expected: string,
  options: EnvOptions<unknown> | undefined,
  check: (value: unknown) => T | "type" | "range",
): { value: T } | undefined {
  if (options === undefined || options.default === undefined) return undefined;
  const result = check(options.default);
  if (result === "type" || result === "range") {
    const Ctor = result === "type" ? TypeError : RangeError;
    throw new Ctor(
      `Invalid default for ${name}: expected ${expected}, got ${
        describeValue(options.default)
      }`,
    );
  }
  return { value: result };
}

function declareString(
  name: string,
  options?: EnvOptions<string>,
): EnvVar<string> {
  checkName(name);
  checkOptions(name, options);
  const expected = "a non-empty string";
  const fallback = checkDefault(
    name,
    "a string",
    options,
    (value) => typeof value === "string" ? value : "type",
  );
  return makeVar(
    name,
    expected,
    false,
    (raw) => orDefault(raw, fallback, (text) => text),
  );
}

function declareBool(
  name: string,
  options?: EnvOptions<boolean>,
): EnvVar<boolean> {
  checkName(name);
  checkOptions(name, options);
  const fallback = checkDefault(
    name,
    "a boolean",
    options,
    (value) => typeof value === "boolean" ? value : "type",
  );
  return makeVar(
    name,
    BOOL_EXPECTED,
    false,
    (raw) =>
      orDefault(raw, fallback, (text) => {
        const word = text.trim().toLowerCase();
        if (TRUE_WORDS.has(word)) return true;
        if (FALSE_WORDS.has(word)) return false;
        return undefined;
      }),
  );
}

function declareUrl(name: string, options?: EnvUrlOptions): EnvVar<URL> {
  checkName(name);
  checkOptions(name, options);
  let protocols: string[] | undefined;
  if (options?.protocols !== undefined) {
    const list = options.protocols;
    if (
      !Array.isArray(list) || list.length === 0 ||
      !list.every((p) =>
        typeof p === "string" && /^[a-z][a-z0-9+.-]*:?$/i.test(p)
      )
    ) {
      throw new TypeError(
        `Invalid options for ${name}: protocols must be a non-empty array of schemes such as "https", got ${
          describeValue(list)
        }`,
      );
    }
    protocols = list.map((p) => p.toLowerCase().replace(/:$/, "") + ":");
  }
  const expected = protocols === undefined
    ? "an absolute URL"
    : `an absolute URL with scheme ${
      protocols.map((p) => p.slice(0, -1)).join(" or ")
    }`;
  const parse = (text: string): URL | undefined => {
    const url = URL.parse(text.trim());
    if (url === null) return undefined;
    return protocols === undefined || protocols.includes(url.protocol)
      ? url
      : undefined;
  };
  const fallback = checkDefault(name, expected, options, (value) => {
    if (typeof value !== "string" && !(value instanceof URL)) return "type";
    const url = parse(String(value));
    return url === undefined ? "range" : url.href;
  });
  // The default is kept as text and parsed per read: a URL object is mutable,
  // and configs read twice must not share one.
  return makeVar(name, expected, false, (raw) => {
    if (raw === undefined && fallback !== undefined) {
      return { ok: true, value: new URL(fallback.value) };
    }
    return orDefault(raw, undefined, parse);
  });
}

function declarePort(
  name: string,
  options?: EnvOptions<number>,
): EnvVar<number> {
  checkName(name);
  checkOptions(name, options);
  const expected = `a port number from 1 to ${MAX_PORT}`;
  const accept = (n: number): boolean =>
    Number.isInteger(n) && n >= 1 && n <= MAX_PORT;
  const fallback = checkDefault(name, expected, options, (value) => {
    if (typeof value !== "number") return "type";
    return accept(value) ? value : "range";
  });
  return makeVar(
    name,
    expected,
    false,
    (raw) =>
      orDefault(raw, fallback, (text) => {
        const trimmed = text.trim();
        if (!/^\d+$/.test(trimmed)) return undefined;
        const n = Number(trimmed);
        return accept(n) ? n : undefined;
      }),
  );
}

/** Parses duration text to whole milliseconds, or `undefined` if malformed. */
function parseDuration(text: string): number | undefined {
  if (text === "0") return 0;
  if (text === "") return undefined;
  let total = 0;
  let lastUnit = -1;
  DURATION_PART_RE.lastIndex = 0;
  while (DURATION_PART_RE.lastIndex < text.length) {
    const match = DURATION_PART_RE.exec(text);
    if (match === null) return undefined;
    const unit = DURATION_UNITS.indexOf(
      match[2] as typeof DURATION_UNITS[number],
    );
    if (unit <= lastUnit) return undefined;
    lastUnit = unit;
    total += Number(match[1]) * UNIT_MS[match[2]];
  }
  const ms = Math.round(total);
  return Number.isSafeInteger(ms) ? ms : undefined;
}

function formatDuration(ms: number): string {
  if (ms === 0) return "0";
  let rest = ms;
  let out = "";
  for (const unit of DURATION_UNITS) {
    const size = UNIT_MS[unit];
    const count = unit === "ms" ? rest : Math.floor(rest / size);
    if (count > 0) out += `${count}${unit}`;
    rest -= count * size;
  }
  return out;
}

function checkDurationOption(
  name: string,
  key: string,
  value: unknown,
): { ms: number; text: string } | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(
        `Invalid options for ${name}: ${key} must be a whole number of milliseconds >= 0, got ${value}`,
      );
    }
    return { ms: value, text: formatDuration(value) };
  }
  if (typeof value === "string") {
    const ms = parseDuration(value.trim());
    if (ms === undefined) {
      throw new TypeError(
        `Invalid options for ${name}: ${key} must be a duration ${DURATION_EXAMPLES}, got ${
          JSON.stringify(value)
        }`,
      );
    }
    return { ms, text: value.trim() };
  }
  throw new TypeError(
    `Invalid options for ${name}: ${key} must be a duration string or milliseconds, got ${
      describeValue(value)
    }`,
  );
}

function declareDuration(
  name: string,
  options?: EnvDurationOptions,
): EnvVar<number> {
  checkName(name);
  checkOptions(name, options);
  const min = checkDurationOption(name, "min", options?.min);
  const max = checkDurationOption(name, "max", options?.max);
  if (min !== undefined && max !== undefined && min.ms > max.ms) {
    throw new RangeError(
      `Invalid options for ${name}: min must not exceed max, got min ${min.text} and max ${max.text}`,
    );
  }
  let range = "";
  if (min !== undefined && max !== undefined) {
    range = ` from ${min.text} to ${max.text}`;
  } else if (min !== undefined) range = ` of at least ${min.text}`;
  else if (max !== undefined) range = ` of at most ${max.text}`;
  const expected = `a duration${range} (${DURATION_EXAMPLES})`;
  const accept = (ms: number): boolean =>
    (min === undefined || ms >= min.ms) && (max === undefined || ms <= max.ms);
  const fallback = checkDefault(name, expected, options, (value) => {
    let ms: number | undefined;
    if (typeof value === "number") {
      ms = Number.isSafeInteger(value) && value >= 0 ? value : undefined;
    } else if (typeof value === "string") {
      ms = parseDuration(value.trim());
    } else {
      return "type";
    }
    return ms !== undefined && accept(ms) ? ms : "range";
  });
  return makeVar(
    name,
    expected,
    false,
    (raw) =>
      orDefault(raw, fallback, (text) => {
        const ms = parseDuration(text.trim());
        return ms !== undefined && accept(ms) ? ms : undefined;
      }),
  );
}

function declareList(name: string, options?: EnvListOptions): EnvVar<string[]> {
  checkName(name);
  checkOptions(name, options);
  const separator = options?.separator ?? ",";
  if (typeof separator !== "string" || separator === "") {
    throw new TypeError(
      `Invalid options for ${name}: separator must be a non-empty string, got ${
        describeValue(separator)
      }`,
    );
  }
  const expected = separator === ","
    ? "a comma-separated list"
    : `a list separated by ${JSON.stringify(separator)}`;
  const fallback = checkDefault(
    name,
    "an array of strings",
    options,
    (value) =>
      Array.isArray(value) && value.every((item) => typeof item === "string")
        ? [...value]
        : "type",
  );
  return makeVar(name, expected, false, (raw) => {
    // Copies, so a caller that mutates its list cannot change the default.
    if (raw === undefined && fallback !== undefined) {
      return { ok: true, value: [...fallback.value] };
    }
    return orDefault(
      raw,
      undefined,
      (text) =>
        text.split(separator).map((item) => item.trim()).filter((item) =>
          item !== ""
        ),
    );
  });
}

function declareEnum<const V extends readonly string[]>(
  name: string,
  values: V,
  options?: EnvOptions<V[number]>,
): EnvVar<V[number]> {
  checkName(name);
  checkOptions(name, options);
  if (
    !Array.isArray(values) || values.length === 0 ||
    !values.every((v) => typeof v === "string" && v !== "") ||
    new Set(values).size !== values.length
  ) {
    throw new TypeError(
      `Invalid values for ${name}: expected a non-empty array of distinct non-empty strings, got ${
        Array.isArray(values) ? JSON.stringify(values) : describeValue(values)
      }`,
    );
  }
  const allowed: ReadonlySet<string> = new Set(values);
  const expected = `one of ${values.map((v) => JSON.stringify(v)).join(", ")}`;
  const fallback = checkDefault(name, expected, options, (value) => {
    if (typeof value !== "string") return "type";
    return allowed.has(value) ? value as V[number] : "range";
  });
  return makeVar(
    name,
    expected,
    false,
    (raw) =>
      orDefault(raw, fallback, (text) => {
        const trimmed = text.trim();
        return allowed.has(trimmed) ? trimmed as V[number] : undefined;
      }),
  );
}

function declareSecret(
  name: string,
  options?: EnvSecretOptions,
): EnvVar<Secret> {
  checkName(name);
  checkOptions(name, options);
  const minLength = options?.minLength ?? 1;
  if (!Number.isSafeInteger(minLength) || minLength < 1) {
    throw new RangeError(
      `Invalid options for ${name}: minLength must be an integer >= 1, got ${
        describeValue(minLength)
      }`,
    );
  }
  const expected = minLength === 1
    ? "a secret string"
    : `a secret of at least ${minLength} characters`;
  // A bad default is reported by type and length only: it is a secret too.
  if (options?.default !== undefined) {
    const value: unknown = options.default;
    if (typeof value !== "string") {
      throw new TypeError(
        `Invalid default for ${name}: expected a string, got ${typeof value}`,
      );
    }
    if (value.length < minLength) {
      throw new RangeError(
        `Invalid default for ${name}: expected ${expected}, got a value of ${value.length} characters`,
      );
    }
  }
  const fallback = options?.default;
  return makeVar(name, expected, true, (raw) => {
    if (raw === undefined) {
      return fallback === undefined
        ? { ok: false, missing: true }
        : { ok: true, value: new Secret(fallback) };
    }
    return raw.length >= minLength
      ? { ok: true, value: new Secret(raw) }
      : { ok: false, missing: false };
  });
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

function checkVar(where: string, value: unknown): EnvVar<unknown> {
  const v = value as Partial<EnvVar<unknown>> | null;
  if (
    v === null || typeof v !== "object" || typeof v.name !== "string" ||
    typeof v.expected !== "string" || typeof v.secret !== "boolean" ||
    typeof v.read !== "function"
  ) {
    throw new TypeError(
      `Cannot read environment: ${where} is not a variable declaration: expected env.string(), env.port() or another env kind, got ${
        describeValue(value)
      }`,
    );
  }
  checkName(v.name);
  return v as EnvVar<unknown>;
}

function isPermissionError(err: unknown): boolean {
  return err instanceof Deno.errors.NotCapable ||
    err instanceof Deno.errors.PermissionDenied;
}

function toLookup(source: EnvSource | undefined): (name: string) => unknown {
  if (source === undefined) return (name) => Deno.env.get(name);
  if (typeof source === "function") return source;
  if (source === null || typeof source !== "object") {
    throw new TypeError(
      `Cannot read environment: source must be a record or a function, got ${
        describeValue(source)
      }`,
    );
  }
  // Own keys only: a variable named "constructor" must not find Object's.
  return (name) => Object.hasOwn(source, name) ? source[name] : undefined;
}

function echo(raw: string, secret: boolean): string {
  if (secret) return `a value of ${raw.length} characters`;
  if (raw.length <= MAX_ECHO) return JSON.stringify(raw);
  return `${
    JSON.stringify(raw.slice(0, MAX_ECHO) + "…")
  } (${raw.length} characters)`;
}

/**
 * Reads every variable in `spec` and returns a frozen config object with the
 * same keys, typed from the declarations. Throws one {@linkcode EnvError}
 * listing every missing or invalid variable, or naming the `--allow-env`
 * flag to add when reading is not permitted.
 *
 * @example Read a config, with a record as the source
 * ```ts
 * import { env, readEnv } from "@forge/toolkit/env";
 *
 * const config = readEnv({
 *   port: env.port("PORT", { default: 8080 }),
 *   hosts: env.list("HOSTS", { default: [] }),
 * }, { source: { HOSTS: "a.example, b.example" } });
 * config.port; // 8080
 * config.hosts; // ["a.example", "b.example"]
 * ```
 */
export function readEnv<S extends Record<string, EnvVar<unknown>>>(
  spec: S,
  options: ReadEnvOptions = {},
): EnvConfig<S> {
  if (spec === null || typeof spec !== "object" || Array.isArray(spec)) {
    throw new TypeError(
      `Cannot read environment: spec must be an object of env declarations, got ${
        describeValue(spec)
      }`,
    );
  }
  const entries = Object.entries(spec).map(([key, value]) =>
    [key, checkVar(`spec key ${JSON.stringify(key)}`, value)] as const
  );
  const lookup = toLookup(options?.source);
  const names = [...new Set(entries.map(([, v]) => v.name))];

  const raws = new Map<string, string | undefined>();
  const denied: string[] = [];
  let deniedCause: unknown;
  for (const name of names) {
    let raw: unknown;
    try {
      raw = lookup(name);
    } catch (err) {
      if (!isPermissionError(err)) throw err;
      denied.push(name);
      deniedCause ??= err;
      continue;
    }
    if (raw !== undefined && typeof raw !== "string") {
      throw new TypeError(
        `Cannot read environment: source gave ${
          describeValue(raw)
        } for ${name}: expected a string or undefined`,
      );
    }
    raws.set(name, raw);
  }
  if (denied.length > 0) {
    // The flag lists every declared name: all are needed, not only the first
    // one that failed, so the suggested command works on the first try.
    throw new EnvError(
      `Cannot read environment: permission denied: run with --allow-env=${
        names.join(",")
      }`,
      denied.map((name) => ({
        name,
        reason: "denied",
        expected: `read permission (--allow-env=${name})`,
        message: `${name}: permission denied`,
      })),
      { cause: deniedCause },
    );
  }

  const config: Record<string, unknown> = {};
  const problems: EnvProblem[] = [];
  for (const [key, variable] of entries) {
    const raw = raws.get(variable.name);
    const result = variable.read(raw === "" ? undefined : raw);
    if (result.ok) {
      // Assigning "__proto__" would set the prototype; define it instead.
      if (key === "__proto__") {
        Object.defineProperty(config, key, {
          value: result.value,
          enumerable: true,
        });
      } else {
        config[key] = result.value;
      }
      continue;
    }
    const { name, expected } = variable;
    if (raw === undefined || raw === "" || result.missing) {
      const state = raw === "" ? "empty" : "not set";
      problems.push({
        name,
        reason: "missing",
        expected,
        message: `${name}: required but ${state}: expected ${expected}`,
      });
    } else {
      problems.push({
        name,
        reason: "invalid",
        expected,
        message: `${name}: expected ${expected}, got ${
          echo(raw, variable.secret)
        }`,
      });
    }
  }
  if (problems.length > 0) {
    const count = problems.length === 1
      ? "1 problem"
      : `${problems.length} problems`;
    throw new EnvError(
      [
        `Invalid environment: ${count}`,
        ...problems.map((p) => `  ${p.message}`),
      ].join(
        "\n",
      ),
      problems,
    );
  }
  return Object.freeze(config) as EnvConfig<S>;
}
