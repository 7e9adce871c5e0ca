// Strict JSON (RFC 8259). Valid text takes the engine's JSON.parse plus a
// cheap exact test for duplicate keys; the scanner (json_scanner.ts) runs
// only when the text is invalid, has duplicates, or has keys with a
// backslash (see engineResultIsExact for why).

import type { Diagnostic } from "./types.ts";
import { Locator } from "./position.ts";
import { scanJson } from "./json_scanner.ts";
import type { Parsed } from "./parsed.ts";

const V8_POSITION = / in JSON at position (\d+)(?: \(line \d+ column \d+\))?$/;
const QUOTE = /"/g;

/** Parses strict JSON: no comments, no trailing commas; duplicate keys warn. */
export function parseJson(text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const scan = scanJson(text, { ...STRICT, buildValue: false });
    return {
      ok: false,
      diagnostics: [scan.error ?? locateEngineError(text, error as Error)],
    };
  }
  if (engineResultIsExact(text, value)) {
    return { ok: true, value, diagnostics: [] };
  }
  const scan = scanJson(text, { ...STRICT, buildValue: true });
  return { ok: true, value: scan.value, diagnostics: scan.warnings };
}

const STRICT = { comments: false, trailingCommas: false, name: "JSON" };

/**
 * Whether `value`, which JSON.parse made from `text`, is exactly what the
 * text says and the text repeats no key within an object. When false, the
 * caller re-reads the text with the scanner, which reports duplicates and
 * builds the value itself.
 *
 * Duplicates: every '"' in valid JSON either delimits a string token or is
 * an escaped quote inside one, so the text holds
 * `(quotes - escapedQuotes) / 2` string tokens. Without duplicates each
 * token is a key or a string value of the parsed result; with them the text
 * has more tokens than the result. Counting one character is a single fast
 * native pass and the walk touches no string contents, so this costs a
 * fraction of JSON.parse (see bench/validate_bench.ts).
 *
 * Keys with a backslash: V8 15.0 (Deno 2.9) can decode an escaped key as an
 * earlier, different key whose characters match the escape's raw text, e.g.
 * after `{"y":"😀","\\":1}` it reads `{"y":"😀","\n":2}` with the key "\\".
 * So a text with an escape inside a key goes to the scanner too; escapes in
 * string values are unaffected and stay on the fast path.
 */
export function engineResultIsExact(text: string, value: unknown): boolean {
  const quotes = text.match(QUOTE)?.length ?? 0;
  if (quotes === 0) return true;
  const escaped = escapedQuotes(text);
  return escaped !== -1 && (quotes - escaped) / 2 === countStringTokens(value);
}

// Counts the escaped quotes of valid JSON `text`, visiting only strings
// that hold a backslash, each from its first backslash to its closing
// quote. Returns -1 when such a string is a key (followed by ':').
function escapedQuotes(text: string): number {
  let escaped = 0;
  let slash = text.indexOf("\\");
  while (slash !== -1) {
    // The rest of a string is usually short: step through it in place
    // rather than paying a native call per quote.
    let close = slash;
    for (;;) {
      const code = text.charCodeAt(close);
      if (code === 92) {
        if (text.charCodeAt(close + 1) === 34) escaped++;
        close += 2;
      } else if (code === 34) {
        break;
      } else {
        close++;
      }
    }
    let next = close + 1;
    let code = text.charCodeAt(next);
    while (code === 32 || code === 10 || code === 13 || code === 9) {
      code = text.charCodeAt(++next);
    }
    if (code === 58) return -1;
    slash = text.indexOf("\\", close + 1);
  }
  return escaped;
}

// Keys plus string values, iteratively (the value may be deeply nested).
function countStringTokens(root: unknown): number {
  if (typeof root === "string") return 1;
  if (root === null || typeof root !== "object") return 0;
  let count = 0;
  const stack: object[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const item = node[i];
        if (typeof item === "string") count++;
        else if (item !== null && typeof item === "object") stack.push(item);
      }
    } else {
      const record = node as Record<string, unknown>;
      for (const key in record) {
        count++;
        const item = record[key];
        if (typeof item === "string") count++;
        else if (item !== null && typeof item === "object") stack.push(item);
      }
    }
  }
  return count;
}

// Used only if the scanner accepts what the engine refused, which would be
// a scanner bug; the engine's own position is still better than nothing.
function locateEngineError(text: string, error: Error): Diagnostic {
  const locator = new Locator(text);
  const match = V8_POSITION.exec(error.message);
  if (match !== null) {
    return locator.diagnostic(
      Number(match[1]),
      error.message.slice(0, match.index),
    );
  }
  return locator.diagnostic(0, error.message);
}
