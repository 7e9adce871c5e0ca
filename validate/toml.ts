// TOML 1.0 through smol-toml.

import { parse as parseTomlText, TomlError } from "smol-toml";
import { Locator, offsetOfLine } from "./position.ts";
import type { Parsed } from "./parsed.ts";

/** Parses a TOML document into a plain object. */
export function parseToml(text: string): Parsed {
  try {
    const value = parseTomlText(text);
    return { ok: true, value, diagnostics: [] };
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    // smol-toml counts lines on "\n" and columns in UTF-16 units; go back to
    // an offset and let the locator count code points.
    const offset = offsetOfLine(text, error.line) + error.column - 1;
    const message = error.message
      .replace(/^Invalid TOML document: /, "")
      .split("\n")[0];
    return {
      ok: false,
      diagnostics: [new Locator(text).diagnostic(offset, message)],
    };
  }
}
