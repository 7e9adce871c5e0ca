// Renders diagnostics the way compilers do: `path:line:column: message`,
// then the offending line with a caret under the column.

import type { Diagnostic } from "./types.ts";

/**
 * Options for {@linkcode formatDiagnostics}.
 *
 * @example Two lines of context and a narrow frame
 * ```ts
 * import {
 *   formatDiagnostics,
 *   type FormatDiagnosticsOptions,
 *   validate,
 * } from "@forge/toolkit/validate";
 *
 * const source = "a = 1\nb = \n";
 * const options: FormatDiagnosticsOptions = {
 *   path: "config.toml",
 *   source,
 *   contextLines: 2,
 *   maxWidth: 60,
 * };
 * console.log(formatDiagnostics(validate(source, "toml"), options));
 * ```
 */
export interface FormatDiagnosticsOptions {
  /**
   * The file name printed before each position.
   *
   * @default {"<input>"}
   */
  path?: string;
  /**
   * The text the diagnostics are about. With it, each diagnostic gets a code
   * frame; without it, only the `path:line:column: message` line.
   *
   * @default {undefined}
   */
  source?: string | Uint8Array;
  /**
   * How many lines before the offending one the frame shows.
   *
   * @default {1}
   */
  contextLines?: number;
  /**
   * The widest source line shown, in columns; longer lines are cut around
   * the caret and marked with `…`.
   *
   * @default {100}
   */
  maxWidth?: number;
}

const LENIENT = new TextDecoder();
const LINE_BREAK = /\r\n|\r|\n/;
const COMBINING = /^\p{M}$/u;

/**
 * Renders a result's diagnostics as text a model (or a person) reads best:
 * one `path:line:column: message` line per diagnostic (warnings say
 * `warning:` before the message), followed, when `source` is given, by the
 * line before, the offending line and a caret under the column. Returns an
 * empty string when there are no diagnostics.
 *
 * @example A YAML error with its code frame
 * ```ts
 * import { formatDiagnostics, validate } from "@forge/toolkit/validate";
 *
 * const source = "name: demo\nname: again\n";
 * const result = validate(source, "yaml");
 * console.log(formatDiagnostics(result, { path: "app.yaml", source }));
 * // app.yaml:2:1: Duplicate key "name" in a mapping: YAML keys must be unique
 * //   1 | name: demo
 * //   2 | name: again
 * //     | ^
 * ```
 */
export function formatDiagnostics(
  result: { diagnostics: readonly Diagnostic[] },
  options: FormatDiagnosticsOptions = {},
): string {
  if (
    result === null || typeof result !== "object" ||
    !Array.isArray(result.diagnostics)
  ) {
    throw new TypeError(
      "Cannot format diagnostics: expected a result with a diagnostics array",
    );
  }
  const {
    path = "<input>",
    source,
    contextLines = 1,
    maxWidth = 100,
  } = options;
  if (!Number.isInteger(contextLines) || contextLines < 0) {
    throw new RangeError(
      `Cannot format diagnostics: contextLines must be a whole number >= 0, got ${contextLines}`,
    );
  }
  if (!Number.isInteger(maxWidth) || maxWidth < 20) {
    throw new RangeError(
      `Cannot format diagnostics: maxWidth must be a whole number >= 20, got ${maxWidth}`,
    );
  }
  let lines: string[] | undefined;
  if (source !== undefined) {
    let text = typeof source === "string" ? source : LENIENT.decode(source);
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    lines = text.split(LINE_BREAK);
  }
  const blocks: string[] = [];
  for (const diagnostic of result.diagnostics) {
    const label = diagnostic.severity === "warning" ? "warning: " : "";
    let block =
      `${path}:${diagnostic.line}:${diagnostic.column}: ${label}${diagnostic.message}`;
    if (lines !== undefined && diagnostic.line <= lines.length) {
      block += "\n" + codeFrame(lines, diagnostic, contextLines, maxWidth);
    }
    blocks.push(block);
  }
  return blocks.join("\n");
}

function codeFrame(
  lines: string[],
  diagnostic: Diagnostic,
  contextLines: number,
  maxWidth: number,
): string {
  const first = Math.max(1, diagnostic.line - contextLines);
  const gutter = String(diagnostic.line).length;
  const out: string[] = [];
  const target = Array.from(lines[diagnostic.line - 1]);
  // Cut long lines to a window that keeps the caret in view.
  const column = Math.min(diagnostic.column, target.length + 1);
  let start = 0;
  if (target.length > maxWidth) {
    start = Math.max(
      0,
      Math.min(column - 1 - (maxWidth >> 1), target.length - maxWidth),
    );
  }
  for (let line = first; line <= diagnostic.line; line++) {
    const chars = line === diagnostic.line
      ? target
      : Array.from(lines[line - 1]);
    out.push(
      ` ${String(line).padStart(gutter)} | ${window(chars, start, maxWidth)}`,
    );
  }
  let caretStart = column - 1;
  let caretEnd = caretStart + 1;
  if (
    diagnostic.endLine === diagnostic.line && diagnostic.endColumn !== undefined
  ) {
    caretEnd = Math.max(
      caretEnd,
      Math.min(diagnostic.endColumn - 1, target.length),
    );
  }
  caretStart = Math.max(caretStart, start);
  caretEnd = Math.min(caretEnd, start + maxWidth);
  let pad = start > 0 ? " " : "";
  for (let i = start; i < caretStart; i++) pad += blankFor(target[i]);
  let marks = "^";
  for (let i = caretStart + 1; i < caretEnd; i++) {
    marks += "~".repeat(width(target[i]));
  }
  out.push(` ${" ".repeat(gutter)} | ${pad}${marks}`);
  return out.join("\n");
}

function window(chars: string[], start: number, maxWidth: number): string {
  let text = chars.slice(start, start + maxWidth).join("");
  if (start > 0) text = "…" + text;
  if (chars.length > start + maxWidth) text += "…";
  return text;
}

// Padding that lines up under a character: tabs stay tabs, wide characters
// take two cells, combining marks none.
function blankFor(char: string): string {
  return char === "\t" ? "\t" : " ".repeat(width(char));
}

function width(char: string | undefined): number {
  if (char === undefined) return 1;
  if (COMBINING.test(char)) return 0;
  const code = char.codePointAt(0)!;
  return isWide(code) ? 2 : 1;
}

function isWide(code: number): boolean {
  return (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf && code !== 0x303f) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1f64f) ||
    (code >= 0x1f900 && code <= 0x1f9ff) ||
    (code >= 0x20000 && code <= 0x3fffd);
}
