// Strict JSON (RFC 8259). Valid text takes the engine's JSON.parse; the
// location work happens only on failure.

import type { Diagnostic } from "./types.ts";
import { Locator } from "./position.ts";

/** What a format parser returns: the value, or the diagnostics. */
export type Parsed =
  | { ok: true; value: unknown; diagnostics: Diagnostic[] }
  | { ok: false; diagnostics: Diagnostic[] };

const V8_POSITION = / in JSON at position (\d+)(?: \(line \d+ column \d+\))?$/;

/** Parses strict JSON; see the module docs for what is reported. */
export function parseJson(text: string): Parsed {
  try {
    const value = JSON.parse(text);
    return { ok: true, value, diagnostics: [] };
  } catch (error) {
    return { ok: false, diagnostics: [locateV8Error(text, error as Error)] };
  }
}

function locateV8Error(text: string, error: Error): Diagnostic {
  const locator = new Locator(text);
  const match = V8_POSITION.exec(error.message);
  if (match !== null) {
    const offset = Number(match[1]);
    return locator.diagnostic(
      offset,
      error.message.slice(0, match.index),
      "error",
    );
  }
  if (error.message.startsWith("Unexpected end of JSON input")) {
    return locator.diagnostic(
      text.length,
      text.trim() === ""
        ? "Empty text: expected a JSON value"
        : "Unexpected end of text: expected more JSON",
    );
  }
  return locator.diagnostic(0, error.message);
}
