// Turns the caller's input into the text the parsers read: decodes bytes as
// strict UTF-8, refuses lone surrogates, and strips one leading byte order
// mark so that no parser trips over it.

import type { Diagnostic } from "./types.ts";
import { Locator } from "./position.ts";

/** The text to parse, or the diagnostic saying why there is none. */
export type PreparedInput =
  | { text: string; bom: boolean; error?: undefined }
  | { text?: undefined; bom: boolean; error: Diagnostic };

const DECODER = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const LONE_SURROGATE =
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Decodes and checks `input`; see {@linkcode PreparedInput}. */
export function prepareInput(input: string | Uint8Array): PreparedInput {
  if (typeof input === "string") return prepareString(input);
  if (!(input instanceof Uint8Array)) {
    throw new TypeError(
      `Cannot validate: expected the text as a string or Uint8Array, got ${
        describe(input)
      }`,
    );
  }
  if (
    input.length >= 2 &&
    ((input[0] === 0xfe && input[1] === 0xff) ||
      (input[0] === 0xff && input[1] === 0xfe))
  ) {
    return {
      bom: true,
      error: {
        line: 1,
        column: 1,
        message:
          "Text is UTF-16 encoded (it starts with a UTF-16 byte order mark): expected UTF-8",
        severity: "error",
      },
    };
  }
  let text: string;
  try {
    text = DECODER.decode(input);
  } catch {
    return { bom: false, error: invalidUtf8(input) };
  }
  return prepareString(text);
}

function prepareString(input: string): PreparedInput {
  const bom = input.charCodeAt(0) === 0xfeff;
  const text = bom ? input.slice(1) : input;
  if (!text.isWellFormed()) {
    const match = LONE_SURROGATE.exec(text)!;
    const code = match[0].charCodeAt(0).toString(16).toUpperCase();
    return {
      bom,
      error: new Locator(text).diagnostic(
        match.index,
        `Text contains a lone surrogate U+${code}: expected well-formed Unicode text (it cannot be written as UTF-8)`,
        "error",
        match.index + 1,
      ),
    };
  }
  return { text, bom };
}

// Finds the first byte that breaks UTF-8 and reports where it sits in the
// valid text before it.
function invalidUtf8(bytes: Uint8Array): Diagnostic {
  const bad = firstInvalidUtf8(bytes);
  let start = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
  const before = DECODER.decode(bytes.subarray(start, bad));
  const end = before.length;
  const position = new Locator(before).position(end);
  const hex = bytes[bad].toString(16).toUpperCase().padStart(2, "0");
  return {
    line: position.line,
    column: position.column,
    message:
      `Text is not valid UTF-8: byte 0x${hex} at byte offset ${bad} does not form a valid UTF-8 sequence: expected UTF-8 text`,
    severity: "error",
  };
}

function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    let max = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = b === 0xe0 ? 0xa0 : 0x80;
      if (b === 0xed) max = 0x9f; // no surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = b === 0xf0 ? 0x90 : 0x80;
      if (b === 0xf4) max = 0x8f;
    } else {
      return i;
    }
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      const lo = k === 1 ? min : 0x80;
      const hi = k === 1 ? max : 0xbf;
      if (c === undefined || c < lo || c > hi) return i;
    }
    i += need + 1;
  }
  return bytes.length;
}

/** A short description of a value's type for error messages. */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object"
    ? `an object (${Object.prototype.toString.call(value).slice(8, -1)})`
    : typeof value;
}
