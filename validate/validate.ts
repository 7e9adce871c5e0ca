// validate() and parse(): input checks, then the format's parser.

import type {
  Diagnostic,
  Format,
  ParseAllResult,
  ParseResult,
  ValidationResult,
} from "./types.ts";
import { prepareInput } from "./input.ts";
import { parseJson } from "./json.ts";
import { parseJsonc } from "./jsonc.ts";
import { parseYamlDocument, parseYamlStream } from "./yaml.ts";
import { parseToml } from "./toml.ts";
import { parseXml } from "./xml.ts";
import { parseRegex } from "./regex.ts";
import { parseGlob } from "./glob.ts";
import { parseUrl } from "./url.ts";
import { parseProbePattern } from "./probe_pattern.ts";
import type { Parsed } from "./parsed.ts";

/**
 * Every format name, in the order the docs list them.
 *
 * @example Listing the formats in a tool description
 * ```ts
 * import { FORMATS } from "@forge/toolkit/validate";
 *
 * console.log(`format: one of ${FORMATS.join(", ")}`);
 * ```
 */
export const FORMATS: readonly Format[] = Object.freeze([
  "json",
  "jsonc",
  "yaml",
  "toml",
  "xml",
  "regex",
  "glob",
  "url",
  "pattern",
]);

/**
 * The longest text the argument formats (`regex`, `glob`, `url`,
 * `pattern`) accept, in UTF-16 code units: 64 KiB. These are strings a
 * tool takes as an argument; anything longer is refused with a diagnostic
 * rather than compiled.
 *
 * @example Checking the limit before asking a model for a shorter pattern
 * ```ts
 * import { MAX_ARGUMENT_LENGTH } from "@forge/toolkit/validate";
 *
 * const pattern = "^a+$";
 * console.log(pattern.length <= MAX_ARGUMENT_LENGTH); // true
 * ```
 */
export const MAX_ARGUMENT_LENGTH = 65_536;

/**
 * Options for {@linkcode validate} and {@linkcode parse}.
 *
 * @example Validating a regex with its flags
 * ```ts
 * import { validate, type ValidateOptions } from "@forge/toolkit/validate";
 *
 * const options: ValidateOptions = { flags: "iu" };
 * console.log(validate("\\p{Lu}+", "regex", options).ok); // true
 * ```
 */
export interface ValidateOptions {
  /**
   * The flags for the `regex` format, as the second argument of
   * `new RegExp()` (such as `"gi"`). Ignored by the other formats.
   *
   * @default {""}
   */
  flags?: string;
}

// The second argument says whether the caller wants the value; parsers
// that can check without building it (JSONC, XML) skip that work.
const DOCUMENT_PARSERS: Record<
  string,
  (text: string, buildValue: boolean) => Parsed
> = {
  json: parseJson,
  jsonc: parseJsonc,
  yaml: parseYamlDocument,
  toml: parseToml,
  xml: parseXml,
};

/**
 * Parses `text` as `format` and returns the value with any warnings, or the
 * diagnostics that say where and what is wrong. The text is parsed once.
 *
 * `text` may be a string or UTF-8 bytes; bytes that are not valid UTF-8, a
 * UTF-16 byte order mark or a lone surrogate give an error diagnostic. A
 * leading UTF-8 byte order mark is skipped (columns on line 1 do not count
 * it); for `json` it also gives a warning, as `JSON.parse` rejects it.
 *
 * Values: `json`/`jsonc`/`toml` give plain data; `yaml` gives its one
 * document (`null` for an empty stream), and a stream of several documents
 * is an error at the line:column where the second starts: read those with
 * {@linkcode parseAll}; `xml` gives the root {@linkcode XmlElement};
 * `regex` a `RegExp`; `url` a `URL`; `pattern` `{ verb, target }`; `glob`
 * the pattern string.
 *
 * @example Parsing YAML
 * ```ts
 * import { parse } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * const result = parse("name: demo\nport: 8080\n", "yaml");
 * assert.ok(result.ok);
 * assert.deepEqual(result.value, { name: "demo", port: 8080 });
 * ```
 *
 * @throws {TypeError} When `format` is not a {@linkcode Format} or `text`
 * is neither a string nor a `Uint8Array`.
 */
export function parse(
  text: string | Uint8Array,
  format: Format,
  options: ValidateOptions = {},
): ParseResult {
  return run(text, format, options, true, false);
}

/**
 * Parses every document of a YAML stream, as `parseAll` does in @std/yaml:
 * the value is an array with one entry per document (`[]` for an empty
 * stream). Diagnostics and input rules are those of {@linkcode parse}.
 *
 * @example Reading a multi-document stream
 * ```ts
 * import { parseAll } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * const result = parseAll("kind: Service\n---\nkind: Deployment\n", "yaml");
 * assert.ok(result.ok);
 * assert.deepEqual(result.value, [{ kind: "Service" }, { kind: "Deployment" }]);
 * ```
 *
 * @throws {TypeError} When `format` is not `"yaml"` (the one format whose
 * text may hold several documents) or `text` is neither a string nor a
 * `Uint8Array`.
 */
export function parseAll(
  text: string | Uint8Array,
  format: "yaml",
  options: ValidateOptions = {},
): ParseAllResult {
  if (format !== "yaml") {
    throw new TypeError(
      `Cannot parse all documents: only yaml holds several documents, got ${
        JSON.stringify(format)
      }`,
    );
  }
  return run(text, format, options, true, true) as ParseAllResult;
}

function run(
  text: string | Uint8Array,
  format: Format,
  options: ValidateOptions,
  buildValue: boolean,
  stream: boolean,
): ParseResult {
  // A YAML stream of several documents is well-formed: validate() and
  // parseAll() accept it, parse() wants the one document it returns.
  const document = stream && format === "yaml"
    ? parseYamlStream
    : DOCUMENT_PARSERS[format];
  const parser = document === undefined
    ? argumentParser(format, options)
    : (source: string) => document(source, buildValue);
  const input = prepareInput(text);
  if (input.error !== undefined) {
    return { ok: false, format, diagnostics: [input.error] };
  }
  const source = input.text;
  const parsed = parser(source);
  let diagnostics: Diagnostic[] = parsed.diagnostics;
  if (input.bom && format === "json") {
    diagnostics = [{
      line: 1,
      column: 1,
      message:
        "Byte order mark at the start of the text: ignored here, but JSON.parse and many JSON readers reject it; save the file without it",
      severity: "warning",
    }, ...diagnostics];
  }
  if (parsed.ok && !diagnostics.some((d) => d.severity === "error")) {
    return { ok: true, format, value: parsed.value, diagnostics };
  }
  return { ok: false, format, diagnostics };
}

/**
 * Checks that `text` is well-formed `format`. `ok` is false exactly when an
 * error-severity diagnostic exists; warnings (such as duplicate JSON keys)
 * leave it true. See {@linkcode parse} for what the input may be.
 *
 * @example Finding a trailing comma
 * ```ts
 * import { validate } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * const result = validate('{\n  "a": 1,\n}', "json");
 * assert.equal(result.ok, false);
 * assert.equal(result.diagnostics[0].line, 2);
 * assert.equal(result.diagnostics[0].column, 9);
 * ```
 *
 * @throws {TypeError} When `format` is not a {@linkcode Format} or `text`
 * is neither a string nor a `Uint8Array`.
 */
export function validate(
  text: string | Uint8Array,
  format: Format,
  options: ValidateOptions = {},
): ValidationResult {
  const result = run(text, format, options, false, true);
  return result.ok
    ? { ok: true, format, diagnostics: result.diagnostics }
    : { ok: false, format, diagnostics: result.diagnostics };
}

function argumentParser(
  format: Format,
  options: ValidateOptions,
): (text: string) => Parsed {
  let parser: (text: string) => Parsed;
  switch (format) {
    case "regex": {
      const flags = options.flags ?? "";
      if (typeof flags !== "string") {
        throw new TypeError(
          `Cannot validate: the regex flags must be a string, got ${typeof flags}`,
        );
      }
      parser = (text) => parseRegex(text, flags);
      break;
    }
    case "glob":
      parser = parseGlob;
      break;
    case "url":
      parser = parseUrl;
      break;
    case "pattern":
      parser = parseProbePattern;
      break;
    default:
      throw new TypeError(
        `Cannot validate: unknown format ${
          JSON.stringify(format)
        }: expected one of ${FORMATS.join(", ")}`,
      );
  }
  return (text) => {
    if (text.length > MAX_ARGUMENT_LENGTH) {
      return {
        ok: false,
        diagnostics: [{
          line: 1,
          column: 1,
          message:
            `Text too long for the ${format} format: ${text.length} characters, expected at most ${MAX_ARGUMENT_LENGTH}`,
          severity: "error",
        }],
      };
    }
    return parser(text);
  };
}
