// Rules compiled into forms shaped by the verb: path segments, exec
// arguments, host labels, or one opaque item, each a literal or a glob.

import {
  codePointName,
  CONTROL,
  GLOB_CHARS,
  patternProblem,
  type TargetKind,
  targetKind,
} from "../../validate/_pattern_grammar.ts";
import { canonicalTarget } from "../patterns/_canonical.ts";
import { escapeGlob, escapeToken } from "../patterns/escape.ts";
import {
  decodeTarget,
  expandBraces,
  isSpecial,
  isWord,
  lex,
  NotCanonical,
  Problem,
  splitTokens,
  text,
  type Token,
} from "./_lex.ts";
import type { Decision } from "./decision.ts";
import { RuleSyntaxError } from "./rule_syntax_error.ts";
import { typeName } from "../_util/json_type.ts";
import { ANY, compileItem, type Item } from "./_item.ts";
import { compileNet, type NetForm } from "./_net_rule.ts";

interface PathForm {
  kind: "path";
  absolute: boolean;
  items: Item[];
}
interface ExecForm {
  kind: "exec";
  items: Item[];
}
interface OpaqueForm {
  kind: "opaque";
  item: Item;
}
export type Form = PathForm | ExecForm | NetForm | OpaqueForm;

export interface Compiled {
  verb: string;
  alternatives: Form[];
}

/** Where a rule stands in a policy, for its RuleSyntaxError. */
export interface RuleOrigin {
  list: Decision;
  index: number;
}

/** Parses and compiles a rule, or throws a RuleSyntaxError for it. */
export function compileRule(rule: string, origin?: RuleOrigin): Compiled {
  if (typeof rule !== "string") {
    throw new TypeError(
      `Cannot load rule: expected a string "verb:target", got ${
        typeName(rule)
      }`,
    );
  }
  const problem = patternProblem(rule);
  if (problem !== undefined) {
    // A missing colon or target is pointed at where it should stand.
    const at = problem.kind === "no-colon" || problem.kind === "empty-target"
      ? problem.end
      : problem.start;
    throw new RuleSyntaxError(problem.message, rule, {
      column: at + 1,
      ...origin,
    });
  }
  const colon = rule.indexOf(":");
  const verb = rule.slice(0, colon);
  const offset = colon + 1;
  let tokens: Token[] = [];
  try {
    tokens = lex(rule.slice(offset), offset, true);
    const alternatives = expandBraces(tokens).map((alternative) =>
      compileForm(targetKind(verb), alternative, offset)
    );
    return { verb, alternatives };
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    const message = error instanceof NotCanonical
      ? `${error.message}: ${canonicalForm(rule, verb, tokens, error)}`
      : error.message;
    throw new RuleSyntaxError(message, rule, {
      column: error.at + 1,
      ...origin,
    });
  }
}

/**
 * What a rule that no canonical pattern matches should have been: without
 * wildcards it names one target, and the builders say its canonical form;
 * else the fix of the part at fault, when there is one.
 */
function canonicalForm(
  rule: string,
  verb: string,
  tokens: Token[],
  problem: NotCanonical,
): string {
  const { fix, otherwise } = problem.options;
  if (tokens.every((t) => t.lit || !GLOB_CHARS.has(t.c))) {
    const canonical = canonicalTarget(
      verb,
      decodeTarget(targetKind(verb), tokens),
    );
    return "target" in canonical
      ? `expected ${JSON.stringify(`${verb}:${canonical.target}`)}`
      : otherwise;
  }
  if (fix === undefined) return otherwise;
  return `expected ${
    JSON.stringify(rule.slice(0, fix.start) + fix.text + rule.slice(fix.end))
  }`;
}

function compileForm(kind: TargetKind, tokens: Token[], offset: number): Form {
  switch (kind) {
    case "path":
      return compilePath(tokens, offset);
    case "exec":
      return compileExec(tokens, offset);
    case "net":
      return compileNet(tokens, offset);
    case "opaque":
      checkLiterals(tokens, kind);
      return { kind, item: compileItem(tokens, offset, true) };
  }
}

/** What canonical targets of each kind are called in messages. */
const KIND_NAMES: Record<TargetKind, string> = {
  path: "path",
  exec: "command",
  net: "network target",
  opaque: "target",
};

/**
 * Refuses what escapes can spell but no canonical target holds: a "/"
 * inside one path segment, a control character (in commands only NUL,
 * which no program receives), text not in NFC.
 */
function checkLiterals(tokens: Token[], kind: TargetKind): void {
  const name = KIND_NAMES[kind];
  for (const t of tokens) {
    if (!t.lit) continue;
    if (kind === "path" && t.c === "/") {
      throw new NotCanonical(
        `an escaped "/" stays inside one segment, and no canonical ${name} has "/" in a name`,
        t.at,
        {
          fix: { start: t.at, end: t.end, text: "/" },
          otherwise: 'expected "/" unescaped, between names',
        },
      );
    }
    if (kind === "exec" ? t.c === "\0" : CONTROL.test(t.c)) {
      throw new NotCanonical(
        `control character ${
          codePointName(t.c)
        } never appears in a canonical ${name}`,
        t.at,
        {
          otherwise: kind === "exec"
            ? "expected text without NUL, which no program can receive"
            : "expected text without control characters",
        },
      );
    }
  }
  const value = text(tokens);
  const normal = value.normalize("NFC");
  if (value === normal) return;
  // Where NFC first changes the text: the start of the sequence to rewrite.
  let i = 0;
  while (value[i] === normal[i]) i++;
  let at = 0;
  while (at + 1 < tokens.length && i >= tokens[at].c.length) {
    i -= tokens[at++].c.length;
  }
  const spell = kind === "exec" ? escapeToken : escapeGlob;
  throw new NotCanonical(
    `${JSON.stringify(value)} is not in Unicode NFC form`,
    tokens[at].at,
    {
      fix: tokens.some((t) => !t.lit && GLOB_CHARS.has(t.c))
        ? undefined
        : { start: tokens[0].at, end: tokens.at(-1)!.end, text: spell(normal) },
      otherwise: `expected the NFC form ${JSON.stringify(normal)}`,
    },
  );
}

function compilePath(tokens: Token[], offset: number): PathForm {
  if (tokens.length === 0) {
    throw new Problem(
      "a {…} alternative leaves the path empty: expected a path such as src/**",
      offset,
    );
  }
  const absolute = isSpecial(tokens[0], "/");
  const body = absolute ? tokens.slice(1) : tokens;
  if (body.length === 0) return { kind: "path", absolute, items: [] };
  if (!absolute && isWord(body, ".")) {
    return { kind: "path", absolute, items: [] };
  }
  const start = body[0].at;
  const items = splitTokens(body, "/", start).map(({ tokens: segment, at }) => {
    if (segment.length === 0) {
      throw new Problem(
        'empty path segment (a "//" or a trailing "/"): expected names separated by single slashes',
        at,
      );
    }
    if (isWord(segment, ".") || isWord(segment, "..")) {
      throw new Problem(
        `"${
          text(segment)
        }" never appears in a canonical path: expected names, "*" or "**"`,
        at,
      );
    }
    const name = text(segment);
    if (name === "." || name === "..") {
      throw new NotCanonical(
        `an escaped "${name}" never appears in a canonical path`,
        at,
        { otherwise: 'expected names, "*" or "**"' },
      );
    }
    checkLiterals(segment, "path");
    return isWord(segment, "**") ? ANY : compileItem(segment, offset, false);
  });
  return { kind: "path", absolute, items };
}

function compileExec(tokens: Token[], offset: number): ExecForm {
  const items = splitTokens(tokens, " ", offset).map(({ tokens: word, at }) => {
    if (word.length === 0) {
      throw new Problem(
        'empty argument (two spaces, or a space at either end): expected words separated by single spaces, and "" for an empty argument',
        at,
      );
    }
    if (isWord(word, '""')) return "";
    const quote = word.find((t) => isSpecial(t, '"'));
    if (quote !== undefined) {
      throw new Problem(
        'a quote inside an argument: expected \\" for a literal quote, or "" alone for an empty argument',
        quote.at,
      );
    }
    checkLiterals(word, "exec");
    return isWord(word, "**") ? ANY : compileItem(word, offset, false);
  });
  return { kind: "exec", items };
}
