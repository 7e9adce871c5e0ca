// The one type both the watcher's options and the parser need, so neither
// imports the other.

/**
 * A parse function for `options.format`: the file's text (strict UTF-8,
 * byte order mark removed) in, the config value out, possibly as a promise.
 * Throw to refuse the text; an error with numeric `line` and `column`
 * properties becomes a diagnostic at that position.
 *
 * @example INI-like `key=value` lines
 * ```ts
 * import type { ParseFunction } from "@forge/toolkit/configreload";
 *
 * const parseKeyValue: ParseFunction = (text) =>
 *   Object.fromEntries(
 *     text.split("\n").filter((line) => line.includes("="))
 *       .map((line) => line.split("=", 2).map((part) => part.trim())),
 *   );
 * console.log(parseKeyValue("port = 8080"));
 * ```
 */
export type ParseFunction = (text: string) => unknown;
