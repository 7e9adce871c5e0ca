// Internal: turns the `format` option into one function from the file's
// bytes to a value or diagnostics. Named formats go through validate/, which
// decodes strict UTF-8 and reports 1-based line:column; a parse function
// gets the decoded text and its thrown error becomes the diagnostic.

import {
  type Diagnostic,
  type Format,
  formatForPath,
  FORMATS,
  parse,
  parseAll,
} from "../validate/mod.ts";

import type { ParseFunction } from "./parse_function.ts";

/** What parsing the bytes gave. */
export type ParseOutcome =
  | { ok: true; value: unknown }
  | { ok: false; diagnostics: Diagnostic[]; cause?: unknown };

/** Bytes in, outcome out. */
export type Parser = (bytes: Uint8Array) => Promise<ParseOutcome>;

// The formats that describe a config document (the others in FORMATS
// describe single strings such as a regex or a URL).
const CONFIG_FORMATS: readonly Format[] = [
  "json",
  "jsonc",
  "yaml",
  "toml",
  "xml",
];
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The parser for `path` under the `format` option. Throws `TypeError` or
 * `RangeError` (with `context` leading the message) when the option is
 * unusable or the path's extension names no known format.
 */
export function makeParser(
  path: string,
  format: unknown,
  context: string,
): Parser {
  if (typeof format === "function") {
    const fn = format as ParseFunction;
    return (bytes) => parseWith(fn, bytes);
  }
  if (format === undefined) {
    const found = formatForPath(path);
    if (found === undefined || !CONFIG_FORMATS.includes(found)) {
      throw new TypeError(
        `${context}: cannot tell the format from the file name: ${path} (expected an extension such as .json, .jsonc, .yaml, .yml, .toml or .xml, or options.format)`,
      );
    }
    return (bytes) => Promise.resolve(parseNamed(bytes, found));
  }
  if (typeof format !== "string") {
    throw new TypeError(
      `${context}: options.format must be a format name or a parse function, got ${typeof format}`,
    );
  }
  if (!CONFIG_FORMATS.includes(format as Format)) {
    const known = FORMATS.includes(format as Format)
      ? ` (${JSON.stringify(format)} is a format for single values, not files)`
      : "";
    throw new RangeError(
      `${context}: unknown options.format ${
        JSON.stringify(format)
      }: expected one of ${
        CONFIG_FORMATS.join(", ")
      } or a parse function${known}`,
    );
  }
  const named = format as Format;
  return (bytes) => Promise.resolve(parseNamed(bytes, named));
}

function parseNamed(bytes: Uint8Array, format: Format): ParseOutcome {
  if (format === "yaml") return parseYamlConfig(bytes);
  const result = parse(bytes, format);
  if (!result.ok) return { ok: false, diagnostics: errorsOf(result) };
  return { ok: true, value: result.value };
}

// A config file is one YAML document, or none: an empty file reads as
// undefined, where parse() would give null. Several documents are refused
// with parse()'s diagnostic at the second, so it is parsed again only then.
function parseYamlConfig(bytes: Uint8Array): ParseOutcome {
  const stream = parseAll(bytes, "yaml");
  if (!stream.ok) return { ok: false, diagnostics: errorsOf(stream) };
  if (stream.value.length <= 1) return { ok: true, value: stream.value[0] };
  return { ok: false, diagnostics: errorsOf(parse(bytes, "yaml")) };
}

function errorsOf(result: { diagnostics: Diagnostic[] }): Diagnostic[] {
  return result.diagnostics.filter((d) => d.severity === "error");
}

async function parseWith(
  fn: ParseFunction,
  bytes: Uint8Array,
): Promise<ParseOutcome> {
  let text: string;
  try {
    text = STRICT_UTF8.decode(bytes);
  } catch {
    return {
      ok: false,
      diagnostics: [{
        line: 1,
        column: 1,
        message: "Text is not valid UTF-8: expected UTF-8 text",
        severity: "error",
      }],
    };
  }
  try {
    return { ok: true, value: await fn(text) };
  } catch (error) {
    const { line, column } = (error ?? {}) as {
      line?: unknown;
      column?: unknown;
    };
    const located = isPosition(line) && isPosition(column);
    return {
      ok: false,
      diagnostics: located
        ? [{
          line: line as number,
          column: column as number,
          message: error instanceof Error ? error.message : String(error),
          severity: "error",
        }]
        : [],
      cause: error,
    };
  }
}

function isPosition(value: unknown): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= 1;
}
