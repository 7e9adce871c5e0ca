// Pieces of the error messages the builders share.

import { codePointName } from "../../validate/_pattern_grammar.ts";
import { typeName } from "../_util/json_type.ts";

/** `options.argument`, checked, or the builder's default. */
export function argumentName(
  value: unknown,
  fallback: string,
  context: string,
): string {
  if (value === undefined) return fallback;
  if (typeof value !== "string" || value === "") {
    throw new TypeError(
      `Cannot call ${context}(): options.argument must be the name of the caller's argument, such as "path", got ${
        typeof value === "string" ? "an empty string" : typeName(value)
      }`,
    );
  }
  return value;
}

/** A control character as a message names it. */
export function describeControl(char: string): string {
  if (char === "\0") return "a NUL character";
  return `the control character ${codePointName(char)}`;
}

/** `a, b or c`. */
export function listWords(words: readonly string[]): string {
  return words.length === 1
    ? words[0]
    : `${words.slice(0, -1).join(", ")} or ${words[words.length - 1]}`;
}
