// watchConfig(): a config value that follows its file. See docs/configreload.md
// for why it watches directories, debounces and hashes.

import { resolve } from "node:path";
import type { Format } from "../validate/mod.ts";
import { ConfigError } from "./config_error.ts";
import type { StandardSchema } from "./standard_schema.ts";
import { Debouncer } from "./_debounce.ts";
import { DirWatcher } from "./_dir_watcher.ts";
import { fileError, schemaError, syntaxError } from "./_errors.ts";
import { makeParser, type ParseOutcome, type Parser } from "./_parser.ts";
import type { ParseFunction } from "./parse_function.ts";
import { type FileLook, lookAtFile } from "./_read_file.ts";
import { checkSchema, runSchema } from "./_schema.ts";
import { WATCH_STATS } from "./_stats.ts";
import { watchTargets } from "./_watch_targets.ts";

const START = "Cannot watch config";
const LOAD = "Cannot load config";
const RELOAD = "Cannot reload config";

const DEFAULT_DEBOUNCE_MS = 150;
const DEFAULT_MAX_WAIT_MS = 1000;
const DEFAULT_GRACE_MS = 250;
const DEFAULT_POLL_MS = 10_000;
const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
/** How often a watcher polls when file-system events cannot be had. */
const FALLBACK_POLL_MS = 1000;

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
  schema?: StandardSchema<T>;
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

interface Settings {
  debounceMs: number;
  maxWaitMs: number;
  graceMs: number;
  pollMs: number;
  maxBytes: number;
  fsEvents: boolean;
  reloadOnSignal: Deno.Signal | false;
  onListenerError: (error: unknown) => void;
}

interface Sink<T> {
  push(change: ConfigChange<T>): void;
  end(): void;
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
  const watcher = new Watcher<T>(
    path,
    resolve(path),
    parser,
    options.schema,
    settings,
  );
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

class Watcher<T> implements ConfigWatcher<T> {
  #path: string;
  #absPath: string;
  #parser: Parser;
  #schema: StandardSchema<T> | undefined;
  #settings: Settings;

  #current!: T;
  #hash = "";
  #version = 0;
  #status: ConfigStatus = { state: "ok" };
  #mode: WatchMode;
  // Identifies the problem behind a non-ok status (the rejected bytes'
  // hash, or the kind), so that it is reported once.
  #rejectedKey: string | undefined;
  // A missing or empty file seen since `since`, not reported yet.
  #transient: { kind: "missing" | "empty"; since: number } | undefined;

  #listeners = new Set<{ listener: ConfigListener<T> }>();
  #sinks = new Set<Sink<T>>();
  #debouncer: Debouncer;
  #dirWatcher: DirWatcher | undefined;
  #pollTimer: ReturnType<typeof setInterval> | undefined;
  #graceTimer: ReturnType<typeof setTimeout> | undefined;
  #signal: AbortSignal | undefined;
  #osSignal: Deno.Signal | undefined;

  #started = false;
  #closed = false;
  #closing: Promise<void> | undefined;
  #running: Promise<boolean> | undefined;
  #queued: Promise<boolean> | undefined;

  constructor(
    path: string,
    absPath: string,
    parser: Parser,
    schema: StandardSchema<T> | undefined,
    settings: Settings,
  ) {
    this.#path = path;
    this.#absPath = absPath;
    this.#parser = parser;
    this.#schema = schema;
    this.#settings = settings;
    this.#debouncer = new Debouncer(
      this.#onDebounced,
      settings.debounceMs,
      settings.maxWaitMs,
    );
    this.#mode = settings.fsEvents
      ? "events"
      : settings.pollMs > 0
      ? "polling"
      : "manual";
    if (settings.fsEvents) {
      this.#dirWatcher = new DirWatcher({
        onEvent: this.#onFsEvent,
        onGap: this.#onGap,
        onFailure: this.#onWatchFailure,
      });
    }
  }

  get path(): string {
    return this.#path;
  }

  get current(): T {
    return this.#current;
  }

  get hash(): string {
    return this.#hash;
  }

  get version(): number {
    return this.#version;
  }

  get status(): ConfigStatus {
    return this.#status;
  }

  get mode(): WatchMode {
    return this.#mode;
  }

  get closed(): boolean {
    return this.#closed;
  }

  async start(
    initial: { value: T } | undefined,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    // The first load holds the check slot, so events that arrive while it
    // runs queue one check after it instead of racing it.
    const load = this.#load(initial);
    const slot: Promise<boolean> = load.then(() => false, () => false)
      .finally(() => {
        if (this.#running === slot) this.#running = undefined;
      });
    this.#running = slot;
    await load;
    const { reloadOnSignal } = this.#settings;
    if (reloadOnSignal !== false) {
      try {
        Deno.addSignalListener(reloadOnSignal, this.#onOsSignal);
      } catch (error) {
        throw new TypeError(
          `${START}: cannot listen for options.reloadOnSignal ${
            JSON.stringify(reloadOnSignal)
          }: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
      this.#osSignal = reloadOnSignal;
    }
    const interval = this.#pollInterval();
    if (interval > 0) this.#startPolling(interval);
    if (signal !== undefined) {
      this.#signal = signal;
      signal.addEventListener("abort", this.#onAbort, { once: true });
      // Aborted while loading: reject as fetch() does; the caller closes.
      signal.throwIfAborted();
    }
    this.#started = true;
  }

  subscribe(listener: ConfigListener<T>): () => void {
    if (typeof listener !== "function") {
      throw new TypeError(
        `Cannot subscribe to config changes: expected a listener function, got ${
          describe(listener)
        }`,
      );
    }
    if (this.#closed) return () => {};
    const entry = { listener };
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  reload(): Promise<boolean> {
    if (this.#closed) {
      return Promise.reject(
        new Error(`${RELOAD}: the watcher is closed: ${this.#path}`),
      );
    }
    return this.#requestCheck();
  }

  close(): Promise<void> {
    if (this.#closing !== undefined) return this.#closing;
    this.#closed = true;
    this.#debouncer.cancel();
    this.#clearGrace();
    if (this.#pollTimer !== undefined) clearInterval(this.#pollTimer);
    this.#pollTimer = undefined;
    if (this.#osSignal !== undefined) {
      Deno.removeSignalListener(this.#osSignal, this.#onOsSignal);
      this.#osSignal = undefined;
    }
    this.#signal?.removeEventListener("abort", this.#onAbort);
    this.#listeners.clear();
    for (const sink of this.#sinks) sink.end();
    this.#sinks.clear();
    this.#closing = (async () => {
      await this.#dirWatcher?.close();
      // Let a check that is reading the file finish, so no I/O outlives us.
      await this.#running;
      await this.#queued;
    })();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<ConfigChange<T>> {
    const queue: ConfigChange<T>[] = [];
    const waiting: ((result: IteratorResult<ConfigChange<T>>) => void)[] = [];
    let done = this.#closed;
    const sink: Sink<T> = {
      push(change) {
        const wake = waiting.shift();
        if (wake !== undefined) wake({ value: change, done: false });
        else queue.push(change);
      },
      end() {
        done = true;
        for (const wake of waiting.splice(0)) {
          wake({ value: undefined, done: true });
        }
      },
    };
    if (!done) this.#sinks.add(sink);
    const iterator: AsyncIterableIterator<ConfigChange<T>> = {
      next: () => {
        const change = queue.shift();
        if (change !== undefined) {
          return Promise.resolve({ value: change, done: false });
        }
        if (done) return Promise.resolve({ value: undefined, done: true });
        return new Promise((wake) => waiting.push(wake));
      },
      return: () => {
        this.#sinks.delete(sink);
        queue.length = 0;
        sink.end();
        return Promise.resolve({ value: undefined, done: true });
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  // --- loading ---------------------------------------------------------

  async #load(initial: { value: T } | undefined): Promise<void> {
    await this.#retarget();
    const look = await lookAtFile(this.#absPath, this.#settings.maxBytes);
    let error: ConfigError;
    if (look.kind === "ok") {
      const result = await this.#evaluate(look, LOAD);
      if (result.ok) {
        this.#current = result.value;
        this.#hash = look.hash;
        return;
      }
      error = result.error;
    } else {
      error = fileError(LOAD, this.#path, look, this.#settings.maxBytes);
    }
    if (initial === undefined) throw error;
    this.#current = initial.value;
    this.#rejectedKey = problemKey(error);
    this.#status = error.kind === "missing"
      ? { state: "missing", error }
      : { state: "invalid", error };
  }

  async #evaluate(
    look: Extract<FileLook, { kind: "ok" }>,
    prefix: string,
  ): Promise<{ ok: true; value: T } | { ok: false; error: ConfigError }> {
    let parsed: ParseOutcome;
    try {
      parsed = await this.#parser(look.bytes);
    } catch (cause) {
      // A parser bug must not take the watcher down; refuse the bytes.
      parsed = { ok: false as const, diagnostics: [], cause };
    }
    if (!parsed.ok) {
      return {
        ok: false,
        error: syntaxError(
          prefix,
          this.#path,
          parsed.diagnostics,
          look.bytes,
          look.hash,
          parsed.cause,
        ),
      };
    }
    if (this.#schema === undefined) {
      return { ok: true, value: parsed.value as T };
    }
    const checked = await runSchema(this.#schema, parsed.value);
    if (checked.ok) return { ok: true, value: checked.value };
    return {
      ok: false,
      error: schemaError(
        prefix,
        this.#path,
        checked.issues,
        look.hash,
        checked.cause,
      ),
    };
  }

  // --- checking --------------------------------------------------------

  // One check at a time; requests during a check share one follow-up check,
  // which starts after the running one so it sees what they were about.
  #requestCheck(): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    if (this.#running === undefined) return this.#startCheck();
    this.#queued ??= this.#running.then(() => {
      this.#queued = undefined;
      return this.#running ?? this.#startCheck();
    });
    return this.#queued;
  }

  #startCheck(): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    const run: Promise<boolean> = this.#check()
      .catch((error) => {
        this.#reportUnexpected(error);
        return false;
      })
      .finally(() => {
        WATCH_STATS.checks++;
        if (this.#running === run) this.#running = undefined;
      });
    this.#running = run;
    return run;
  }

  async #check(): Promise<boolean> {
    await this.#retarget();
    const look = await lookAtFile(this.#absPath, this.#settings.maxBytes);
    if (this.#closed) return false;
    if (look.kind === "missing") {
      if (this.#withinGrace("missing")) return false;
      this.#reject(
        fileError(RELOAD, this.#path, look, this.#settings.maxBytes),
      );
      return false;
    }
    if (look.kind !== "ok") {
      this.#transient = undefined;
      this.#reject(
        fileError(RELOAD, this.#path, look, this.#settings.maxBytes),
      );
      return false;
    }
    if (look.hash === this.#hash) {
      // Same bytes as `current`: a touch, a rewrite, or a return to them.
      this.#transient = undefined;
      this.#markOk();
      return false;
    }
    if (look.bytes.length === 0 && this.#withinGrace("empty")) return false;
    this.#transient = undefined;
    if (look.hash === this.#rejectedKey) return false;
    const result = await this.#evaluate(look, RELOAD);
    if (this.#closed) return false;
    if (!result.ok) {
      this.#reject(result.error);
      return false;
    }
    this.#apply(result.value, look.hash);
    return true;
  }

  // True while a missing or empty file is young enough to be the middle of
  // a save; a check is then scheduled for when the grace ends.
  #withinGrace(kind: "missing" | "empty"): boolean {
    const now = performance.now();
    if (this.#transient?.kind !== kind) this.#transient = { kind, since: now };
    if (kind === "missing" && this.#status.state === "missing") return false;
    const left = this.#transient.since + this.#settings.graceMs - now;
    if (left <= 0) return false;
    this.#clearGrace();
    this.#graceTimer = setTimeout(this.#onGrace, left);
    return true;
  }

  #apply(value: T, hash: string): void {
    const previous = this.#current;
    this.#current = value;
    this.#hash = hash;
    this.#version++;
    this.#markOk();
    const change: ConfigChange<T> = {
      type: "change",
      value,
      previous,
      hash,
      version: this.#version,
    };
    for (const sink of this.#sinks) sink.push(change);
    this.#emit(change);
  }

  #reject(error: ConfigError): void {
    const key = problemKey(error);
    if (key === this.#rejectedKey) return;
    this.#rejectedKey = key;
    this.#status = error.kind === "missing"
      ? { state: "missing", error }
      : { state: "invalid", error };
    this.#emit({ type: "error", error });
  }

  #markOk(): void {
    if (this.#status.state === "ok") return;
    this.#status = { state: "ok" };
    this.#rejectedKey = undefined;
  }

  #emit(event: ConfigEvent<T>): void {
    if (this.#closed) return;
    for (const { listener } of [...this.#listeners]) {
      try {
        const result = listener(event);
        if (result instanceof Promise) {
          result.catch(this.#settings.onListenerError);
        }
      } catch (error) {
        this.#settings.onListenerError(error);
      }
    }
  }

  #reportUnexpected(error: unknown): void {
    // Not expected to happen (every I/O failure is a FileLook); if it does,
    // say so and keep watching.
    this.#emit({
      type: "error",
      error: new ConfigError(
        `${RELOAD}: ${this.#path}: ${
          error instanceof Error ? error.message : String(error)
        }`,
        { kind: "unreadable", path: this.#path, cause: error },
      ),
    });
  }

  // --- watching --------------------------------------------------------

  // Re-points the directory watches at where the file lives now; a watch
  // that has to be re-created reports a gap, which triggers another check.
  async #retarget(): Promise<void> {
    const dirWatcher = this.#dirWatcher;
    if (dirWatcher === undefined || dirWatcher.failed) return;
    const targets = await watchTargets(this.#absPath);
    if (!this.#closed) dirWatcher.watch(targets);
  }

  // The safety-net interval, or the fallback one once events have failed.
  #pollInterval(): number {
    const { pollMs, fsEvents } = this.#settings;
    if (!fsEvents || this.#mode !== "polling") return pollMs;
    return pollMs > 0 ? Math.min(pollMs, FALLBACK_POLL_MS) : FALLBACK_POLL_MS;
  }

  #startPolling(intervalMs: number): void {
    if (this.#pollTimer !== undefined) clearInterval(this.#pollTimer);
    this.#pollTimer = setInterval(this.#onPoll, intervalMs);
  }

  #clearGrace(): void {
    if (this.#graceTimer !== undefined) clearTimeout(this.#graceTimer);
    this.#graceTimer = undefined;
  }

  #onFsEvent = (rescan: boolean): void => {
    if (this.#closed) return;
    if (rescan) {
      this.#debouncer.cancel();
      this.#requestCheck();
    } else {
      this.#debouncer.trigger();
    }
  };

  #onDebounced = (): void => {
    this.#requestCheck();
  };

  #onGap = (): void => {
    this.#requestCheck();
  };

  #onPoll = (): void => {
    this.#requestCheck();
  };

  #onGrace = (): void => {
    this.#graceTimer = undefined;
    this.#requestCheck();
  };

  #onOsSignal = (): void => {
    this.#debouncer.cancel();
    this.#requestCheck();
  };

  #onAbort = (): void => {
    this.close();
  };

  #onWatchFailure = (cause: unknown): void => {
    if (this.#closed) return;
    this.#mode = "polling";
    const interval = this.#pollInterval();
    if (this.#started) this.#startPolling(interval);
    const error = new ConfigError(
      `${START}: falling back to polling every ${interval} ms: ${
        cause instanceof Error ? cause.message : String(cause)
      }`,
      { kind: "watch", path: this.#path, cause },
    );
    // Said once: to listeners, or, when nobody listens yet (a failure at
    // start), on the console.
    if (this.#listeners.size > 0) this.#emit({ type: "error", error });
    else console.warn(error.message);
  };
}

// Content problems are told apart by their bytes, file problems by kind.
function problemKey(error: ConfigError): string {
  return error.hash ?? error.kind;
}

function readSettings(options: WatchConfigOptions<unknown>): Settings {
  const debounceMs = milliseconds(
    options.debounceMs,
    "debounceMs",
    DEFAULT_DEBOUNCE_MS,
  );
  const maxWaitMs = milliseconds(
    options.maxWaitMs,
    "maxWaitMs",
    Math.max(DEFAULT_MAX_WAIT_MS, debounceMs),
  );
  if (maxWaitMs < debounceMs) {
    throw new RangeError(
      `${START}: options.maxWaitMs must be at least options.debounceMs (${debounceMs}), got ${maxWaitMs}`,
    );
  }
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  if (typeof maxBytes !== "number") {
    throw new TypeError(
      `${START}: options.maxBytes must be a number, got ${describe(maxBytes)}`,
    );
  }
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
    throw new RangeError(
      `${START}: options.maxBytes must be a whole number of bytes >= 1, got ${maxBytes}`,
    );
  }
  const fsEvents = options.fsEvents ?? true;
  if (typeof fsEvents !== "boolean") {
    throw new TypeError(
      `${START}: options.fsEvents must be a boolean, got ${describe(fsEvents)}`,
    );
  }
  const reloadOnSignal = options.reloadOnSignal ??
    (Deno.build.os === "windows" ? false : "SIGHUP");
  if (reloadOnSignal !== false && typeof reloadOnSignal !== "string") {
    throw new TypeError(
      `${START}: options.reloadOnSignal must be a signal name such as "SIGHUP" or false, got ${
        describe(reloadOnSignal)
      }`,
    );
  }
  const onListenerError = options.onListenerError ?? logListenerError;
  if (typeof onListenerError !== "function") {
    throw new TypeError(
      `${START}: options.onListenerError must be a function, got ${
        describe(onListenerError)
      }`,
    );
  }
  return {
    debounceMs,
    maxWaitMs,
    graceMs: milliseconds(options.graceMs, "graceMs", DEFAULT_GRACE_MS),
    pollMs: milliseconds(options.pollMs, "pollMs", DEFAULT_POLL_MS),
    maxBytes,
    fsEvents,
    reloadOnSignal,
    onListenerError,
  };
}

// Timers cannot wait longer than 2^31 - 1 ms; longer values fire at once.
const MAX_TIMER_MS = 2 ** 31 - 1;

function milliseconds(
  value: unknown,
  name: string,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number") {
    throw new TypeError(
      `${START}: options.${name} must be a number of milliseconds, got ${
        describe(value)
      }`,
    );
  }
  if (!(value >= 0 && value <= MAX_TIMER_MS)) {
    throw new RangeError(
      `${START}: options.${name} must be from 0 to ${MAX_TIMER_MS} ms, got ${value}`,
    );
  }
  return value;
}

function logListenerError(error: unknown): void {
  console.error("A config listener threw:", error);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") {
    return String(value);
  }
  return typeof value;
}
