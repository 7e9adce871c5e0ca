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
 * The wrong key always contains a backslash, so when the text has one, a
 * key containing one sends the text to the scanner too.
 */
export function engineResultIsExact(text: string, value: unknown): boolean {
  const quotes = text.match(QUOTE)?.length ?? 0;
  if (quotes === 0) return true;
  let escaped = 0;
  for (let i = text.indexOf('\\"'); i !== -1; i = text.indexOf('\\"', i + 2)) {
    let run = 1;
    while (text.charCodeAt(i - run) === 92) run++;
    if (run % 2 === 1) escaped++;
  }
  const tokens = countStringTokens(value, text.indexOf("\\") !== -1);
  return tokens !== -1 && (quotes - escaped) / 2 === tokens;
}

// Keys plus string values, iteratively (the value may be deeply nested);
// -1 when `checkKeys` is set and a key contains a backslash.
function countStringTokens(root: unknown, checkKeys: boolean): number {
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
        if (checkKeys && key.includes("\\")) return -1;
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
