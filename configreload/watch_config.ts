// watchConfig(): a config value that follows its file. See docs/configreload.md
// for why it watches directories, debounces and hashes.

import type { Format } from "../validate/mod.ts";
import type { ConfigWatcher } from "./types.ts";
import type { ParseFunction } from "./parse_function.ts";
import type { StandardSchema } from "../validate/standard_schema.ts";
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
