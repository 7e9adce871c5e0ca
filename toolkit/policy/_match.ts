// Concrete patterns parsed into the shape of their verb, and matched
// against compiled rules without backtracking blow-up.

import {
  checkPattern,
  DEFAULT_PORTS,
  GLOB_CHARS,
  HOST_CHARS,
  isNetScheme,
  targetKind,
} from "../../validate/_pattern_grammar.ts";
import { canonicalTarget } from "../patterns/_canonical.ts";
import {
  decodeTarget,
  isSpecial,
  isWord,
  lex,
  Problem,
  splitTokens,
  text,
  type Token,
} from "./_lex.ts";
import type { Compiled, Form } from "./_compile.ts";
import { ANY, type CharClass, type Item, ONE, type Step } from "./_item.ts";

/**
 * A concrete pattern, unescaped and split. A path pattern whose last segment
 * is an unescaped `**` (`read:notes/**`, `read:**` for the root) is a
 * `subtree`: the directory and everything below it, as a listing reads.
 */
type Parsed =
  | {
    verb: string;
    kind: "path";
    absolute: boolean;
    items: string[];
    subtree?: boolean;
  }
  | { verb: string; kind: "exec"; items: string[] }
  | {
    verb: string;
    kind: "net";
    scheme: string;
    host: string[];
    port: string | undefined;
  }
  | { verb: string; kind: "opaque"; item: string };

/**
 * Patterns parsed already, by text: a policy parses every pattern of every
 * call (~1.3 µs for `x-echo:hello`), and calls repeat their targets. Only
 * short patterns are kept, and the map is emptied when full, so that a
 * server naming new patterns without end costs no memory.
 */
const PARSED = new Map<string, Readonly<Parsed> | string>();
const PARSED_MAX = 1024;
const PARSED_MAX_LENGTH = 256;

/** Parses a concrete pattern, or says why it is not canonical. */
export function parsePattern(pattern: string): Readonly<Parsed> | string {
  const known = PARSED.get(pattern);
  if (known !== undefined) return known;
  const parsed = parseNew(pattern);
  if (typeof pattern === "string" && pattern.length <= PARSED_MAX_LENGTH) {
    // Frozen: every caller of the same text shares it.
    if (typeof parsed !== "string") {
      for (const value of Object.values(parsed)) {
        if (Array.isArray(value)) Object.freeze(value);
      }
      Object.freeze(parsed);
    }
    if (PARSED.size >= PARSED_MAX) PARSED.clear();
    PARSED.set(pattern, parsed);
  }
  return parsed;
}

function parseNew(pattern: string): Parsed | string {
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
  const directory = subtreeOf(verb, target, tokens);
  if (directory !== undefined) {
    if (directory === "") {
      return `pattern ${
        JSON.stringify(pattern)
      } is not canonical: expected "**" for everything under the root and "/**" for everything under "/"`;
    }
    const parsed = parsePattern(`${verb}:${directory}`);
    if (typeof parsed === "string" || parsed.kind !== "path") return parsed;
    return { ...parsed, subtree: true };
  }
  const glob = tokens.find((t) => !t.lit && GLOB_CHARS.has(t.c));
  if (glob !== undefined) {
    return `unescaped "${glob.c}" in a pattern: expected "\\${glob.c}", since patterns name concrete targets`;
  }
  const kind = targetKind(verb);
  // Paths and commands are split first, so that the message names the bad
  // segment or word; a network target is split once known to be canonical.
  const parsed = kind === "net" ? undefined : parseTokens(verb, target, tokens);
  if (typeof parsed === "string") return parsed;
  // Escapes can spell a "/" inside a segment, a NUL, a decomposed letter or
  // an IPv4 short form: a pattern is canonical only when it is exactly what
  // the builders would have named, so no two spellings share a target.
  const canonical = canonicalTarget(verb, decodeTarget(kind, tokens));
  const shown = JSON.stringify(`${verb}:${target}`);
  if ("refused" in canonical) {
    return `pattern ${shown} is not canonical: ${canonical.refused}`;
  }
  if (canonical.target !== target) {
    return `pattern ${shown} is not canonical: expected ${
      JSON.stringify(`${verb}:${canonical.target}`)
    }`;
  }
  return parsed ?? parseNetPattern(verb, target);
}

/**
 * The directory of a subtree pattern (`notes` of `notes/**`, `.` of `**`,
 * `/` of `/**`), `""` when the subtree is spelled otherwise (`./**`,
 * `//**`), `undefined` when the pattern is no subtree.
 */
function subtreeOf(
  verb: string,
  target: string,
  tokens: Token[],
): string | undefined {
  const n = tokens.length;
  const star = (t: Token | undefined) => t !== undefined && isSpecial(t, "*");
  if (
    targetKind(verb) !== "path" || !star(tokens[n - 1]) || !star(tokens[n - 2])
  ) {
    return undefined;
  }
  if (n === 2) return ".";
  if (!isSpecial(tokens[n - 3], "/")) return undefined;
  if (n === 3) return "/";
  const directory = target.slice(0, -3);
  return directory === "." || directory === "/" ? "" : directory;
}

/** The shape of a pattern, from its tokens; the structure only. */
function parseTokens(
  verb: string,
  target: string,
  tokens: Token[],
): Parsed | string {
  const kind = targetKind(verb);
  switch (kind) {
    case "net":
      return parseNetPattern(verb, target);
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
    case "opaque":
      return { verb, kind, item: text(tokens) };
  }
}

// scheme://host[:port], the host a dotted name or an escaped IPv6 literal.
const NET_PATTERN = new RegExp(
  `^([a-z]+)://(\\\\\\[[0-9a-f:.]+\\\\\\]|[.${HOST_CHARS}]+)(?::(0|[1-9][0-9]{0,4}))?$`,
);

function parseNetPattern(verb: string, target: string): Parsed | string {
  const match = NET_PATTERN.exec(target);
  const problem = `network target ${
    JSON.stringify(target)
  } is not canonical: expected scheme://host[:port] with a lowercase host and no default port`;
  if (match === null) return problem;
  const [, scheme, rawHost, port] = match;
  if (!isNetScheme(scheme)) return problem;
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

/**
 * Whether the rule matches every target the pattern names: the one
 * target, or, for a subtree, the directory and every name below it.
 */
export function matches(compiled: Compiled, parsed: Parsed): boolean {
  if (compiled.verb !== parsed.verb) return false;
  for (const form of compiled.alternatives) {
    if (
      parsed.kind === "path" && parsed.subtree
        ? subtreeMatch(form, parsed, "every")
        : matchForm(form, parsed)
    ) {
      return true;
    }
  }
  return false;
}

/**
 * Whether the rule matches some target the pattern names: for a deny or an
 * ask rule, which a subtree meets when any name below it could match.
 */
export function overlaps(compiled: Compiled, parsed: Parsed): boolean {
  if (!(parsed.kind === "path" && parsed.subtree)) {
    return matches(compiled, parsed);
  }
  if (compiled.verb !== parsed.verb) return false;
  return compiled.alternatives.some((form) =>
    subtreeMatch(form, parsed, "some")
  );
}

/**
 * A path rule against a subtree: the rule's items are run over the
 * directory's segments (ANY may also take none); from the states reached,
 * `some` name below may still match (a rule glob is taken as matching some
 * name: counting more overlaps is the strict side), or `every` name does
 * (all the rule's remaining items are `**`).
 */
function subtreeMatch(
  form: Form,
  parsed: Parsed & { kind: "path" },
  mode: "some" | "every",
): boolean {
  if (form.kind !== "path" || form.absolute !== parsed.absolute) return false;
  const { items } = form;
  const closure = (states: Set<number>) => {
    for (const state of states) {
      if (items[state] === ANY) states.add(state + 1);
    }
    return states;
  };
  let states = closure(new Set([0]));
  for (const value of parsed.items) {
    const next = new Set<number>();
    for (const state of states) {
      if (state >= items.length) continue;
      const item = items[state];
      if (item === ANY) next.add(state);
      else if (matchItem(item, value)) next.add(state + 1);
    }
    states = closure(next);
    if (states.size === 0) return false;
  }
  if (mode === "some") return states.size > 0;
  for (const state of states) {
    if (state < items.length && items.slice(state).every((i) => i === ANY)) {
      return true;
    }
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
        (form.port === ANY ||
          (form.port === undefined
            ? parsed.port === undefined
            : parsed.port !== undefined &&
              matchItem(form.port, parsed.port))) &&
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
