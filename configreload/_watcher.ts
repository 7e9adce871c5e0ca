// Internal: the engine behind watchConfig(). It loads the file, then runs
// one check at a time whenever something may have changed it (a debounced
// directory event, the poll, the reload signal, reload()); a check reads and
// hashes the file and applies new bytes only when they parse and validate.
// Option checking lives in _settings.ts, parsing and validating bytes in
// _evaluate.ts, listeners and iterators in _change_feed.ts.

import { resolve } from "node:path";
import { ConfigError } from "./config_error.ts";
import type { StandardSchema } from "../validate/standard_schema.ts";
import type {
  ConfigChange,
  ConfigListener,
  ConfigStatus,
  ConfigWatcher,
  WatchMode,
} from "./types.ts";
import { ChangeFeed } from "./_change_feed.ts";
import { Debouncer } from "./_debounce.ts";
import { DirWatcher } from "./_dir_watcher.ts";
import { fileError } from "./_errors.ts";
import { evaluate, type Evaluation } from "./_evaluate.ts";
import type { Parser } from "./_parser.ts";
import { type FileLook, lookAtFile } from "./_read_file.ts";
import { type Settings, START } from "./_settings.ts";
import { watchTargets } from "./_watch_targets.ts";

const LOAD = "Cannot load config";
const RELOAD = "Cannot reload config";
/** How often a watcher polls when file-system events cannot be had. */
const FALLBACK_POLL_MS = 1000;

/** What {@linkcode Watcher} is built from. */
export interface WatcherOptions<T> {
  /** Turns the file's bytes into a value. */
  parser: Parser;
  /** What the value must pass, if anything. */
  schema: StandardSchema<unknown, T> | undefined;
  /** The checked options. */
  settings: Settings;
}

/** What a test can see of a watcher's machinery (see `inspectWatcher`). */
export interface WatcherState {
  /** File-system events heard since start. */
  heard: number;
  /** Checks finished since start (the first load not counted). */
  checks: number;
  /** Whether a debounced check is scheduled. */
  debouncing: boolean;
  /** Whether a check is running or queued. */
  checking: boolean;
  /** Whether a missing or empty file is being given its grace period. */
  inGrace: boolean;
  /** Whether the poll is scheduled. */
  polling: boolean;
  /** The directories listened to. */
  dirs: string[];
}

/** A live config value; `watchConfig()` checks the arguments and starts it. */
export class Watcher<T> implements ConfigWatcher<T> {
  #path: string;
  #absPath: string;
  #parser: Parser;
  #schema: StandardSchema<unknown, T> | undefined;
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

  #feed: ChangeFeed<T>;
  #debouncer: Debouncer;
  #dirWatcher: DirWatcher | undefined;
  #pollTimer: ReturnType<typeof setInterval> | undefined;
  #graceTimer: ReturnType<typeof setTimeout> | undefined;
  #signal: AbortSignal | undefined;
  #osSignal: Deno.Signal | undefined;
  #heard = 0;
  #checks = 0;

  #started = false;
  #closed = false;
  #closing: Promise<void> | undefined;
  #running: Promise<boolean> | undefined;
  #queued: Promise<boolean> | undefined;

  constructor(path: string, options: WatcherOptions<T>) {
    const { settings } = options;
    this.#path = path;
    this.#absPath = resolve(path);
    this.#parser = options.parser;
    this.#schema = options.schema;
    this.#settings = settings;
    this.#feed = new ChangeFeed(settings.onListenerError);
    this.#debouncer = new Debouncer(this.#onDebounced, {
      waitMs: settings.debounceMs,
      maxWaitMs: settings.maxWaitMs,
    });
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

  /** The machinery of `watcher` as it is now, for tests. */
  static inspect(watcher: Watcher<unknown>): WatcherState {
    return {
      heard: watcher.#heard,
      checks: watcher.#checks,
      debouncing: watcher.#debouncer.pending,
      checking: watcher.#running !== undefined ||
        watcher.#queued !== undefined,
      inGrace: watcher.#graceTimer !== undefined,
      polling: watcher.#pollTimer !== undefined,
      dirs: watcher.#dirWatcher?.dirs ?? [],
    };
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

  /**
   * Loads the file (or falls back to `initial`), then starts the poll and
   * the signal listener. The caller closes the watcher when it rejects.
   */
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
    return this.#feed.subscribe(listener);
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
    this.#feed.close();
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
    return this.#feed.iterate();
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

  #evaluate(
    look: Extract<FileLook, { kind: "ok" }>,
    prefix: string,
  ): Promise<Evaluation<T>> {
    return evaluate(look, {
      path: this.#path,
      prefix,
      parser: this.#parser,
      schema: this.#schema,
    });
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
        this.#checks++;
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
    this.#feed.change({
      type: "change",
      value,
      previous,
      hash,
      version: this.#version,
    });
  }

  #reject(error: ConfigError): void {
    const key = problemKey(error);
    if (key === this.#rejectedKey) return;
    this.#rejectedKey = key;
    this.#status = error.kind === "missing"
      ? { state: "missing", error }
      : { state: "invalid", error };
    this.#feed.emit({ type: "error", error });
  }

  #markOk(): void {
    if (this.#status.state === "ok") return;
    this.#status = { state: "ok" };
    this.#rejectedKey = undefined;
  }

  #reportUnexpected(error: unknown): void {
    // Not expected to happen (every I/O failure is a FileLook); if it does,
    // say so and keep watching.
    this.#feed.emit({
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
    this.#heard++;
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
    if (this.#feed.listening) this.#feed.emit({ type: "error", error });
    else console.warn(error.message);
  };
}

/** The machinery of a watcher `watchConfig()` returned, for tests. */
export function inspectWatcher(watcher: ConfigWatcher<unknown>): WatcherState {
  if (!(watcher instanceof Watcher)) {
    throw new TypeError(
      "Cannot inspect the watcher: not made by watchConfig()",
    );
  }
  return Watcher.inspect(watcher);
}

// Content problems are told apart by their bytes, file problems by kind.
function problemKey(error: ConfigError): string {
  return error.hash ?? error.kind;
}
