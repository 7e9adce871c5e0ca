// watchConfig(): a config value that follows its file. See docs/configreload.md
// for why it watches directories, debounces and hashes.

import type { Format } from "../validate/mod.ts";
import type { ConfigError } from "./config_error.ts";
import type { ParseFunction } from "./parse_function.ts";
import type { StandardSchema } from "./standard_schema.ts";
import { makeParser } from "./_parser.ts";
import { checkSchema } from "./_schema.ts";
import { describe, readSettings, START } from "./_settings.ts";
import { Watcher } from "./_watcher.ts";

/**
 * Options for {@linkcode watchConfig}.
 *
 * @example A typed config that reloads quickly
 * ```ts
 * import type { WatchConfigOptions } from "@forge/toolkit/configreload";
 *
 * const options: WatchConfigOptions<{ port: number }> = {
 *   debounceMs: 50,
 *   initial: { port: 8080 },
 * };
 * console.log(options.debounceMs);
 * ```
 */
export interface WatchConfigOptions<T = unknown> {
  /**
   * A Standard Schema (zod 4, Valibot, ArkType, …) the parsed value must
   * pass; `current` is the schema's output. Content that fails it is
   * refused and the last good value stays.
   *
   * @default {undefined}
   */
  schema?: StandardSchema<unknown, T>;
  /**
   * The syntax of the file: `"json"`, `"jsonc"`, `"yaml"`, `"toml"`,
   * `"xml"`, or a {@linkcode ParseFunction}. A YAML file must hold one
   * document (an empty one reads as `undefined`).
   *
   * @default {the format its extension names}
   */
  format?: Format | ParseFunction;
  /**
   * A value to start with when the file is missing or invalid at start;
   * without it `watchConfig()` rejects. The file is loaded when it appears
   * or becomes valid.
   *
   * @default {undefined}
   */
  initial?: T;
  /**
   * Quiet time, after the last event of a burst, before the file is
   * checked. Editors and Kubernetes make several events per save.
   *
   * @default {150}
   */
  debounceMs?: number;
  /**
   * The longest a burst of events may postpone a check.
   *
   * @default {1000, or debounceMs if that is larger}
   */
  maxWaitMs?: number;
  /**
   * How long a missing or empty file is given to come back before it is
   * reported (an atomic save or a truncate-then-write passes through both
   * for a moment).
   *
   * @default {250}
   */
  graceMs?: number;
  /**
   * Interval of the safety-net poll that catches lost events; 0 turns it
   * off.
   *
   * @default {10000}
   */
  pollMs?: number;
  /**
   * Files larger than this are refused without being read whole.
   *
   * @default {10485760}
   */
  maxBytes?: number;
  /**
   * Closes the watcher when aborted; aborted before `watchConfig()`
   * resolves, it makes `watchConfig()` reject with the signal's reason.
   *
   * @default {undefined}
   */
  signal?: AbortSignal;
  /**
   * A signal that makes the watcher check the file now, or `false` for
   * none.
   *
   * @default {"SIGHUP", or false on Windows}
   */
  reloadOnSignal?: Deno.Signal | false;
  /**
   * Listen for file-system events. Turn off on file systems that deliver
   * none (some network and FUSE mounts); the poll, `reload()` and
   * `reloadOnSignal` then do the work.
   *
   * @default {true}
   */
  fsEvents?: boolean;
  /**
   * Called with whatever a listener throws (or its promise rejects with).
   *
   * @default {logs to console.error}
   */
  onListenerError?: (error: unknown) => void;
}

/**
 * A change that was applied: the new value, the one it replaced, the hash
 * of the new bytes and the watcher's new `version`.
 *
 * @example Logging changes
 * ```ts
 * import type { ConfigChange } from "@forge/toolkit/configreload";
 *
 * function log(change: ConfigChange<{ port: number }>): void {
 *   console.log(`v${change.version}: ${change.previous.port} -> ${change.value.port}`);
 * }
 * log({ type: "change", value: { port: 2 }, previous: { port: 1 }, hash: "ab", version: 1 });
 * ```
 */
export interface ConfigChange<T> {
  /** Always `"change"`. */
  readonly type: "change";
  /** The new value, now `current`. */
  readonly value: T;
  /** The value it replaced. */
  readonly previous: T;
  /** Hex SHA-256 of the bytes behind `value`. */
  readonly hash: string;
  /** The watcher's `version` after this change. */
  readonly version: number;
}

/**
 * Content or a file state that was refused, or the news that the watcher
 * fell back to polling (`error.kind === "watch"`). Each distinct problem is
 * reported once.
 *
 * @example Printing the full report
 * ```ts
 * import type { ConfigErrorEvent } from "@forge/toolkit/configreload";
 *
 * function report(event: ConfigErrorEvent): void {
 *   console.error(event.error.report);
 * }
 * ```
 */
export interface ConfigErrorEvent {
  /** Always `"error"`. */
  readonly type: "error";
  /** What was refused and why. */
  readonly error: ConfigError;
}

/**
 * What listeners receive.
 *
 * @example Telling events apart
 * ```ts
 * import type { ConfigEvent } from "@forge/toolkit/configreload";
 *
 * function describe(event: ConfigEvent<unknown>): string {
 *   return event.type === "change" ? `now v${event.version}` : event.error.message;
 * }
 * ```
 */
export type ConfigEvent<T> = ConfigChange<T> | ConfigErrorEvent;

/**
 * A listener for {@linkcode ConfigWatcher.subscribe}. What it throws (or
 * rejects with) goes to `onListenerError`; other listeners still run.
 *
 * @example
 * ```ts
 * import type { ConfigListener } from "@forge/toolkit/configreload";
 *
 * const listener: ConfigListener<{ port: number }> = (event) => {
 *   if (event.type === "change") console.log("port", event.value.port);
 * };
 * ```
 */
export type ConfigListener<T> = (event: ConfigEvent<T>) => unknown;

/**
 * Whether the file on disk is what `current` holds: `"ok"`; `"invalid"`
 * with the error that refused its content (diagnostics or schema issues),
 * or that it cannot be read; `"missing"` when it is gone. In the last two,
 * `current` is still the last good value.
 *
 * @example
 * ```ts
 * import type { ConfigStatus } from "@forge/toolkit/configreload";
 *
 * function explain(status: ConfigStatus): string {
 *   return status.state === "ok" ? "ok" : status.error.report;
 * }
 * ```
 */
export type ConfigStatus =
  | { readonly state: "ok" }
  | { readonly state: "invalid"; readonly error: ConfigError }
  | { readonly state: "missing"; readonly error: ConfigError };

/**
 * How a watcher learns about changes: `"events"` (file-system events plus
 * the safety-net poll), `"polling"` (events are off or failed; it polls),
 * `"manual"` (events off, no poll: only `reload()` and the signal).
 *
 * @example
 * ```ts
 * import type { WatchMode } from "@forge/toolkit/configreload";
 *
 * const mode: WatchMode = "events";
 * console.log(mode);
 * ```
 */
export type WatchMode = "events" | "polling" | "manual";

/**
 * A live config value; see {@linkcode watchConfig}.
 *
 * @example Use the value, follow changes, clean up
 * ```ts
 * import { watchConfig } from "@forge/toolkit/configreload";
 *
 * const path = await Deno.makeTempFile({ suffix: ".json" });
 * await Deno.writeTextFile(path, '{ "port": 8080 }');
 * await using config = await watchConfig<{ port: number }>(path);
 * console.log(config.current.port, config.version, config.hash.length); // 8080 0 64
 * const unsubscribe = config.subscribe((event) => {
 *   if (event.type === "change") console.log("port is now", event.value.port);
 * });
 * unsubscribe();
 * ```
 */
export interface ConfigWatcher<T> extends AsyncDisposable {
  /** The path as given to `watchConfig()`. */
  readonly path: string;
  /** The last good value. */
  readonly current: T;
  /**
   * Hex SHA-256 of the bytes behind `current`; `""` while `current` is the
   * `initial` option.
   */
  readonly hash: string;
  /** How many changes have been applied since start. */
  readonly version: number;
  /** Whether the file on disk is what `current` holds. */
  readonly status: ConfigStatus;
  /** How changes are noticed. */
  readonly mode: WatchMode;
  /** Whether `close()` has been called. */
  readonly closed: boolean;
  /**
   * Calls `listener` with every change and error event until the returned
   * function is called or the watcher closes.
   */
  subscribe(listener: ConfigListener<T>): () => void;
  /**
   * Checks the file now (after any check already running) and resolves
   * with whether a new value was applied. A missing or empty file is given
   * `graceMs` before it is reported, as for any other check.
   */
  reload(): Promise<boolean>;
  /**
   * Stops watching: no events after it returns, no timers, watches or
   * listeners left. Open iterators end. Safe to call twice.
   */
  close(): Promise<void>;
  /** Iterates over the changes applied from now on, until `close()`. */
  [Symbol.asyncIterator](): AsyncIterableIterator<ConfigChange<T>>;
  /** Same as `close()`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Loads the config file at `path` and keeps `current` equal to its last
 * good content. It rejects with a {@linkcode ConfigError} when the file is
 * missing, unreadable, does not parse (the message has `line:column`) or
 * fails `options.schema`, unless `options.initial` is given, in which case
 * it starts with that value.
 *
 * How it watches: the file's directory (and the directory of each symlink
 * hop and of the real file) for any event; a trailing debounce; then one
 * check that reads and hashes the file. The same bytes do nothing (a
 * `touch`, an identical rewrite); new bytes are parsed, validated and
 * swapped in at once, or reported once and ignored. A missing file keeps the
 * last good value. A slow poll and `SIGHUP` also trigger a check.
 *
 * @example Reload a YAML config validated by zod
 * ```ts ignore
 * import { watchConfig } from "@forge/toolkit/configreload";
 * import { z } from "zod";
 *
 * const Config = z.object({ port: z.number().int(), greeting: z.string() });
 * await using config = await watchConfig("config.yaml", { schema: Config });
 * console.log(config.current.greeting);
 * for await (const change of config) {
 *   console.log(`now ${change.value.greeting} (v${change.version})`);
 * }
 * ```
 *
 * @example Start before the file exists
 * ```ts
 * import { watchConfig } from "@forge/toolkit/configreload";
 *
 * const dir = await Deno.makeTempDir();
 * await using config = await watchConfig(`${dir}/late.json`, {
 *   initial: { port: 8080 },
 * });
 * console.log(config.status.state); // "missing"
 * console.log(config.current); // { port: 8080 }
 * ```
 *
 * @param path The config file; relative paths resolve against the current
 * directory, once, at start.
 * @param options Schema, format, timings and the rest.
 * @returns A watcher holding the loaded value.
 */
export async function watchConfig<T = unknown>(
  path: string,
  options: WatchConfigOptions<T> = {},
): Promise<ConfigWatcher<T>> {
  if (typeof path !== "string" || path === "") {
    throw new TypeError(
      `${START}: expected the path as a non-empty string, got ${
        typeof path === "string" ? "an empty string" : describe(path)
      }`,
    );
  }
  if (options === null || typeof options !== "object") {
    throw new TypeError(
      `${START}: expected options as an object, got ${describe(options)}`,
    );
  }
  const settings = readSettings(options);
  const parser = makeParser(path, options.format, START);
  if (options.schema !== undefined) checkSchema(options.schema, START);
  if (options.signal !== undefined) {
    if (!(options.signal instanceof AbortSignal)) {
      throw new TypeError(
        `${START}: options.signal must be an AbortSignal, got ${
          describe(options.signal)
        }`,
      );
    }
    options.signal.throwIfAborted();
  }
  const watcher = new Watcher<T>(path, {
    parser,
    schema: options.schema,
    settings,
  });
  try {
    await watcher.start(
      options.initial === undefined ? undefined : { value: options.initial },
      options.signal,
    );
  } catch (error) {
    await watcher.close();
    throw error;
  }
  return watcher;
}
