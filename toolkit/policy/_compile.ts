// Rules compiled into forms shaped by the verb: path segments, exec
// arguments, host labels, or one opaque item, each a literal or a glob.

import {
  codePointName,
  CONTROL,
  DEFAULT_PORTS,
  GLOB_CHARS,
  HOST_LABEL,
  isNetScheme,
  patternProblem,
  type TargetKind,
  targetKind,
} from "../../validate/_pattern_grammar.ts";
import { canonicalHost, canonicalTarget } from "../patterns/_canonical.ts";
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

const IPV6 = /^\[[0-9a-f:.]+\]$/;
const PORT = /^(0|[1-9][0-9]{0,4})$/;

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
interface Glob {
  steps: Step[];
}
/** One item of a rule: any run of items, a literal, or a glob. */
export type Item = typeof ANY | string | Glob;

interface PathForm {
  kind: "path";
  absolute: boolean;
  items: Item[];
}
interface ExecForm {
  kind: "exec";
  items: Item[];
}
interface NetForm {
  kind: "net";
  scheme: Item;
  host: Item[];
  port: Item | undefined;
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

function compileNet(tokens: Token[], offset: number): NetForm {
  const sep = findSeparator(tokens);
  if (sep === -1) {
    throw new Problem(
      "expected scheme://host[:port], such as https://*.example.com",
      tokens[0]?.at ?? offset,
    );
  }
  const schemeTokens = tokens.slice(0, sep);
  if (schemeTokens.length === 0) {
    throw new Problem(
      'empty scheme: expected http, https, ws, wss or a wildcard such as "*"',
      offset,
    );
  }
  const scheme = compileItem(schemeTokens, offset, false);
  if (typeof scheme === "string" && !isNetScheme(scheme)) {
    throw new Problem(
      `scheme "${scheme}" is never named: expected http, https, ws or wss`,
      schemeTokens[0].at,
    );
  }
  const rest = tokens.slice(sep + 3);
  const slash = rest.find((t) => isSpecial(t, "/"));
  if (slash !== undefined) {
    throw new Problem(
      "a path after the host: expected scheme://host[:port] only, since net patterns never name a path",
      slash.at,
    );
  }
  let hostTokens: Token[];
  let portTokens: Token[] | undefined;
  let host: Item[];
  if (rest[0] !== undefined && isSpecial(rest[0], "[")) {
    throw new Problem(
      "an IPv6 address in a rule: expected its brackets escaped, such as \\[::1\\]",
      rest[0].at,
    );
  }
  if (rest[0]?.lit && rest[0].c === "[") {
    const close = rest.findIndex((t) => t.lit && t.c === "]");
    const literal = close === -1 ? "" : text(rest.slice(0, close + 1));
    if (!IPV6.test(literal)) {
      throw new Problem(
        "expected an IPv6 address written \\[…\\] in lowercase hex, such as \\[::1\\]",
        rest[0].at,
      );
    }
    host = [literal];
    hostTokens = rest.slice(0, close + 1);
    const after = rest.slice(close + 1);
    if (after.length > 0 && !isSpecial(after[0], ":")) {
      throw new Problem(
        'expected ":port" or the end after an IPv6 address',
        after[0].at,
      );
    }
    portTokens = after.length > 0 ? after.slice(1) : undefined;
  } else {
    const colon = rest.findIndex((t) => isSpecial(t, ":"));
    hostTokens = colon === -1 ? rest : rest.slice(0, colon);
    portTokens = colon === -1 ? undefined : rest.slice(colon + 1);
    host = compileHost(hostTokens, (tokens[sep + 2]?.at ?? offset) + 1);
  }
  checkHost(host, hostTokens);
  let port: Item | undefined;
  if (portTokens !== undefined) {
    const at = (hostTokens.at(-1)?.at ?? offset) + 2;
    if (portTokens.length === 0) {
      throw new Problem('empty port after ":": expected digits or "*"', at);
    }
    if (isWord(portTokens, "**")) {
      throw new Problem('"**" is not a port: expected digits or "*"', at);
    }
    port = compileItem(portTokens, offset, false);
    if (typeof port === "string") {
      if (!PORT.test(port) || Number(port) > 65535) {
        throw new Problem(
          `port "${port}" is out of range: expected 0 to 65535 without leading zeros`,
          at,
        );
      }
      if (
        typeof scheme === "string" && isNetScheme(scheme) &&
        DEFAULT_PORTS[scheme] === port
      ) {
        throw new Problem(
          `the default port ${port} of ${scheme} is never named: expected the rule without ":${port}"`,
          at,
        );
      }
    }
  }
  return { kind: "net", scheme, host, port };
}

/** The index of the `://` after the scheme, or -1. */
function findSeparator(tokens: Token[]): number {
  for (let i = 0; i + 2 < tokens.length; i++) {
    if (
      isSpecial(tokens[i], ":") && isSpecial(tokens[i + 1], "/") &&
      isSpecial(tokens[i + 2], "/")
    ) {
      return i;
    }
  }
  return -1;
}

function compileHost(tokens: Token[], at: number): Item[] {
  if (tokens.length === 0) {
    throw new Problem("empty host: expected a host such as example.com", at);
  }
  return splitTokens(tokens, ".", at).map(({ tokens: label, at: where }) => {
    if (label.length === 0) {
      throw new Problem(
        'empty host label (a leading, trailing or doubled "."): expected labels separated by single dots',
        where,
      );
    }
    if (isWord(label, "**")) return ANY;
    let inClass = false;
    for (const t of label) {
      // Class syntax (`[!a-z]`) is checked by compileItem, not as host text.
      if (!t.lit && (GLOB_CHARS.has(t.c) || (inClass && /[!^-]/.test(t.c)))) {
        if (t.c === "[") inClass = true;
        if (t.c === "]") inClass = false;
        continue;
      }
      if (!HOST_LABEL.test(t.c)) {
        throw new Problem(
          `${JSON.stringify(t.c)} never appears in a canonical host: ${
            hostHint(text(label))
          }`,
          t.at,
        );
      }
    }
    return compileItem(label, at, false);
  });
}

// A label WHATWG reads as a number, which makes the host an IPv4 address.
const NUMERIC_LABEL = /^([0-9]+|0x[0-9a-f]*)$/;
const IPV4_PART = /^(0|[1-9][0-9]{0,2})$/;

/**
 * Refuses hosts that never appear in a canonical target: a literal host the
 * URL parser would rewrite (`127.1`, `2130706433`, `0x7f.0.0.1`, mapped or
 * uncompressed IPv6), and an IPv4 address with wildcards whose literal
 * parts are not plain decimal (`0x7f.0.0.*`) or that cannot have four parts.
 */
function checkHost(host: Item[], tokens: Token[]): void {
  const start = tokens[0].at;
  const end = tokens.at(-1)!.end;
  if (host.every((label) => typeof label === "string")) {
    const written = host.join(".");
    const canonical = canonicalHost(written);
    if ("refused" in canonical) {
      throw new NotCanonical(
        `host ${JSON.stringify(written)} never appears in a canonical target`,
        start,
        {
          otherwise:
            "expected a host name, or an IPv4 address of four decimal parts 0 to 255",
        },
      );
    }
    if (canonical.target !== written) {
      throw new NotCanonical(
        `host ${JSON.stringify(written)} is not canonical`,
        start,
        {
          fix: { start, end, text: escapeGlob(canonical.target) },
          otherwise: `expected ${JSON.stringify(canonical.target)}`,
        },
      );
    }
    return;
  }
  const numeric = (label: Item) =>
    typeof label === "string" && NUMERIC_LABEL.test(label);
  const last = host[host.length - 1];
  const ipv4 = numeric(last) ||
    (host.every((label) => typeof label !== "string" || numeric(label)) &&
      host.some(numeric));
  if (!ipv4) return;
  for (const [index, label] of host.entries()) {
    if (typeof label !== "string") continue;
    if (!IPV4_PART.test(label) || Number(label) > 255) {
      throw new NotCanonical(
        `${
          JSON.stringify(label)
        } is not how a canonical IPv4 address writes a part`,
        labelStart(tokens, index),
        { otherwise: "expected decimal 0 to 255 without leading zeros" },
      );
    }
  }
  if (numeric(last) && !host.includes(ANY) && host.length !== 4) {
    throw new NotCanonical(
      "a host ending in a number is an IPv4 address, which has four parts",
      start,
      { otherwise: 'expected four parts such as 10.0.0.*, or "**"' },
    );
  }
}

/** Where the label at `index` of a host starts. */
function labelStart(tokens: Token[], index: number): number {
  let seen = 0;
  for (const t of tokens) {
    if (seen === index) return t.at;
    if (isSpecial(t, ".")) seen++;
  }
  return tokens[0].at;
}

function hostHint(label: string): string {
  if (label !== label.toLowerCase()) {
    return `expected lowercase, such as "${label.toLowerCase()}"`;
  }
  if (/[^\x20-\x7e]/.test(label)) {
    try {
      const ascii = new URL(`http://${label.replace(/[*?]/g, "x")}`).hostname;
      if (!/[*?]/.test(label)) return `expected punycode, such as "${ascii}"`;
    } catch {
      // No suggestion for a label the URL parser refuses.
    }
    return "expected the punycode (xn--) form of the label";
  }
  return 'expected letters, digits, "-" and "_" only';
}

/**
 * Compiles the tokens of one item (segment, argument, label) into a literal
 * or a glob. In `opaque` targets `**` is simply any run.
 */
function compileItem(tokens: Token[], offset: number, opaque: boolean): Item {
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
