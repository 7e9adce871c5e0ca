// JSON with comments and trailing commas (tsconfig.json, deno.json,
// .vscode/settings.json), read by the same scanner as JSON's diagnostics.

import { scanJson } from "./json_scanner.ts";
import type { Parsed } from "./parsed.ts";

/**
 * Parses JSONC: `//` and block comments and trailing commas are allowed.
 * The value is built only when `buildValue` is set.
 */
export function parseJsonc(text: string, buildValue = true): Parsed {
  const scan = scanJson(text, {
    comments: true,
    trailingCommas: true,
    buildValue,
    name: "JSONC",
  });
  if (scan.error !== undefined) {
    return { ok: false, diagnostics: [scan.error, ...scan.warnings] };
  }
  return { ok: true, value: scan.value, diagnostics: scan.warnings };
}
