// The items of a compiled rule: a segment, an argument or a host label is
// a literal, "any run" or a glob of steps. Shared by every verb's form.

import { GLOB_CHARS } from "../../validate/_pattern_grammar.ts";
import { isSpecial, Problem, text, type Token } from "./_lex.ts";

/** Any run: `**` over whole items, `*` over characters within one. */
export const ANY = Symbol("any run");
/** Any one character: `?`. */
export const ONE = Symbol("any one");
/** `[…]`: inclusive code point ranges as flat pairs. */
export interface CharClass {
  negate: boolean;
  ranges: number[];
}
/** One step of a glob: any run, any one, a literal character, or a class. */
export type Step = typeof ANY | typeof ONE | string | CharClass;
/** The steps of one item with wildcards. */
export interface Glob {
  steps: Step[];
}
/** One item of a rule: any run of items, a literal, or a glob. */
export type Item = typeof ANY | string | Glob;

/**
 * Compiles the tokens of one item (segment, argument, label) into a literal
 * or a glob. In `opaque` targets `**` is simply any run.
 */
export function compileItem(
  tokens: Token[],
  offset: number,
  opaque: boolean,
): Item {
  if (tokens.every((t) => t.lit || !GLOB_CHARS.has(t.c))) return text(tokens);
  const steps: Step[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.lit || !GLOB_CHARS.has(t.c)) {
      steps.push(t.c);
    } else if (t.c === "*") {
      const next = tokens[i + 1];
      if (next !== undefined && isSpecial(next, "*")) {
        if (!opaque) {
          throw new Problem(
            '"**" inside a name: expected "**" alone between separators, or "*" within a name',
            t.at,
          );
        }
        i++;
      }
      if (steps[steps.length - 1] !== ANY) steps.push(ANY);
    } else if (t.c === "?") {
      steps.push(ONE);
    } else if (t.c === "[") {
      const { step, end } = compileClass(tokens, i);
      steps.push(step);
      i = end;
    } else {
      throw new Problem(
        `"${t.c}" has no opening partner: expected "\\${t.c}" for a literal`,
        t.at ?? offset,
      );
    }
  }
  return { steps };
}

function compileClass(
  tokens: Token[],
  open: number,
): { step: CharClass; end: number } {
  let i = open + 1;
  let negate = false;
  const first = tokens[i];
  if (first !== undefined && (isSpecial(first, "!") || isSpecial(first, "^"))) {
    negate = true;
    i++;
  }
  const ranges: number[] = [];
  for (; i < tokens.length; i++) {
    const t = tokens[i];
    if (isSpecial(t, "]")) {
      if (ranges.length === 0) {
        throw new Problem(
          "empty character class: expected characters such as [abc] or a range such as [a-z]",
          tokens[open].at,
        );
      }
      return { step: { negate, ranges }, end: i };
    }
    const low = t.c.codePointAt(0)!;
    const dash = tokens[i + 1];
    const high = tokens[i + 2];
    if (
      dash !== undefined && isSpecial(dash, "-") && high !== undefined &&
      !isSpecial(high, "]")
    ) {
      if (low > high.c.codePointAt(0)!) {
        throw new Problem(
          `range "${t.c}-${high.c}" runs backwards: expected the lower character first`,
          t.at,
        );
      }
      ranges.push(low, high.c.codePointAt(0)!);
      i += 2;
    } else {
      ranges.push(low, low);
    }
  }
  throw new Problem(
    '"[" is never closed: expected a class such as [abc], or "\\[" for a literal bracket',
    tokens[open].at,
  );
}
