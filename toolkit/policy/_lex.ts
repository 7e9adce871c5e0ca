// Rule and pattern targets as tokens: backslash escapes decoded, `{a,b}`
// alternatives expanded, and splitting at separators.

import {
  CONTROL_ESCAPES,
  LITERAL_ESCAPES,
  type TargetKind,
} from "../../validate/_pattern_grammar.ts";

// A rule's brace alternatives multiply; past this a rule is a mistake.
const MAX_ALTERNATIVES = 256;

/** One character of a target: `lit` when it came from an escape. */
export interface Token {
  c: string;
  lit: boolean;
  /** Its 0-based offset in the whole rule. */
  at: number;
  /** The offset just after its spelling (an escape is several characters). */
  end: number;
}

/** A rewrite of the rule's text: `[start, end)` becomes `text`. */
export interface Fix {
  start: number;
  end: number;
  text: string;
}

/** Signals a problem at a token; turned into a RuleSyntaxError or a string. */
export class Problem {
  constructor(readonly message: string, readonly at: number) {}
}

/**
 * A rule that could never match a canonical pattern. The message says what
 * is wrong; compileRule() adds the canonical form: computed from the whole
 * rule when it has no wildcards, else the rule with `fix` applied, else
 * `otherwise`.
 */
export class NotCanonical extends Problem {
  constructor(
    message: string,
    at: number,
    readonly options: { fix?: Fix; otherwise: string },
  ) {
    super(message, at);
  }
}

/** Splits a target into tokens, decoding backslash escapes. */
export function lex(target: string, offset: number, isRule: boolean): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < target.length) {
    const at = offset + i;
    const c = String.fromCodePoint(target.codePointAt(i)!);
    if (c !== "\\") {
      tokens.push({ c, lit: false, at, end: at + c.length });
      i += c.length;
      continue;
    }
    const next = target[i + 1];
    if (next === undefined) {
      throw new Problem(
        `a backslash ends the ${
          isRule ? "rule" : "pattern"
        }: expected an escaped character after it`,
        at,
      );
    }
    if (LITERAL_ESCAPES.has(next)) {
      tokens.push({ c: next, lit: true, at, end: at + 2 });
      i += 2;
    } else if (next in CONTROL_ESCAPES) {
      tokens.push({ c: CONTROL_ESCAPES[next], lit: true, at, end: at + 2 });
      i += 2;
    } else if (next === "u" && target[i + 2] === "{") {
      const close = target.indexOf("}", i + 3);
      const hex = close === -1 ? "" : target.slice(i + 3, close);
      const code = /^[0-9a-f]{1,6}$/.test(hex) ? parseInt(hex, 16) : NaN;
      if (!(code <= 0x10ffff)) {
        throw new Problem(
          `invalid escape "\\u{${hex}": expected \\u{hex} with 1 to 6 lowercase hex digits`,
          at,
        );
      }
      i = close + 1;
      tokens.push({
        c: String.fromCodePoint(code),
        lit: true,
        at,
        end: offset + i,
      });
    } else {
      throw new Problem(
        `invalid escape "\\${next}": expected one of \\\\ \\* \\? \\[ \\] \\{ \\} \\" "\\ " \\n \\r \\t \\u{hex}`,
        at,
      );
    }
  }
  return tokens;
}

export function isSpecial(token: Token, c: string): boolean {
  return !token.lit && token.c === c;
}

/** Expands `{a,b}` alternatives, outermost first, skipping `[…]` classes. */
export function expandBraces(tokens: Token[]): Token[][] {
  const done: Token[][] = [];
  const pending: Token[][] = [tokens];
  while (pending.length > 0) {
    const current = pending.pop()!;
    const open = findOpenBrace(current);
    if (open === -1) {
      done.push(current);
    } else {
      const { close, commas } = findCloseBrace(current, open);
      const bounds = [open, ...commas, close];
      for (let k = bounds.length - 1; k > 0; k--) {
        pending.push([
          ...current.slice(0, open),
          ...current.slice(bounds[k - 1] + 1, bounds[k]),
          ...current.slice(close + 1),
        ]);
      }
    }
    if (done.length + pending.length > MAX_ALTERNATIVES) {
      throw new Problem(
        `the {…} alternatives expand to more than ${MAX_ALTERNATIVES} rules: expected fewer, or separate rules`,
        tokens[0]?.at ?? 0,
      );
    }
  }
  return done.reverse();
}

function findOpenBrace(tokens: Token[]): number {
  let inClass = false;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.lit) continue;
    if (inClass) {
      if (t.c === "]") inClass = false;
    } else if (t.c === "[") {
      inClass = true;
    } else if (t.c === "{") {
      return i;
    } else if (t.c === "}") {
      throw new Problem(
        `"}" has no matching "{": expected {a,b} alternatives, or "\\}" for a literal brace`,
        t.at,
      );
    }
  }
  return -1;
}

function findCloseBrace(
  tokens: Token[],
  open: number,
): { close: number; commas: number[] } {
  let depth = 0;
  let inClass = false;
  const commas: number[] = [];
  for (let i = open + 1; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.lit) continue;
    if (inClass) {
      if (t.c === "]") inClass = false;
    } else if (t.c === "[") {
      inClass = true;
    } else if (t.c === "{") {
      depth++;
    } else if (t.c === "}") {
      if (depth === 0) return { close: i, commas };
      depth--;
    } else if (t.c === "," && depth === 0) {
      commas.push(i);
    }
  }
  throw new Problem(
    `"{" is never closed: expected {a,b} alternatives, or "\\{" for a literal brace`,
    tokens[open].at,
  );
}

/** One piece of a split target and the offset where it starts. */
export interface Piece {
  tokens: Token[];
  at: number;
}

export function splitTokens(
  tokens: Token[],
  separator: string,
  start: number,
): Piece[] {
  const pieces: Piece[] = [{ tokens: [], at: start }];
  for (const t of tokens) {
    if (isSpecial(t, separator)) pieces.push({ tokens: [], at: t.at + 1 });
    else pieces[pieces.length - 1].tokens.push(t);
  }
  return pieces;
}

export function text(tokens: Token[]): string {
  return tokens.map((t) => t.c).join("");
}

export function isWord(tokens: Token[], word: string): boolean {
  return tokens.length === word.length &&
    tokens.every((t, i) => !t.lit && t.c === word[i]);
}

/**
 * What a target's tokens name, unescaped: the words of a command (split at
 * unescaped spaces, `""` an empty word), else the text.
 */
export function decodeTarget(
  kind: TargetKind,
  tokens: Token[],
): string | string[] {
  if (kind !== "exec") return text(tokens);
  return splitTokens(tokens, " ", 0).map((p) =>
    isWord(p.tokens, '""') ? "" : text(p.tokens)
  );
}
