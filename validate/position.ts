// Converts UTF-16 offsets (what JavaScript parsers report) to 1-based
// line:column positions counted in code points, the unit editors and models
// use. Line breaks are "\n", "\r\n" and a lone "\r".

import type { Diagnostic } from "./types.ts";

/** A 1-based position. */
export interface Position {
  line: number;
  column: number;
}

/**
 * Maps offsets of one text to positions. Calls with growing offsets cost
 * only the distance walked since the previous call, so reporting many
 * diagnostics stays linear in the text size.
 */
export class Locator {
  #text: string;
  #offset = 0;
  #line = 1;
  #column = 1;

  constructor(text: string) {
    this.#text = text;
  }

  /** The position of the code unit at `offset` (clamped to the text). */
  position(offset: number): Position {
    const text = this.#text;
    let target = Math.max(0, Math.min(offset, text.length));
    // An offset inside a surrogate pair means the character it belongs to.
    if (
      target > 0 && (text.charCodeAt(target) & 0xfc00) === 0xdc00 &&
      (text.charCodeAt(target - 1) & 0xfc00) === 0xd800
    ) {
      target--;
    }
    if (target < this.#offset) {
      this.#offset = 0;
      this.#line = 1;
      this.#column = 1;
    }
    let i = this.#offset;
    let line = this.#line;
    let column = this.#column;
    while (i < target) {
      const code = text.charCodeAt(i);
      if (code === 10) {
        line++;
        column = 1;
      } else if (code === 13) {
        if (text.charCodeAt(i + 1) !== 10) {
          line++;
          column = 1;
        } else {
          // The "\n" of a "\r\n" ends the line; the "\r" is its last column.
          column++;
        }
      } else if (
        code >= 0xd800 && code <= 0xdbff && i + 1 < target &&
        (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00
      ) {
        i++;
        column++;
      } else {
        column++;
      }
      i++;
    }
    this.#offset = i;
    this.#line = line;
    this.#column = column;
    return { line, column };
  }

  /** A diagnostic spanning `[start, end)`, or at `start` when no end. */
  diagnostic(
    start: number,
    message: string,
    severity: "error" | "warning" = "error",
    end?: number,
  ): Diagnostic {
    const from = this.position(start);
    const diagnostic: Diagnostic = {
      line: from.line,
      column: from.column,
      message,
      severity,
    };
    if (end !== undefined && end > start) {
      const to = this.position(end);
      diagnostic.endLine = to.line;
      diagnostic.endColumn = to.column;
    }
    return diagnostic;
  }
}

/** The offset where 1-based `line` starts, lines split on "\n" only. */
export function offsetOfLine(text: string, line: number): number {
  let offset = 0;
  for (let current = 1; current < line; current++) {
    const next = text.indexOf("\n", offset);
    if (next === -1) return text.length;
    offset = next + 1;
  }
  return offset;
}
