// Picks a format from a file path and validates by it.

import type { Diagnostic, Format, ValidationResult } from "./types.ts";
import { validate } from "./validate.ts";

/**
 * What `validateFile()` returns for a path whose format it cannot tell: a
 * failed result whose `format` is `undefined` and whose one diagnostic names
 * the extension and the ones that are known.
 *
 * @example Telling "unsupported" from "invalid"
 * ```ts
 * import { validateFile } from "@forge/toolkit/validate";
 *
 * const result = validateFile("notes.txt", "hello");
 * if (result.format === undefined) console.log(result.diagnostics[0].message);
 * ```
 */
export interface UnsupportedFileResult {
  /** Always false: nothing was validated. */
  ok: false;
  /** Always undefined: no format matches the path. */
  format: undefined;
  /** One error at 1:1 saying which extension is unknown. */
  diagnostics: Diagnostic[];
}

/**
 * The result of `validateFile()`: a {@linkcode ValidationResult}, or an
 * {@linkcode UnsupportedFileResult} when the path names no known format.
 *
 * @example Narrowing the result
 * ```ts
 * import { validateFile } from "@forge/toolkit/validate";
 *
 * const result = validateFile("config.toml", 'name = "demo"');
 * console.log(result.ok, result.format); // true "toml"
 * ```
 */
export type FileValidationResult = ValidationResult | UnsupportedFileResult;

// Files that are JSON with comments by convention, whatever their extension.
const JSONC_NAMES = new Set([
  "tsconfig.json",
  "jsconfig.json",
  "deno.json",
  "deno.jsonc",
  "devcontainer.json",
  ".devcontainer.json",
  ".eslintrc.json",
  "tslint.json",
  "api-extractor.json",
  "typedoc.json",
  "language-configuration.json",
]);
const JSONC_PREFIXES = ["tsconfig.", "jsconfig."];

// TOML files without a .toml extension.
const TOML_NAMES = new Set(["cargo.lock", "poetry.lock", "uv.lock", "pipfile"]);

const EXTENSIONS: Readonly<Record<string, Format>> = {
  ".json": "json",
  ".geojson": "json",
  ".jsonld": "json",
  ".webmanifest": "json",
  ".jsonc": "jsonc",
  ".code-workspace": "jsonc",
  ".yaml": "yaml",
  ".yml": "yaml",
  ".toml": "toml",
  ".xml": "xml",
  ".xsd": "xml",
  ".xsl": "xml",
  ".xslt": "xml",
  ".svg": "xml",
  ".plist": "xml",
  ".pom": "xml",
  ".csproj": "xml",
  ".fsproj": "xml",
  ".vbproj": "xml",
  ".props": "xml",
  ".targets": "xml",
  ".nuspec": "xml",
  ".resx": "xml",
  ".xaml": "xml",
  ".wsdl": "xml",
  ".rss": "xml",
  ".atom": "xml",
  ".xhtml": "xml",
  ".kml": "xml",
  ".gpx": "xml",
};

/**
 * The format a file path implies, or `undefined` when it implies none.
 * Matching ignores case and accepts `/` and `\` separators. JSON files that
 * conventionally allow comments (`tsconfig.json`, `tsconfig.*.json`,
 * `deno.json`, `.vscode/*.json`, `devcontainer.json`, …) are `"jsonc"`.
 *
 * @example Extension rules
 * ```ts
 * import { formatForPath } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * assert.equal(formatForPath("app/config.yml"), "yaml");
 * assert.equal(formatForPath("tsconfig.json"), "jsonc");
 * assert.equal(formatForPath(".vscode/settings.json"), "jsonc");
 * assert.equal(formatForPath("package.json"), "json");
 * assert.equal(formatForPath("README.md"), undefined);
 * ```
 */
export function formatForPath(path: string): Format | undefined {
  if (typeof path !== "string") {
    throw new TypeError(
      `Cannot pick a format: expected the path as a string, got ${typeof path}`,
    );
  }
  const segments = path.toLowerCase().split(/[\\/]/);
  const name = segments[segments.length - 1];
  const parent = segments[segments.length - 2];
  const extension = extensionOf(name);
  if (extension === ".json") {
    if (JSONC_NAMES.has(name) || parent === ".vscode") return "jsonc";
    if (JSONC_PREFIXES.some((prefix) => name.startsWith(prefix))) {
      return "jsonc";
    }
  }
  if (TOML_NAMES.has(name)) return "toml";
  return extension === "" ? undefined : EXTENSIONS[extension];
}

/**
 * Validates `text` in the format its `path` implies (see
 * {@linkcode formatForPath}). An unknown extension is not an exception: the
 * result has `format: undefined` and one diagnostic saying so.
 *
 * @example Validating a file an agent wants to write
 * ```ts
 * import { validateFile } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * const result = validateFile("ci.yml", "on: push\njobs: [\n");
 * assert.equal(result.ok, false);
 * assert.equal(result.format, "yaml");
 * ```
 */
export function validateFile(
  path: string,
  text: string | Uint8Array,
): FileValidationResult {
  const format = formatForPath(path);
  if (format === undefined) {
    const segments = path.split(/[\\/]/);
    const extension = extensionOf(segments[segments.length - 1]);
    const what = extension === ""
      ? `no file extension: ${path}`
      : `unknown file extension: ${extension}`;
    return {
      ok: false,
      format: undefined,
      diagnostics: [{
        line: 1,
        column: 1,
        message: `Cannot validate: ${what} (expected one of ${
          Object.keys(EXTENSIONS).join(", ")
        })`,
        severity: "error",
      }],
    };
  }
  return validate(text, format);
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  // A leading dot names a hidden file, not an extension.
  return dot <= 0 ? "" : name.slice(dot);
}
