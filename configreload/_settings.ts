// Internal: checks watchConfig()'s options and fills in the defaults, so the
// watcher engine works from plain, valid settings.

/** The prefix of every error `watchConfig()` throws at start. */
export const START = "Cannot watch config";

const DEFAULT_DEBOUNCE_MS = 150;
const DEFAULT_MAX_WAIT_MS = 1000;
const DEFAULT_GRACE_MS = 250;
const DEFAULT_POLL_MS = 10_000;
const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
// Timers cannot wait longer than 2^31 - 1 ms; longer values fire at once.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The options a watcher works from, checked and with defaults applied. */
export interface Settings {
  debounceMs: number;
  maxWaitMs: number;
  graceMs: number;
  pollMs: number;
  maxBytes: number;
  fsEvents: boolean;
  reloadOnSignal: Deno.Signal | false;
  onListenerError: (error: unknown) => void;
}

/** The options {@linkcode readSettings} reads; `WatchConfigOptions` has them. */
export interface SettingsOptions {
  debounceMs?: number;
  maxWaitMs?: number;
  graceMs?: number;
  pollMs?: number;
  maxBytes?: number;
  fsEvents?: boolean;
  reloadOnSignal?: Deno.Signal | false;
  onListenerError?: (error: unknown) => void;
}

/** Throws `TypeError` or `RangeError` naming the first wrong option. */
export function readSettings(options: SettingsOptions): Settings {
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

/** A wrong value, as an error message names it. */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") {
    return String(value);
  }
  return typeof value;
}
