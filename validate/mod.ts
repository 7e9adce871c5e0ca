/**
 * Syntax validators with exact `line:column` diagnostics, for tools that
 * must refuse broken content with a message a model can act on.
 *
 * - {@linkcode validate} and {@linkcode parse} check JSON, JSONC, YAML,
 *   TOML and XML documents and the `regex`, `glob`, `url` and `pattern`
 *   strings tools take as arguments; `parse` also returns the value, from
 *   one parse. A YAML text is one document for `parse`; {@linkcode parseAll}
 *   reads a stream of several.
 * - {@linkcode validateFile} picks the format from a file name.
 * - {@linkcode formatDiagnostics} renders `path:line:column: message` with
 *   a code frame.
 *
 * Positions are 1-based and count code points, so an emoji is one column.
 * Nothing here needs a permission, at import or at run time, nor Deno:
 * it runs on Deno, Node (20 and later), Bun and Cloudflare Workers
 * (workerd); {@linkcode validateFile} takes the file's text, it reads nothing.
 *
 * ```ts
 * import { formatDiagnostics, validateFile } from "@forge/toolkit/validate";
 *
 * const source = "name: demo\nname: again\n";
 * const result = validateFile("app.yaml", source);
 * if (!result.ok) {
 *   console.log(formatDiagnostics(result, { path: "app.yaml", source }));
 * }
 * ```
 *
 * @module
 */

export type {
  Diagnostic,
  Format,
  ParseAllResult,
  ParseResult,
  ValidationResult,
} from "./types.ts";
export {
  FORMATS,
  MAX_ARGUMENT_LENGTH,
  parse,
  parseAll,
  validate,
  type ValidateOptions,
} from "./validate.ts";
export {
  type FileValidationResult,
  formatForPath,
  type UnsupportedFileResult,
  validateFile,
} from "./file.ts";
export {
  formatDiagnostics,
  type FormatDiagnosticsOptions,
} from "./format_diagnostics.ts";
export type { XmlElement } from "./xml.ts";
export type {
  StandardSchema,
  StandardSchemaIssue,
  StandardSchemaResult,
} from "./standard_schema.ts";
