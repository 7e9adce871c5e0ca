// TOML 1.0 through smol-toml.

import { parse as parseTomlText, TomlError } from "smol-toml";
import { Locator, offsetOfLine } from "./position.ts";
import type { Parsed } from "./parsed.ts";

// smol-toml's reasons where a model needs more to act on.
const CLEARER: Record<string, string> = {
  "trying to redefine an already defined table or value":
    "Key or table defined twice: TOML allows each key and table once",
  "trying to redefine an already defined value":
    "Key defined twice: TOML allows each key once",
  "invalid value":
    "Invalid value: expected a string, number, boolean, date, array or inline table",
  "document contains excessively nested structures. aborting.":
    "Nesting too deep: TOML documents may nest arrays and inline tables at most 1000 levels",
  "each key-value declaration must be followed by an end-of-line":
    "Expected the end of the line after a key-value pair (one pair per line)",
  "incomplete key-value: cannot find end of key":
    "Incomplete key-value pair: expected '=' after the key",
};

/** Parses a TOML document into a plain object. */
export function parseToml(text: string): Parsed {
  try {
    const value = parseTomlText(text);
    return { ok: true, value, diagnostics: [] };
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    // smol-toml counts lines on "\n" and columns in UTF-16 units; go back to
    // an offset and let the locator count code points.
    let offset = offsetOfLine(text, error.line) + error.column - 1;
    const reason = error.message
      .replace(/^Invalid TOML document: /, "")
      .split("\n")[0];
    let message = CLEARER[reason] ?? capitalize(reason);
    if (
      reason === "unrecognised escape sequence" && text[offset - 1] === "\\"
    ) {
      // Point at the backslash that starts the escape.
      offset--;
      message = `Unknown escape \\${
        text[offset + 1]
      } in a string: expected one of \\b \\t \\n \\f \\r \\" \\\\ \\uXXXX \\UXXXXXXXX (or use a 'literal string')`;
    }
    const char = text[offset];
    if (
      reason.startsWith("control characters") &&
      (char === "\n" || char === "\r")
    ) {
      message =
        'Unterminated string: expected the closing quote before the end of the line (use """ for a multi-line string)';
    }
    return {
      ok: false,
      diagnostics: [new Locator(text).diagnostic(offset, message)],
    };
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
