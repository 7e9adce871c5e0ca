// Escaping literal text for patterns: glob characters in every target, and
// argv words as the space-separated tokens of an exec target.

import {
  CONTROL_CHARS,
  CONTROL_ESCAPES,
  GLOB_CHARS,
  LITERAL_ESCAPES,
} from "../../validate/_pattern_grammar.ts";
import { typeName } from "../_util/json_type.ts";

// A regular-expression class of the given characters, each written as a
// \u{…} escape so that none is special inside the class.
function charClass(chars: Iterable<string>, extra = ""): RegExp {
  const escaped = [...chars].map((c) =>
    `\\u{${c.codePointAt(0)!.toString(16)}}`
  );
  return new RegExp(`[${escaped.join("")}${extra}]`, "gu");
}

// What escapeGlob escapes: the glob characters and the backslash itself.
const GLOB_SPECIAL = charClass(["\\", ...GLOB_CHARS]);
// What escapeToken escapes: every literal escape and every control character.
const TOKEN_SPECIAL = charClass(LITERAL_ESCAPES, CONTROL_CHARS);
const TOKEN_ESCAPES: Record<string, string> = Object.fromEntries([
  ...[...LITERAL_ESCAPES].map((c) => [c, `\\${c}`]),
  ...Object.entries(CONTROL_ESCAPES).map(([letter, c]) => [c, `\\${letter}`]),
]);

/**
 * Backslash-escapes the glob characters `* ? [ ] { } \` so that the text can
 * stand in a pattern or rule and only ever match itself.
 *
 * @example A file named with brackets
 * ```ts
 * import { escapeGlob } from "@forge/toolkit/patterns";
 *
 * escapeGlob("src/[ab].ts"); // "src/\\[ab\\].ts"
 * ```
 *
 * @param text The literal text.
 * @returns The text with each glob character preceded by a backslash.
 * @throws {TypeError} When `text` is not a string.
 */
export function escapeGlob(text: string): string {
  if (typeof text !== "string") {
    throw new TypeError(
      `Cannot escape glob characters: expected a string, got ${typeName(text)}`,
    );
  }
  return text.replace(GLOB_SPECIAL, "\\$&");
}

/**
 * One argv word as a token of an exec target, so that no two argument lists
 * share a pattern: `\` space `"` and the glob characters get a backslash, an
 * empty word is `""`, a line feed, carriage return or tab is `\n`, `\r`,
 * `\t` and any other control character `\u{hex}`.
 *
 * @example
 * ```ts
 * import { escapeToken } from "./escape.ts";
 *
 * escapeToken("-rf x"); // "-rf\\ x"
 * escapeToken(""); // '""'
 * ```
 *
 * @param word One program name or argument, in NFC.
 * @returns The escaped token.
 */
export function escapeToken(word: string): string {
  if (word === "") return '""';
  return word.replace(
    TOKEN_SPECIAL,
    (c) => TOKEN_ESCAPES[c] ?? `\\u{${c.codePointAt(0)!.toString(16)}}`,
  );
}
