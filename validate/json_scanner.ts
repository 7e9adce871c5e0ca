// A JSON / JSONC reader written for diagnostics: iterative (an explicit
// stack, so 100 000 nested brackets cannot overflow the call stack), exact
// about where the first error is, and aware of duplicate keys.

import type { Diagnostic } from "./types.ts";
import { Locator } from "./position.ts";

/** What the scanner accepts and produces. */
export interface ScanOptions {
  /** Accept `//` and `/* *\/` comments. */
  comments: boolean;
  /** Accept a comma before `]` or `}`. */
  trailingCommas: boolean;
  /** Build the value (false: only check). */
  buildValue: boolean;
  /** What to call the format in messages, such as "JSON". */
  name: string;
}

/** The scan outcome; `error` is set when the text is not valid. */
export interface ScanResult {
  value: unknown;
  error: Diagnostic | undefined;
  warnings: Diagnostic[];
}

/** At most this many duplicate-key warnings are listed one by one. */
export const MAX_DUPLICATE_WARNINGS = 100;

// Parser states.
/** A value is required (top level, after ':', after ',' in an array). */
const VALUE = 0;
/** Just after '[': a value or ']'. */
const ARRAY_FIRST = 1;
/** Just after '{': a key or '}'. */
const OBJECT_FIRST = 2;
/** After ',' in an object: a key (or '}' with trailing commas). */
const KEY = 3;
/** After a key: ':'. */
const COLON = 4;
/** After a value: ',' or the closing bracket, or the end at top level. */
const AFTER = 5;

interface Frame {
  array: boolean;
  start: number;
  value: unknown[] | Record<string, unknown> | undefined;
  /** Offsets of the keys seen so far, by decoded key. */
  keys: Map<string, number> | undefined;
  key: string;
  keyStart: number;
  /** Offset of the last ',' (for trailing-comma messages). */
  comma: number;
}

class ScanError extends Error {
  start: number;
  end: number | undefined;
  constructor(message: string, start: number, end?: number) {
    super(message);
    this.start = start;
    this.end = end;
  }
}

const LITERALS: [string, unknown][] = [["true", true], ["false", false], [
  "null",
  null,
]];
const WORD_CHAR = /[A-Za-z0-9_$+\-.]/;

const ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

/** Scans `text` as JSON or JSONC; see {@linkcode ScanOptions}. */
export function scanJson(text: string, options: ScanOptions): ScanResult {
  const scanner = new Scanner(text, options);
  let value: unknown;
  let error: Diagnostic | undefined;
  try {
    value = scanner.run();
  } catch (thrown) {
    if (!(thrown instanceof ScanError)) throw thrown;
    error = new Locator(text).diagnostic(
      thrown.start,
      thrown.message,
      "error",
      thrown.end,
    );
  }
  return { value, error, warnings: scanner.warnings() };
}

class Scanner {
  #text: string;
  #options: ScanOptions;
  #pos = 0;
  #duplicates: { start: number; end: number; key: string; first: number }[] =
    [];
  #duplicateCount = 0;

  constructor(text: string, options: ScanOptions) {
    this.#text = text;
    this.#options = options;
  }

  run(): unknown {
    const text = this.#text;
    const build = this.#options.buildValue;
    const stack: Frame[] = [];
    let state: number = VALUE;
    let result: unknown;
    this.#skipSpace();
    if (this.#pos >= text.length) {
      throw new ScanError(
        `Empty text: expected a ${this.#options.name} value`,
        0,
      );
    }
    for (;;) {
      this.#skipSpace();
      const pos = this.#pos;
      const code = text.charCodeAt(pos); // NaN at the end
      const top = stack[stack.length - 1];
      if (state === AFTER) {
        if (top === undefined) {
          if (pos >= text.length) return result;
          throw new ScanError(
            `Unexpected ${
              this.#describe(pos)
            } after the ${this.#options.name} value: expected the end of the text (only one top-level value is allowed)`,
            pos,
            this.#tokenEnd(pos),
          );
        }
        if (code === 44 /* , */) {
          top.comma = pos;
          this.#pos++;
          state = top.array ? VALUE : KEY;
          continue;
        }
        if (code === (top.array ? 93 : 125)) {
          this.#pos++;
          stack.pop();
          result = this.#complete(stack, top.value);
          continue;
        }
        if (pos >= text.length) throw this.#unclosed(top);
        const close = top.array ? "']'" : "'}'";
        const after = top.array ? "an array element" : "a property value";
        throw new ScanError(
          `Expected ',' or ${close} after ${after}, found ${
            this.#describe(pos)
          }`,
          pos,
          this.#tokenEnd(pos),
        );
      }
      if (state === COLON) {
        if (code === 58 /* : */) {
          this.#pos++;
          state = VALUE;
          continue;
        }
        if (pos >= text.length) throw this.#unclosed(top);
        throw new ScanError(
          `Expected ':' after the property name ${
            JSON.stringify(top.key)
          }, found ${this.#describe(pos)}`,
          pos,
          this.#tokenEnd(pos),
        );
      }
      if (state === OBJECT_FIRST || state === KEY) {
        if (code === 125 /* } */) {
          if (state === KEY && !this.#options.trailingCommas) {
            throw this.#trailingComma(top, "'}'");
          }
          this.#pos++;
          stack.pop();
          result = this.#complete(stack, top.value);
          state = AFTER;
          continue;
        }
        if (code === 34 /* " */) {
          const key = this.#string();
          this.#addKey(top, key, pos);
          state = COLON;
          continue;
        }
        if (pos >= text.length) throw this.#unclosed(top);
        throw new ScanError(
          `Expected a property name in double quotes${
            state === OBJECT_FIRST ? " or '}'" : ""
          }, found ${this.#describe(pos)}${
            code === 39
              ? ` (${this.#options.name} strings use double quotes)`
              : ""
          }`,
          pos,
          this.#tokenEnd(pos),
        );
      }
      // VALUE or ARRAY_FIRST: a value is expected.
      if (code === 93 /* ] */ && top !== undefined && top.array) {
        if (state === VALUE && !this.#options.trailingCommas) {
          throw this.#trailingComma(top, "']'");
        }
        this.#pos++;
        stack.pop();
        result = this.#complete(stack, top.value);
        state = AFTER;
        continue;
      }
      if (code === 123 /* { */ || code === 91 /* [ */) {
        const array = code === 91;
        this.#pos++;
        stack.push({
          array,
          start: pos,
          value: build ? (array ? [] : {}) : undefined,
          keys: array ? undefined : new Map(),
          key: "",
          keyStart: -1,
          comma: -1,
        });
        state = array ? ARRAY_FIRST : OBJECT_FIRST;
        continue;
      }
      let value: unknown;
      if (code === 34) {
        value = this.#string();
      } else if (code === 45 || (code >= 48 && code <= 57)) {
        value = this.#number();
      } else if (pos >= text.length) {
        if (top === undefined) {
          throw new ScanError(
            `Unexpected end of the text: expected a ${this.#options.name} value`,
            pos,
          );
        }
        throw this.#unclosed(top);
      } else {
        value = this.#word();
      }
      result = this.#complete(stack, value);
      state = AFTER;
    }
  }

  /** Adds a finished value to the enclosing container; returns it. */
  #complete(stack: Frame[], value: unknown): unknown {
    const top = stack[stack.length - 1];
    if (top === undefined || top.value === undefined) return value;
    if (top.array) {
      (top.value as unknown[]).push(value);
    } else if (top.key === "__proto__") {
      // Assignment would set the prototype; JSON.parse makes a property.
      Object.defineProperty(top.value, "__proto__", {
        value,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    } else {
      (top.value as Record<string, unknown>)[top.key] = value;
    }
    return value;
  }

  #addKey(frame: Frame, key: string, start: number): void {
    frame.key = key;
    frame.keyStart = start;
    const keys = frame.keys!;
    const first = keys.get(key);
    if (first === undefined) {
      keys.set(key, start);
      return;
    }
    this.#duplicateCount++;
    if (this.#duplicates.length < MAX_DUPLICATE_WARNINGS) {
      this.#duplicates.push({ start, end: this.#pos, key, first });
    }
  }

  warnings(): Diagnostic[] {
    if (this.#duplicates.length === 0) return [];
    const locator = new Locator(this.#text);
    const firsts = new Locator(this.#text);
    const warnings: Diagnostic[] = [];
    // Sorted so each locator walks forward only.
    const byFirst = [...this.#duplicates].sort((a, b) => a.first - b.first);
    const firstPositions = new Map<number, string>();
    for (const { first } of byFirst) {
      const at = firsts.position(first);
      firstPositions.set(first, `line ${at.line}, column ${at.column}`);
    }
    for (const duplicate of this.#duplicates) {
      warnings.push(locator.diagnostic(
        duplicate.start,
        `Duplicate key ${JSON.stringify(duplicate.key)} (first at ${
          firstPositions.get(duplicate.first)
        }): most readers silently keep only the last value`,
        "warning",
        duplicate.end,
      ));
    }
    const more = this.#duplicateCount - this.#duplicates.length;
    if (more > 0) {
      const last = warnings[warnings.length - 1];
      warnings.push({
        line: last.line,
        column: last.column,
        message: `${more} more duplicate keys not listed`,
        severity: "warning",
      });
    }
    return warnings;
  }

  #string(): string {
    const text = this.#text;
    const start = this.#pos;
    let i = start + 1;
    let chunkStart = i;
    let out = "";
    for (;;) {
      const code = text.charCodeAt(i);
      if (code === 34) {
        this.#pos = i + 1;
        return out + text.slice(chunkStart, i);
      }
      if (code === 92 /* \ */) {
        out += text.slice(chunkStart, i);
        const next = text[i + 1];
        if (next === "u") {
          const hex = text.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
            throw new ScanError(
              "Invalid unicode escape: expected four hex digits after \\u",
              i,
              i + 2 + (/^[0-9a-fA-F]*/.exec(hex)![0].length),
            );
          }
          out += String.fromCharCode(parseInt(hex, 16));
          i += 6;
        } else if (next !== undefined && next in ESCAPES) {
          out += ESCAPES[next];
          i += 2;
        } else if (next === undefined) {
          throw this.#unterminated(start);
        } else {
          throw new ScanError(
            `Invalid escape '\\${
              String.fromCodePoint(text.codePointAt(i + 1)!)
            }' in a string: expected one of \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX`,
            i,
            i + 2,
          );
        }
        chunkStart = i;
        continue;
      }
      if (code < 0x20 || Number.isNaN(code)) {
        if (Number.isNaN(code)) throw this.#unterminated(start);
        if (code === 10 || code === 13) {
          throw new ScanError(
            "Line break in a string: expected the closing '\"' before the end of the line (write a line break as \\n)",
            i,
          );
        }
        throw new ScanError(
          `Control character U+${
            code.toString(16).toUpperCase().padStart(4, "0")
          } in a string: expected it escaped (such as \\t or \\u${
            code.toString(16).toUpperCase().padStart(4, "0")
          })`,
          i,
          i + 1,
        );
      }
      i++;
    }
  }

  #unterminated(start: number): ScanError {
    return new ScanError(
      "Unterminated string: expected a closing '\"'",
      start,
      this.#lineEnd(start),
    );
  }

  #number(): number {
    const text = this.#text;
    const start = this.#pos;
    let i = start;
    if (text.charCodeAt(i) === 45) i++;
    const intStart = i;
    if (!isDigit(text.charCodeAt(i))) {
      throw new ScanError(
        `Expected a digit after '-', found ${this.#describe(i)}`,
        i,
        this.#tokenEnd(i),
      );
    }
    if (text.charCodeAt(i) === 48 && isDigit(text.charCodeAt(i + 1))) {
      throw new ScanError(
        `Numbers cannot have leading zeros: found ${
          this.#quote(start, this.#tokenEnd(start))
        }`,
        intStart,
        this.#tokenEnd(start),
      );
    }
    while (isDigit(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) === 46 /* . */) {
      i++;
      if (!isDigit(text.charCodeAt(i))) {
        throw new ScanError(
          `Expected a digit after the decimal point, found ${
            this.#describe(i)
          }`,
          i,
          this.#tokenEnd(i),
        );
      }
      while (isDigit(text.charCodeAt(i))) i++;
    }
    const e = text.charCodeAt(i);
    if (e === 101 || e === 69) {
      i++;
      const sign = text.charCodeAt(i);
      if (sign === 43 || sign === 45) i++;
      if (!isDigit(text.charCodeAt(i))) {
        throw new ScanError(
          `Expected a digit in the exponent, found ${this.#describe(i)}`,
          i,
          this.#tokenEnd(i),
        );
      }
      while (isDigit(text.charCodeAt(i))) i++;
    }
    this.#pos = i;
    return this.#options.buildValue ? Number(text.slice(start, i)) : 0;
  }

  #word(): unknown {
    const text = this.#text;
    const start = this.#pos;
    for (const [word, value] of LITERALS) {
      if (
        text.startsWith(word, start) &&
        !WORD_CHAR.test(text[start + word.length] ?? "")
      ) {
        this.#pos = start + word.length;
        return value;
      }
    }
    const end = this.#tokenEnd(start);
    const word = text.slice(start, end);
    const code = text.charCodeAt(start);
    let hint = "";
    if (code === 39) {
      hint = ` (${this.#options.name} strings use double quotes)`;
    } else if (code === 43) hint = " (numbers cannot start with '+')";
    else if (code === 46) hint = " (numbers must start with a digit)";
    else if (/^(?:NaN|-?Infinity|undefined)$/.test(word)) {
      hint = ` (${word} is not a JSON value)`;
    } else if (/^(?:true|false|null)$/i.test(word)) {
      hint = ` (literals are lowercase: ${word.toLowerCase()})`;
    }
    throw new ScanError(
      `Unexpected ${
        this.#describe(start)
      }: expected a value (object, array, string, number, true, false or null)${hint}`,
      start,
      end,
    );
  }

  #skipSpace(): void {
    const text = this.#text;
    let i = this.#pos;
    for (;;) {
      const code = text.charCodeAt(i);
      if (code === 32 || code === 10 || code === 13 || code === 9) {
        i++;
        continue;
      }
      if (code === 47 /* / */) {
        const next = text.charCodeAt(i + 1);
        if (next !== 47 && next !== 42) break;
        if (!this.#options.comments) {
          throw new ScanError(
            `Comments are not allowed in ${this.#options.name}: expected a value or punctuation (use JSONC for comments)`,
            i,
            i + 2,
          );
        }
        if (next === 47) {
          i = this.#lineEnd(i);
        } else {
          const close = text.indexOf("*/", i + 2);
          if (close === -1) {
            throw new ScanError(
              "Unterminated block comment: expected '*/'",
              i,
              i + 2,
            );
          }
          i = close + 2;
        }
        continue;
      }
      if (
        code === 0xa0 || code === 0xfeff || code === 11 || code === 12 ||
        (code >= 0x2000 && code <= 0x200b) || code === 0x2028 ||
        code === 0x2029 || code === 0x3000
      ) {
        throw new ScanError(
          `Unexpected whitespace character U+${
            code.toString(16).toUpperCase().padStart(4, "0")
          }: ${this.#options.name} allows only space, tab, line feed and carriage return`,
          i,
          i + 1,
        );
      }
      break;
    }
    this.#pos = i;
  }

  #trailingComma(frame: Frame, close: string): ScanError {
    return new ScanError(
      `Trailing comma before ${close}: ${this.#options.name} does not allow a comma after the last ${
        frame.array ? "element" : "property"
      }`,
      frame.comma,
      frame.comma + 1,
    );
  }

  #unclosed(frame: Frame): ScanError {
    const at = new Locator(this.#text).position(frame.start);
    const what = frame.array ? "array" : "object";
    const close = frame.array ? "']'" : "'}'";
    return new ScanError(
      `Unexpected end of the text: expected ${close} to close the ${what} opened at line ${at.line}, column ${at.column}`,
      this.#text.length,
    );
  }

  /** The end of the word-like token at `start` (at least one character). */
  #tokenEnd(start: number): number {
    const text = this.#text;
    if (start >= text.length) return start;
    let i = start;
    while (i < text.length && WORD_CHAR.test(text[i])) i++;
    if (i === start) {
      i += text.codePointAt(start)! > 0xffff ? 2 : 1;
    }
    return i;
  }

  #lineEnd(start: number): number {
    const text = this.#text;
    let i = start;
    while (i < text.length) {
      const code = text.charCodeAt(i);
      if (code === 10 || code === 13) break;
      i++;
    }
    return i;
  }

  #describe(pos: number): string {
    if (pos >= this.#text.length) return "the end of the text";
    const end = this.#tokenEnd(pos);
    const token = this.#text.slice(pos, end);
    const code = token.codePointAt(0)!;
    if (code < 0x20 || code === 0x7f) {
      return `control character U+${
        code.toString(16).toUpperCase().padStart(4, "0")
      }`;
    }
    return this.#quote(pos, end);
  }

  #quote(start: number, end: number): string {
    let token = this.#text.slice(start, end);
    if (token === '"') {
      // Show the whole string token, which says more than its quote.
      const close = this.#text.indexOf('"', start + 1);
      const line = this.#lineEnd(start);
      if (close !== -1 && close < line) {
        token = this.#text.slice(start, close + 1);
      }
    }
    if (token.length > 40) token = token.slice(0, 40) + "…";
    return token.includes("'") ? `"${token}"` : `'${token}'`;
  }
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}
