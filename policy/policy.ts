// Rules, their compilation and matching, and the Policy that combines them.

import { checkPattern, PATTERN_VERBS } from "../validate/pattern.ts";
import { typeName } from "../_util/json_type.ts";

/**
 * What a host does with a call: run it, ask the user, or refuse it.
 *
 * @example
 * ```ts
 * import { type Decision, Policy } from "@forge/toolkit/policy";
 *
 * const decision: Decision = new Policy({}).evaluate(["read:a"]).decision; // "ask"
 * ```
 */
export type Decision = "allow" | "ask" | "deny";

/**
 * The rule lists of a {@linkcode Policy}.
 *
 * @example
 * ```ts
 * import { Policy, type PolicyRules } from "@forge/toolkit/policy";
 *
 * const rules: PolicyRules = JSON.parse('{"allow": ["read:**"], "deny": ["exec:rm **"]}');
 * const policy = new Policy(rules);
 * ```
 */
export interface PolicyRules {
  /** Rules whose matches may run without asking. */
  allow?: readonly string[];
  /** Rules whose matches need the user's approval. */
  ask?: readonly string[];
  /** Rules whose matches are refused. */
  deny?: readonly string[];
}

/**
 * The decision for one pattern of a call.
 *
 * @example
 * ```ts
 * import { Policy } from "@forge/toolkit/policy";
 *
 * const [first] = new Policy({ deny: ["write:/etc/**"] }).evaluate(["write:/etc/x"]).patterns;
 * // first → { pattern: "write:/etc/x", decision: "deny", rule: "write:/etc/**" }
 * ```
 */
export interface PatternDecision {
  /** The pattern as the tool reported it. */
  readonly pattern: string;
  /** `deny`, `ask` or `allow`; `ask` when no rule matched. */
  readonly decision: Decision;
  /** The rule that decided, or `undefined` when none matched. */
  readonly rule?: string;
  /** Why the pattern could not be matched, when it is not canonical. */
  readonly problem?: string;
}

/**
 * The decision for a whole call, with the reason for each pattern.
 *
 * @example
 * ```ts
 * import { Policy } from "@forge/toolkit/policy";
 *
 * const result = new Policy({ allow: ["write:**"] }).evaluate(["delete:a", "write:b"]);
 * // result.decision → "ask": delete:a matched no rule
 * ```
 */
export interface PolicyDecision {
  /** `deny` if any pattern is denied, else `ask` if any needs asking, else `allow`. */
  readonly decision: Decision;
  /** One entry per pattern, in the order given. */
  readonly patterns: readonly PatternDecision[];
}

/**
 * Where a rule came from, for {@linkcode RuleSyntaxError}.
 *
 * @example
 * ```ts
 * import { RuleSyntaxError } from "@forge/toolkit/policy";
 *
 * const error = new RuleSyntaxError("empty target", "read:", { column: 6, list: "allow", index: 0 });
 * ```
 */
export interface RuleSyntaxErrorOptions {
  /**
   * The 1-based column in the rule where the problem is.
   *
   * @default {1}
   */
  column?: number;
  /**
   * The policy list that holds the rule.
   *
   * @default {undefined}
   */
  list?: Decision;
  /**
   * The rule's 0-based index in that list.
   *
   * @default {undefined}
   */
  index?: number;
}

/**
 * A rule that does not follow the grammar, thrown when a {@linkcode Rule} or
 * {@linkcode Policy} is created. A rule is one line, so {@linkcode line} is
 * always 1 and {@linkcode column} points into the rule.
 *
 * @example Report a bad rule in a host's settings
 * ```ts
 * import { Policy, RuleSyntaxError } from "@forge/toolkit/policy";
 *
 * try {
 *   new Policy({ allow: ["WRITE:a.txt"] });
 * } catch (error) {
 *   if (error instanceof RuleSyntaxError) {
 *     console.error(error.list, error.index, error.column, error.message);
 *   }
 * }
 * ```
 */
export class RuleSyntaxError extends SyntaxError {
  /** The rule as written. */
  readonly rule: string;
  /** What is wrong with it and what was expected. */
  readonly problem: string;
  /** Always 1: rules hold no line breaks. */
  readonly line: number;
  /** The 1-based column of the problem. */
  readonly column: number;
  /** The policy list that holds the rule, if it came from a policy. */
  readonly list: Decision | undefined;
  /** The rule's 0-based index in that list, if it came from a policy. */
  readonly index: number | undefined;

  /**
   * Creates the error.
   *
   * @param problem What is wrong and what was expected.
   * @param rule The rule as written.
   * @param options Column and where the rule came from.
   */
  constructor(
    problem: string,
    rule: string,
    options: RuleSyntaxErrorOptions = {},
  ) {
    const column = options.column ?? 1;
    const where = options.list === undefined
      ? ""
      : `${options.list}[${options.index}] `;
    super(
      `Cannot load rule ${where}${
        JSON.stringify(rule)
      } at column ${column}: ${problem}`,
    );
    this.name = "RuleSyntaxError";
    this.rule = rule;
    this.problem = problem;
    this.line = 1;
    this.column = column;
    this.list = options.list;
    this.index = options.index;
  }
}

/**
 * One compiled rule. Compile once, test many patterns.
 *
 * @example Paths, hosts and commands
 * ```ts
 * import { Rule } from "@forge/toolkit/policy";
 *
 * new Rule("write:src/**").test("write:src/a/b.ts"); // true
 * new Rule("net:https://*.example.com").test("net:https://example.com"); // false
 * new Rule("exec:rm **").test("exec:rm -rf x"); // true
 * ```
 */
export class Rule {
  /** The rule as written. */
  readonly source: string;
  /** The rule's verb. */
  readonly verb: string;
  #compiled: Compiled;

  /**
   * Parses and compiles a rule.
   *
   * @param rule A rule such as `write:src/**`.
   * @throws {RuleSyntaxError} When the rule does not follow the grammar.
   * @throws {TypeError} When `rule` is not a string.
   */
  constructor(rule: string) {
    this.#compiled = compileRule(rule);
    this.source = rule;
    this.verb = this.#compiled.verb;
  }

  /**
   * Whether `pattern` matches this rule. A pattern that is not canonical
   * (bad grammar, an unescaped glob character, `..`) matches no rule.
   *
   * @example
   * ```ts
   * import { Rule } from "@forge/toolkit/policy";
   *
   * new Rule("read:*.md").test("read:README.md"); // true
   * ```
   *
   * @param pattern A pattern a tool reported.
   * @returns `true` when the rule matches the whole pattern.
   */
  test(pattern: string): boolean {
    const parsed = parsePattern(pattern);
    return typeof parsed !== "string" && matches(this.#compiled, parsed);
  }
}

/**
 * Whether `pattern` matches `rule` (anchored, see the module docs for the
 * wildcards). To test many patterns, compile the rule once with
 * {@linkcode Rule} or use a {@linkcode Policy}.
 *
 * @example Segments and labels
 * ```ts
 * import { matchPattern } from "@forge/toolkit/policy";
 *
 * matchPattern("write:src/*.ts", "write:src/a.ts"); // true
 * matchPattern("write:src/*.ts", "write:src/a/b.ts"); // false
 * matchPattern("write:dir/**", "write:dir"); // true
 * ```
 *
 * @param rule A rule such as `write:src/**`.
 * @param pattern A pattern a tool reported.
 * @returns `true` when the rule matches the whole pattern.
 * @throws {RuleSyntaxError} When the rule does not follow the grammar.
 */
export function matchPattern(rule: string, pattern: string): boolean {
  return new Rule(rule).test(pattern);
}

/**
 * Allow, ask and deny rules, parsed when the policy is created, that decide
 * each call from its patterns: deny beats ask beats allow, a call is allowed
 * only when every one of its patterns is, and a pattern no rule matches (or
 * one that is not canonical) needs asking. A call with no patterns touches
 * nothing and is allowed.
 *
 * @example Deny wins over allow
 * ```ts
 * import { Policy } from "@forge/toolkit/policy";
 *
 * const policy = new Policy({ allow: ["exec:**"], deny: ["exec:rm **"] });
 * const result = policy.evaluate(["exec:rm -rf x"]);
 * // result.decision → "deny"; result.patterns[0].rule → "exec:rm **"
 * ```
 */
export class Policy {
  #byVerb = new Map<string, Record<Decision, CompiledEntry[]>>();

  /**
   * Parses every rule.
   *
   * @param rules The allow, ask and deny lists; each may be omitted.
   * @throws {RuleSyntaxError} Naming the list, index and rule that is bad.
   * @throws {TypeError} When `rules` or a list has the wrong shape.
   */
  constructor(rules: PolicyRules) {
    if (rules === null || typeof rules !== "object" || Array.isArray(rules)) {
      throw new TypeError(
        `Cannot load policy: expected an object with allow, ask and deny lists, got ${
          typeName(rules)
        }`,
      );
    }
    for (const key of Object.keys(rules)) {
      if (!(LISTS as readonly string[]).includes(key)) {
        throw new TypeError(
          `Cannot load policy: unknown list ${
            JSON.stringify(key)
          }: expected allow, ask or deny`,
        );
      }
    }
    for (const list of LISTS) {
      const entries: unknown = rules[list];
      if (entries === undefined) continue;
      if (!Array.isArray(entries)) {
        throw new TypeError(
          `Cannot load policy: "${list}" must be an array of rule strings, got ${
            typeName(entries)
          }`,
        );
      }
      entries.forEach((rule: unknown, index) => {
        if (typeof rule !== "string") {
          throw new TypeError(
            `Cannot load policy: ${list}[${index}] must be a rule string, got ${
              typeName(rule)
            }`,
          );
        }
        let compiled: Compiled;
        try {
          compiled = compileRule(rule);
        } catch (error) {
          if (!(error instanceof RuleSyntaxError)) throw error;
          throw new RuleSyntaxError(error.problem, rule, {
            column: error.column,
            list,
            index,
          });
        }
        let lists = this.#byVerb.get(compiled.verb);
        if (lists === undefined) {
          lists = { allow: [], ask: [], deny: [] };
          this.#byVerb.set(compiled.verb, lists);
        }
        lists[list].push({ rule, compiled });
      });
    }
  }

  /**
   * Decides a call from all of its patterns (the probe's `forge.patterns`
   * and `forge.always` together).
   *
   * @example
   * ```ts
   * import { Policy } from "@forge/toolkit/policy";
   *
   * const policy = new Policy({ allow: ["write:**"] });
   * policy.evaluate(["delete:a.txt", "write:b.txt"]).decision; // "ask"
   * ```
   *
   * @param patterns The patterns of one call.
   * @returns The call's decision and the decision for each pattern.
   * @throws {TypeError} When `patterns` is not an array.
   */
  evaluate(patterns: readonly string[]): PolicyDecision {
    if (!Array.isArray(patterns)) {
      throw new TypeError(
        `Cannot evaluate policy: expected an array of pattern strings, got ${
          typeName(patterns)
        }`,
      );
    }
    let decision: Decision = "allow";
    const each = patterns.map((pattern: unknown) => {
      const result = this.#decide(pattern);
      if (SEVERITY[result.decision] > SEVERITY[decision]) {
        decision = result.decision;
      }
      return result;
    });
    return { decision, patterns: each };
  }

  #decide(pattern: unknown): PatternDecision {
    if (typeof pattern !== "string") {
      return {
        pattern: String(pattern),
        decision: "ask",
        problem: `expected a pattern string, got ${typeName(pattern)}`,
      };
    }
    const parsed = parsePattern(pattern);
    if (typeof parsed === "string") {
      return { pattern, decision: "ask", problem: parsed };
    }
    const lists = this.#byVerb.get(parsed.verb);
    if (lists !== undefined) {
      for (const list of ORDER) {
        for (const entry of lists[list]) {
          if (matches(entry.compiled, parsed)) {
            return { pattern, decision: list, rule: entry.rule };
          }
        }
      }
    }
    return { pattern, decision: "ask" };
  }
}

// ------------------------------------------------------------ internals

const LISTS: readonly Decision[] = ["allow", "ask", "deny"];
const ORDER: readonly Decision[] = ["deny", "ask", "allow"];
const SEVERITY: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };
const NET_SCHEMES = ["http", "https", "ws", "wss"];
const DEFAULT_PORTS: Record<string, string> = {
  http: "80",
  https: "443",
  ws: "80",
  wss: "443",
};
// A rule's brace alternatives multiply; past this a rule is a mistake.
const MAX_ALTERNATIVES = 256;
const SIMPLE_ESCAPES = new Set(["\\", "*", "?", "[", "]", "{", "}", '"', " "]);
const CONTROL_ESCAPES: Record<string, string> = {
  n: "\n",
  r: "\r",
  t: "\t",
};
const GLOB = new Set(["*", "?", "[", "]", "{", "}"]);
const HOST_LABEL = /^[a-z0-9_-]+$/;
const EXTENSION_VERB = /^x-[a-z0-9][a-z0-9-]*$/;
const IPV6 = /^\[[0-9a-f:.]+\]$/;
const PORT = /^(0|[1-9][0-9]{0,4})$/;

/** One character of a target: `lit` when it came from an escape. */
interface Token {
  c: string;
  lit: boolean;
  /** Its 0-based offset in the whole rule. */
  at: number;
}

/** Any run: `**` over whole items, `*` over characters within one. */
const ANY = Symbol("any run");
/** Any one character: `?`. */
const ONE = Symbol("any one");
/** `[…]`: inclusive code point ranges as flat pairs. */
interface CharClass {
  negate: boolean;
  ranges: number[];
}
/** One step of a glob: any run, any one, a literal character, or a class. */
type Step = typeof ANY | typeof ONE | string | CharClass;
/** The steps of one item with wildcards. */
interface Glob {
  steps: Step[];
}
/** One item of a rule: any run of items, a literal, or a glob. */
type Item = typeof ANY | string | Glob;

type Kind = "path" | "exec" | "net" | "opaque";

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
type Form = PathForm | ExecForm | NetForm | OpaqueForm;

interface Compiled {
  verb: string;
  alternatives: Form[];
}

interface CompiledEntry {
  rule: string;
  compiled: Compiled;
}

/** A concrete pattern, unescaped and split. */
type Parsed =
  | { verb: string; kind: "path"; absolute: boolean; items: string[] }
  | { verb: string; kind: "exec"; items: string[] }
  | {
    verb: string;
    kind: "net";
    scheme: string;
    host: string[];
    port: string | undefined;
  }
  | { verb: string; kind: "opaque"; item: string };

function kindOf(verb: string): Kind {
  switch (verb) {
    case "read":
    case "write":
    case "delete":
      return "path";
    case "exec":
      return "exec";
    case "net":
      return "net";
    default:
      return "opaque";
  }
}

/** Signals a problem at a token; turned into a RuleSyntaxError or a string. */
class Problem {
  constructor(readonly message: string, readonly at: number) {}
}

function compileRule(rule: string): Compiled {
  if (typeof rule !== "string") {
    throw new TypeError(
      `Cannot load rule: expected a string "verb:target", got ${
        typeName(rule)
      }`,
    );
  }
  const parts = checkPattern(rule);
  if (typeof parts === "string") {
    throw new RuleSyntaxError(parts, rule, {
      column: grammarColumn(rule),
    });
  }
  const offset = parts.verb.length + 1;
  try {
    const tokens = lex(parts.target, offset, true);
    const alternatives = expandBraces(tokens).map((alternative) =>
      compileForm(kindOf(parts.verb), alternative, offset)
    );
    return { verb: parts.verb, alternatives };
  } catch (error) {
    if (error instanceof Problem) {
      throw new RuleSyntaxError(error.message, rule, {
        column: error.at + 1,
      });
    }
    throw error;
  }
}

/** Where checkPattern's complaint points, for the column of the error. */
function grammarColumn(rule: string): number {
  const colon = rule.indexOf(":");
  if (colon === -1) return rule.length + 1;
  const verb = rule.slice(0, colon);
  if (!PATTERN_VERBS.includes(verb) && !EXTENSION_VERB.test(verb)) return 1;
  // deno-lint-ignore no-control-regex
  const control = /[\u0000-\u001f\u007f-\u009f]/u.exec(rule.slice(colon + 1));
  return colon + 2 + (control?.index ?? 0);
}

/** Splits a target into tokens, decoding backslash escapes. */
function lex(target: string, offset: number, isRule: boolean): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < target.length) {
    const at = offset + i;
    const c = String.fromCodePoint(target.codePointAt(i)!);
    if (c !== "\\") {
      tokens.push({ c, lit: false, at });
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
    if (SIMPLE_ESCAPES.has(next)) {
      tokens.push({ c: next, lit: true, at });
      i += 2;
    } else if (next in CONTROL_ESCAPES) {
      tokens.push({ c: CONTROL_ESCAPES[next], lit: true, at });
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
      tokens.push({ c: String.fromCodePoint(code), lit: true, at });
      i = close + 1;
    } else {
      throw new Problem(
        `invalid escape "\\${next}": expected one of \\\\ \\* \\? \\[ \\] \\{ \\} \\" "\\ " \\n \\r \\t \\u{hex}`,
        at,
      );
    }
  }
  return tokens;
}

function isSpecial(token: Token, c: string): boolean {
  return !token.lit && token.c === c;
}

/** Expands `{a,b}` alternatives, outermost first, skipping `[…]` classes. */
function expandBraces(tokens: Token[]): Token[][] {
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
interface Piece {
  tokens: Token[];
  at: number;
}

function splitTokens(
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

function text(tokens: Token[]): string {
  return tokens.map((t) => t.c).join("");
}

function isWord(tokens: Token[], word: string): boolean {
  return tokens.length === word.length &&
    tokens.every((t, i) => !t.lit && t.c === word[i]);
}

function compileForm(kind: Kind, tokens: Token[], offset: number): Form {
  switch (kind) {
    case "path":
      return compilePath(tokens, offset);
    case "exec":
      return compileExec(tokens, offset);
    case "net":
      return compileNet(tokens, offset);
    case "opaque":
      return { kind, item: compileItem(tokens, offset, true) };
  }
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
  if (typeof scheme === "string" && !NET_SCHEMES.includes(scheme)) {
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
      if (typeof scheme === "string" && DEFAULT_PORTS[scheme] === port) {
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
      if (!t.lit && (GLOB.has(t.c) || (inClass && /[!^-]/.test(t.c)))) {
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
  if (tokens.every((t) => t.lit || !GLOB.has(t.c))) return text(tokens);
  const steps: Step[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.lit || !GLOB.has(t.c)) {
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

// ------------------------------------------------------------ patterns

/** Parses a concrete pattern, or says why it is not canonical. */
function parsePattern(pattern: string): Parsed | string {
  const parts = checkPattern(pattern);
  if (typeof parts === "string") return parts;
  const { verb, target } = parts;
  let tokens: Token[];
  try {
    tokens = lex(target, 0, false);
  } catch (error) {
    if (error instanceof Problem) return error.message;
    throw error;
  }
  const glob = tokens.find((t) => !t.lit && GLOB.has(t.c));
  if (glob !== undefined) {
    return `unescaped "${glob.c}" in a pattern: expected "\\${glob.c}", since patterns name concrete targets`;
  }
  const kind = kindOf(verb);
  switch (kind) {
    case "path": {
      const absolute = isSpecial(tokens[0], "/");
      const body = absolute ? tokens.slice(1) : tokens;
      if (body.length === 0 && absolute) {
        return { verb, kind, absolute, items: [] };
      }
      if (!absolute && isWord(body, ".")) {
        return { verb, kind, absolute, items: [] };
      }
      const items = splitTokens(body, "/", 0).map((p) => text(p.tokens));
      if (items.some((s) => s === "" || s === "." || s === "..")) {
        return `path ${
          JSON.stringify(target)
        } is not canonical: expected no empty, "." or ".." segments`;
      }
      return { verb, kind, absolute, items };
    }
    case "exec": {
      const words = splitTokens(tokens, " ", 0).map((p) => p.tokens);
      const items: string[] = [];
      for (const word of words) {
        if (isWord(word, '""')) {
          items.push("");
        } else if (word.length === 0 || word.some((t) => isSpecial(t, '"'))) {
          return `command ${
            JSON.stringify(target)
          } is not canonical: expected escaped words separated by single spaces`;
        } else {
          items.push(text(word));
        }
      }
      return { verb, kind, items };
    }
    case "net":
      return parseNetPattern(verb, target);
    case "opaque":
      return { verb, kind, item: text(tokens) };
  }
}

const NET_PATTERN =
  /^([a-z]+):\/\/(\\\[[0-9a-f:.]+\\\]|[a-z0-9_.-]+)(?::(0|[1-9][0-9]{0,4}))?$/;

function parseNetPattern(verb: string, target: string): Parsed | string {
  const match = NET_PATTERN.exec(target);
  const problem = `network target ${
    JSON.stringify(target)
  } is not canonical: expected scheme://host[:port] with a lowercase host and no default port`;
  if (match === null) return problem;
  const [, scheme, rawHost, port] = match;
  if (!NET_SCHEMES.includes(scheme)) return problem;
  if (port !== undefined && (DEFAULT_PORTS[scheme] === port || +port > 65535)) {
    return problem;
  }
  let host: string[];
  if (rawHost.startsWith("\\[")) {
    host = [rawHost.replaceAll("\\", "")];
  } else {
    host = rawHost.split(".");
    if (host.some((label) => label === "")) return problem;
  }
  return { verb, kind: "net", scheme, host, port };
}

// ------------------------------------------------------------ matching

function matches(compiled: Compiled, parsed: Parsed): boolean {
  if (compiled.verb !== parsed.verb) return false;
  for (const form of compiled.alternatives) {
    if (matchForm(form, parsed)) return true;
  }
  return false;
}

function matchForm(form: Form, parsed: Parsed): boolean {
  switch (form.kind) {
    case "path":
      return parsed.kind === "path" && form.absolute === parsed.absolute &&
        matchSequence(form.items, parsed.items);
    case "exec":
      return parsed.kind === "exec" && matchSequence(form.items, parsed.items);
    case "net":
      return parsed.kind === "net" && matchItem(form.scheme, parsed.scheme) &&
        (form.port === undefined
          ? parsed.port === undefined
          : parsed.port !== undefined && matchItem(form.port, parsed.port)) &&
        matchSequence(form.host, parsed.host);
    case "opaque":
      return parsed.kind === "opaque" && matchItem(form.item, parsed.item);
  }
}

function matchItem(item: Item, value: string): boolean {
  if (typeof item === "string") return item === value;
  if (item === ANY) return true;
  return greedyMatch(item.steps, Array.from(value), matchStep);
}

function matchStep(step: Step, char: string): boolean {
  if (typeof step === "string") return step === char;
  if (step === ONE) return true;
  const { negate, ranges } = step as CharClass;
  const code = char.codePointAt(0)!;
  for (let i = 0; i < ranges.length; i += 2) {
    if (code >= ranges[i] && code <= ranges[i + 1]) return !negate;
  }
  return negate;
}

function matchSequence(
  items: readonly Item[],
  values: readonly string[],
): boolean {
  return greedyMatch(items, values, matchItem);
}

/**
 * Anchored match of steps against values, where ANY spans zero or more
 * values and every other step exactly one: greedy with one backtrack point,
 * as in wildcard matching, so O(steps × values) at worst. A RegExp would
 * backtrack exponentially on rules such as `*a*a*a*b`, and a tool controls
 * the text being matched.
 */
function greedyMatch<S, V>(
  steps: readonly (S | typeof ANY)[],
  values: readonly V[],
  matchOne: (step: S, value: V) => boolean,
): boolean {
  let s = 0;
  let v = 0;
  let starS = -1;
  let starV = 0;
  while (v < values.length) {
    const step = steps[s];
    if (s < steps.length && step === ANY) {
      starS = s++;
      starV = v;
    } else if (s < steps.length && matchOne(step as S, values[v])) {
      s++;
      v++;
    } else if (starS !== -1) {
      s = starS + 1;
      v = ++starV;
    } else {
      return false;
    }
  }
  while (s < steps.length && steps[s] === ANY) s++;
  return s === steps.length;
}
