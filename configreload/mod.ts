/**
 * Live config reload by content hash. {@linkcode watchConfig} loads a JSON,
 * JSONC, YAML, TOML or XML file (parsed by `@forge/toolkit/validate`),
 * checks it against a zod 4 or any Standard Schema, and keeps `current`
 * equal to the file's last good content: it notices atomic saves, vim
 * saves, delete-and-recreate and Kubernetes ConfigMap symlink swaps, applies
 * only real changes (by SHA-256 of the bytes), never applies content that
 * does not parse or validate, and reloads on `SIGHUP`.
 *
 * ```ts
 * import { watchConfig } from "@forge/toolkit/configreload";
 *
 * const dir = await Deno.makeTempDir();
 * const path = `${dir}/config.json`;
 * await Deno.writeTextFile(path, '{ "greeting": "hello" }');
 *
 * await using config = await watchConfig<{ greeting: string }>(path, {
 *   debounceMs: 20,
 * });
 * console.log(config.current.greeting); // "hello"
 *
 * await Deno.writeTextFile(path, '{ "greeting": "hi" }');
 * await config.reload(); // or wait: the change is picked up by itself
 * console.log(config.current.greeting, config.version); // "hi" 1
 * ```
 *
 * @module
 */

export { watchConfig, type WatchConfigOptions } from "./watch_config.ts";
export type {
  ConfigChange,
  ConfigErrorEvent,
  ConfigEvent,
  ConfigListener,
  ConfigStatus,
  ConfigWatcher,
  WatchMode,
} from "./types.ts";
export type { ParseFunction } from "./parse_function.ts";
export {
  ConfigError,
  type ConfigErrorKind,
  type ConfigErrorOptions,
  type ConfigIssue,
} from "./config_error.ts";
