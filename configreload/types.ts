// The types a watcher hands out: its change and error events, its status
// and the handle itself. Apart from watch_config.ts so that the engine
// (_watcher.ts, _change_feed.ts) can name them without importing the
// function that creates it.

import type { ConfigError } from "./config_error.ts";

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
