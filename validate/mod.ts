/**
 * Syntax validators with exact `line:column` diagnostics, for tools that
 * must refuse broken content with a message a model can act on.
 *
 * ```ts
 * import { validate } from "@forge/toolkit/validate";
 *
 * const result = validate("name: demo\nname: again\n", "yaml");
 * if (!result.ok) console.log(result.diagnostics[0].line); // 2
 * ```
 *
 * @module
 */

export type {
  Diagnostic,
  Format,
  ParseResult,
  ValidationResult,
} from "./types.ts";
export { FORMATS, parse, validate } from "./validate.ts";
export type { XmlElement } from "./xml.ts";
