// validate() and parse(): input checks, then the format's parser.

import type {
  Diagnostic,
  Format,
  ParseResult,
  ValidationResult,
} from "./types.ts";
import { prepareInput } from "./input.ts";
import { type Parsed, parseJson } from "./json.ts";
import { parseJsonc } from "./jsonc.ts";
import { parseYaml } from "./yaml.ts";
import { parseToml } from "./toml.ts";
import { parseXml } from "./xml.ts";

/** Every format name, in the order the docs list them. */
export const FORMATS: readonly Format[] = [
  "json",
  "jsonc",
  "yaml",
  "toml",
  "xml",
  "regex",
  "glob",
  "url",
  "pattern",
];

const PARSERS: Partial<Record<Format, (text: string) => Parsed>> = {
  json: parseJson,
  jsonc: parseJsonc,
  yaml: parseYaml,
  toml: parseToml,
  xml: parseXml,
};

/**
 * Parses `text` as `format` and returns the value with any warnings, or the
 * diagnostics that say where and what is wrong. The text is parsed once.
 *
 * @example Parsing YAML
 * ```ts
 * import { parse } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * const result = parse("name: demo\nport: 8080\n", "yaml");
 * assert.ok(result.ok);
 * assert.deepEqual(result.value, [{ name: "demo", port: 8080 }]);
 * ```
 */
export function parse(text: string | Uint8Array, format: Format): ParseResult {
  const parser = PARSERS[format];
  if (parser === undefined) {
    throw new TypeError(
      `Cannot parse: unknown format ${
        JSON.stringify(format)
      }: expected one of ${FORMATS.join(", ")}`,
    );
  }
  const input = prepareInput(text);
  if (input.error !== undefined) {
    return { ok: false, format, diagnostics: [input.error] };
  }
  const parsed = parser(input.text);
  const diagnostics: Diagnostic[] = parsed.diagnostics;
  if (parsed.ok && !diagnostics.some((d) => d.severity === "error")) {
    return { ok: true, format, value: parsed.value, diagnostics };
  }
  return { ok: false, format, diagnostics };
}

/**
 * Checks that `text` is well-formed `format`. `ok` is false exactly when an
 * error-severity diagnostic exists; warnings leave it true.
 *
 * @example Finding a trailing comma
 * ```ts
 * import { validate } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * const result = validate('{\n  "a": 1,\n}', "json");
 * assert.equal(result.ok, false);
 * assert.equal(result.diagnostics[0].line, 3);
 * ```
 */
export function validate(
  text: string | Uint8Array,
  format: Format,
): ValidationResult {
  const result = parse(text, format);
  return {
    ok: result.ok,
    format,
    diagnostics: result.diagnostics,
  } as ValidationResult;
}
