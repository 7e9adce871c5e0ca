// The result shapes shared by every validator in this folder.

/**
 * The syntaxes `validate()` and `parse()` understand: five document
 * formats and four kinds of string a tool takes as an argument.
 *
 * @example Choosing a format at run time
 * ```ts
 * import { type Format, FORMATS, validate } from "@forge/toolkit/validate";
 *
 * const format: Format = FORMATS.includes("yaml") ? "yaml" : "json";
 * console.log(validate("a: 1", format).ok); // true
 * ```
 */
export type Format =
  | "json"
  | "jsonc"
  | "yaml"
  | "toml"
  | "xml"
  | "regex"
  | "glob"
  | "url"
  | "pattern";

/**
 * One problem found in a text. Positions are 1-based; `column` counts code
 * points of that line, so an emoji or a CJK character is one column.
 *
 * @example A diagnostic for a missing comma
 * ```ts
 * import type { Diagnostic } from "@forge/toolkit/validate";
 *
 * const diagnostic: Diagnostic = {
 *   line: 3,
 *   column: 5,
 *   message: "Expected ',' or '}' after a property value",
 *   severity: "error",
 * };
 * console.log(diagnostic.line);
 * ```
 */
export interface Diagnostic {
  /** 1-based line of the first character the problem concerns. */
  line: number;
  /** 1-based column, in code points of that line. */
  column: number;
  /** 1-based line just after the problem, where the parser knows it. */
  endLine?: number;
  /** 1-based column just after the problem (exclusive), where known. */
  endColumn?: number;
  /** What is wrong and, where it helps, what was expected. */
  message: string;
  /** Only `"error"` makes a result fail; `"warning"` is advice. */
  severity: "error" | "warning";
}

/**
 * The outcome of `validate()`: `ok` is false exactly when an error-severity
 * diagnostic exists. A passing result may still carry warnings.
 *
 * @example Reading a result
 * ```ts
 * import { validate } from "@forge/toolkit/validate";
 *
 * const result = validate('{"a": 1}', "json");
 * console.log(result.ok ? "valid" : result.diagnostics[0].message);
 * ```
 */
export type ValidationResult =
  | { ok: true; format: Format; diagnostics: Diagnostic[] }
  | { ok: false; format: Format; diagnostics: Diagnostic[] };

/**
 * The outcome of `parse()`: like {@linkcode ValidationResult}, with the
 * parsed `value` when the text is valid.
 *
 * @example Using the parsed value
 * ```ts
 * import { parse } from "@forge/toolkit/validate";
 *
 * const result = parse("port = 8080", "toml");
 * if (result.ok) console.log(result.value);
 * ```
 */
export type ParseResult =
  | { ok: true; format: Format; value: unknown; diagnostics: Diagnostic[] }
  | { ok: false; format: Format; diagnostics: Diagnostic[] };

/**
 * The outcome of `parseAll()`: like {@linkcode ParseResult}, with every
 * document of the stream, in order, as `value`.
 *
 * @example Counting the documents of a stream
 * ```ts
 * import { parseAll, type ParseAllResult } from "@forge/toolkit/validate";
 *
 * const result: ParseAllResult = parseAll("a: 1\n---\nb: 2\n", "yaml");
 * if (result.ok) console.log(result.value.length); // 2
 * ```
 */
export type ParseAllResult =
  | { ok: true; format: "yaml"; value: unknown[]; diagnostics: Diagnostic[] }
  | { ok: false; format: "yaml"; diagnostics: Diagnostic[] };
