// The one error type of this folder: why a config could not be loaded,
// thrown at start and carried by error events and `status` afterwards.

import type { Diagnostic } from "../validate/mod.ts";

/**
 * What went wrong with a config file:
 *
 * - `"missing"`: no file at the path (or a dangling symlink).
 * - `"unreadable"`: the file exists but cannot be opened or read.
 * - `"not-a-file"`: the path names a directory or another non-file.
 * - `"too-large"`: the file is larger than `maxBytes`.
 * - `"syntax"`: the text does not parse; `diagnostics` say where.
 * - `"schema"`: the value fails the schema; `issues` say where.
 * - `"watch"`: file-system events cannot be received, so the watcher polls.
 *
 * @example Reacting by kind
 * ```ts
 * import type { ConfigErrorKind } from "@forge/toolkit/configreload";
 *
 * function advice(kind: ConfigErrorKind): string {
 *   return kind === "syntax" || kind === "schema"
 *     ? "fix the file; the last good config stays in use"
 *     : "check that the file is there and readable";
 * }
 * console.log(advice("schema"));
 * ```
 */
export type ConfigErrorKind =
  | "missing"
  | "unreadable"
  | "not-a-file"
  | "too-large"
  | "syntax"
  | "schema"
  | "watch";

/**
 * One schema problem, with the path of keys (or indexes) to the offending
 * value.
 *
 * @example An issue for `server.port`
 * ```ts
 * import type { ConfigIssue } from "@forge/toolkit/configreload";
 *
 * const issue: ConfigIssue = {
 *   path: ["server", "port"],
 *   message: "Invalid input: expected number, received string",
 * };
 * console.log(issue.path.join("."));
 * ```
 */
export interface ConfigIssue {
  /** Keys and indexes from the root to the value; empty for the root. */
  readonly path: readonly (string | number)[];
  /** The schema library's message. */
  readonly message: string;
}

/**
 * Options for {@linkcode ConfigError}, besides the standard `cause`.
 *
 * @example A schema error made by hand (in a test, say)
 * ```ts
 * import { ConfigError, type ConfigErrorOptions } from "@forge/toolkit/configreload";
 *
 * const options: ConfigErrorOptions = {
 *   kind: "schema",
 *   path: "app.json",
 *   issues: [{ path: ["port"], message: "expected a number" }],
 * };
 * console.log(new ConfigError("Cannot load config: app.json: port: expected a number", options).kind);
 * ```
 */
export interface ConfigErrorOptions extends ErrorOptions {
  /** What went wrong. */
  kind: ConfigErrorKind;
  /** The config path as the caller gave it. */
  path: string;
  /**
   * Where the text fails to parse (for `"syntax"`).
   *
   * @default {[]}
   */
  diagnostics?: readonly Diagnostic[];
  /**
   * What the schema refused (for `"schema"`).
   *
   * @default {[]}
   */
  issues?: readonly ConfigIssue[];
  /**
   * Hex SHA-256 of the rejected bytes, when there were bytes.
   *
   * @default {undefined}
   */
  hash?: string;
  /**
   * The full human-readable account; the message when not given.
   *
   * @default {message}
   */
  report?: string;
}

/**
 * Why a config file could not be used. `watchConfig()` rejects with it at
 * start; afterwards it arrives in error events and in `status.error`, and
 * the watcher keeps its last good value.
 *
 * The message is one line: `Cannot load config: app.yaml:3:5: …` for a
 * syntax error, `Cannot load config: app.yaml: server.port: …` for a schema
 * failure. `report` adds the code frame of each syntax error and one line
 * per schema issue.
 *
 * @example Report a broken config at start
 * ```ts
 * import { ConfigError, watchConfig } from "@forge/toolkit/configreload";
 *
 * const path = await Deno.makeTempFile({ suffix: ".json" });
 * await Deno.writeTextFile(path, '{ "port": 80, }');
 * try {
 *   await watchConfig(path);
 * } catch (error) {
 *   if (!(error instanceof ConfigError)) throw error;
 *   console.log(error.kind); // "syntax"
 *   console.log(error.diagnostics[0].line); // 1
 * }
 * ```
 */
export class ConfigError extends Error {
  /** What went wrong. */
  readonly kind: ConfigErrorKind;
  /** The config path as the caller gave it. */
  readonly path: string;
  /** Where the text fails to parse; empty unless `kind` is `"syntax"`. */
  readonly diagnostics: readonly Diagnostic[];
  /** What the schema refused; empty unless `kind` is `"schema"`. */
  readonly issues: readonly ConfigIssue[];
  /** Hex SHA-256 of the rejected bytes, when there were bytes. */
  readonly hash: string | undefined;
  /** The message plus code frames or one line per schema issue. */
  readonly report: string;

  /**
   * Creates a config error.
   *
   * @param message One line: what failed, then the detail after a colon.
   * @param options The kind, the path and the evidence.
   */
  constructor(message: string, options: ConfigErrorOptions) {
    super(message, options.cause === undefined ? undefined : options);
    this.name = "ConfigError";
    this.kind = options.kind;
    this.path = options.path;
    this.diagnostics = options.diagnostics ?? [];
    this.issues = options.issues ?? [];
    this.hash = options.hash;
    this.report = options.report ?? message;
  }
}
