// JSON with comments and trailing commas (tsconfig.json, deno.json,
// .vscode/settings.json).

import { parse as parseJsoncText, printParseErrorCode } from "jsonc-parser";
import type { ParseError } from "jsonc-parser";
import { Locator } from "./position.ts";
import type { Parsed } from "./json.ts";

/** Parses JSONC: comments and trailing commas are allowed. */
export function parseJsonc(text: string): Parsed {
  const errors: ParseError[] = [];
  let value: unknown;
  try {
    value = parseJsoncText(text, errors, {
      allowTrailingComma: true,
      disallowComments: false,
      allowEmptyContent: false,
    });
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return {
      ok: false,
      diagnostics: [{
        line: 1,
        column: 1,
        message: "Text is nested too deeply to parse: expected less nesting",
        severity: "error",
      }],
    };
  }
  if (errors.length === 0) return { ok: true, value, diagnostics: [] };
  const locator = new Locator(text);
  const first = errors[0];
  return {
    ok: false,
    diagnostics: [
      locator.diagnostic(
        first.offset,
        printParseErrorCode(first.error),
        "error",
        first.offset + first.length,
      ),
    ],
  };
}
