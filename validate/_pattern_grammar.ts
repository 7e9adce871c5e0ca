// The permission-pattern grammar (`verb:target`), its one home. validate(),
// the probe, the canonical builders and the host-side matcher all read it
// from here so that they agree exactly. A leaf: it imports nothing, so that
// validate/ may use it without an import circle.

/**
 * The verbs a permission pattern may use, besides `x-<name>` extensions.
 *
 * @example
 * ```ts
 * import { PATTERN_VERBS } from "./_pattern_grammar.ts";
 *
 * PATTERN_VERBS.includes("write"); // true
 * ```
 */
export const PATTERN_VERBS: readonly string[] = [
  "read",
  "write",
  "delete",
  "exec",
  "net",
];

/**
 * An extension verb: `x-` followed by `[a-z0-9][a-z0-9-]*`.
 *
 * @example
 * ```ts
 * import { EXTENSION_VERB } from "./_pattern_grammar.ts";
 *
 * EXTENSION_VERB.test("x-deploy"); // true
 * ```
 */
export const EXTENSION_VERB: RegExp = /^x-[a-z0-9][a-z0-9-]*$/;

/**
 * The characters no target holds, as the body of a regular-expression
 * class: C0 controls, DEL and C1 controls.
 *
 * @example
 * ```ts
 * import { CONTROL_CHARS } from "./_pattern_grammar.ts";
 *
 * new RegExp(`[${CONTROL_CHARS}]`, "u").test("a\tb"); // true
 * ```
 */
export const CONTROL_CHARS = "\\u0000-\\u001f\\u007f-\\u009f";

/**
 * Finds the first control character (see {@linkcode CONTROL_CHARS}).
 *
 * @example
 * ```ts
 * import { CONTROL } from "./_pattern_grammar.ts";
 *
 * CONTROL.exec("ab\u0007")?.index; // 2
 * ```
 */
export const CONTROL: RegExp = new RegExp(`[${CONTROL_CHARS}]`, "u");

/**
 * The glob characters of a rule, which a pattern always escapes.
 *
 * @example
 * ```ts
 * import { GLOB_CHARS } from "./_pattern_grammar.ts";
 *
 * GLOB_CHARS.has("*"); // true
 * ```
 */
export const GLOB_CHARS: ReadonlySet<string> = new Set([
  "*",
  "?",
  "[",
  "]",
  "{",
  "}",
]);

/**
 * The characters a backslash makes literal: `\\`, the glob characters, the
 * quote and the space.
 *
 * @example
 * ```ts
 * import { LITERAL_ESCAPES } from "./_pattern_grammar.ts";
 *
 * LITERAL_ESCAPES.has(" "); // true: `\ ` is a space inside one argument
 * ```
 */
export const LITERAL_ESCAPES: ReadonlySet<string> = new Set([
  "\\",
  ...GLOB_CHARS,
  '"',
  " ",
]);

/**
 * The letter escapes of control characters: `\n`, `\r`, `\t`. Any other
 * control character is written `\u{hex}`.
 *
 * @example
 * ```ts
 * import { CONTROL_ESCAPES } from "./_pattern_grammar.ts";
 *
 * CONTROL_ESCAPES.n; // "\n"
 * ```
 */
export const CONTROL_ESCAPES: Readonly<Record<string, string>> = {
  n: "\n",
  r: "\r",
  t: "\t",
};

/**
 * The schemes a network target may use.
 *
 * @example
 * ```ts
 * import { netAccess } from "@forge/toolkit";
 * import { type NetScheme } from "@forge/toolkit/patterns";
 *
 * const schemes: NetScheme[] = ["https", "wss"];
 * netAccess("https://example.com", { schemes });
 * ```
 */
export type NetScheme = "http" | "https" | "ws" | "wss";

/**
 * Every {@linkcode NetScheme}, in the order messages list them.
 *
 * @example
 * ```ts
 * import { NET_SCHEMES } from "./_pattern_grammar.ts";
 *
 * NET_SCHEMES.includes("wss"); // true
 * ```
 */
export const NET_SCHEMES: readonly NetScheme[] = ["http", "https", "ws", "wss"];

/**
 * Whether `value` is one of {@linkcode NET_SCHEMES}.
 *
 * @example
 * ```ts
 * import { isNetScheme } from "./_pattern_grammar.ts";
 *
 * isNetScheme("ftp"); // false
 * ```
 *
 * @param value Any value.
 * @returns `true` for http, https, ws and wss.
 */
export function isNetScheme(value: unknown): value is NetScheme {
  return (NET_SCHEMES as readonly unknown[]).includes(value);
}

/**
 * The default port of each scheme, which a canonical target never names.
 *
 * @example
 * ```ts
 * import { DEFAULT_PORTS } from "./_pattern_grammar.ts";
 *
 * DEFAULT_PORTS.https; // "443"
 * ```
 */
export const DEFAULT_PORTS: Readonly<Record<NetScheme, string>> = {
  http: "80",
  https: "443",
  ws: "80",
  wss: "443",
};

/**
 * The characters of a host label after WHATWG parsing and IDNA, as the body
 * of a regular-expression class: lowercase letters, digits, `_` and `-`.
 *
 * @example
 * ```ts
 * import { HOST_CHARS } from "./_pattern_grammar.ts";
 *
 * new RegExp(`^[.${HOST_CHARS}]+$`).test("api.example.com"); // true
 * ```
 */
export const HOST_CHARS = "a-z0-9_-";

/**
 * A host label: one or more {@linkcode HOST_CHARS}.
 *
 * @example
 * ```ts
 * import { HOST_LABEL } from "./_pattern_grammar.ts";
 *
 * HOST_LABEL.test("xn--bcher-kva"); // true
 * ```
 */
export const HOST_LABEL: RegExp = new RegExp(`^[${HOST_CHARS}]+$`);

/**
 * A pattern split into its verb and target.
 *
 * @example
 * ```ts
 * import { type PatternParts } from "./_pattern_grammar.ts";
 *
 * const parts: PatternParts = { verb: "write", target: "a.txt" };
 * ```
 */
export interface PatternParts {
  /** The verb, such as `write` or `x-deploy`. */
  verb: string;
  /** The target after the first colon. */
  target: string;
}

/**
 * What is wrong with a pattern, and where.
 *
 * @example
 * ```ts
 * import { type PatternProblem, patternProblem } from "./_pattern_grammar.ts";
 *
 * patternProblem("read:")?.kind; // "empty-target"
 * ```
 */
export interface PatternProblem {
  /** Which rule of the grammar the pattern breaks. */
  kind: "not-string" | "no-colon" | "verb" | "empty-target" | "control" | "nfc";
  /** What is wrong and what was expected. */
  message: string;
  /** The 0-based UTF-16 offset where the part to fix starts. */
  start: number;
  /** The offset just after the part to fix. */
  end: number;
}

/**
 * Whether `verb` is one of {@linkcode PATTERN_VERBS} or an extension.
 *
 * @example
 * ```ts
 * import { isPatternVerb } from "./_pattern_grammar.ts";
 *
 * isPatternVerb("Read"); // false: verbs are lowercase
 * ```
 *
 * @param verb The text before the first colon.
 * @returns `true` for a verb of the grammar.
 */
export function isPatternVerb(verb: string): boolean {
  return PATTERN_VERBS.includes(verb) || EXTENSION_VERB.test(verb);
}

/**
 * The shape of a verb's target: path segments, exec arguments, a network
 * endpoint, or one opaque item (the `x-` extensions).
 *
 * @example
 * ```ts
 * import { type TargetKind } from "./_pattern_grammar.ts";
 *
 * const kind: TargetKind = "path";
 * ```
 */
export type TargetKind = "path" | "exec" | "net" | "opaque";

/**
 * The {@linkcode TargetKind} of a verb.
 *
 * @example
 * ```ts
 * import { targetKind } from "./_pattern_grammar.ts";
 *
 * targetKind("delete"); // "path"
 * targetKind("x-deploy"); // "opaque"
 * ```
 *
 * @param verb A verb of the grammar.
 * @returns The shape of its target.
 */
export function targetKind(verb: string): TargetKind {
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

/**
 * `U+0007` for a character: how messages name a control character.
 *
 * @example
 * ```ts
 * import { codePointName } from "./_pattern_grammar.ts";
 *
 * codePointName("\u0007"); // "U+0007"
 * ```
 *
 * @param char One character.
 * @returns Its code point in the Unicode notation.
 */
export function codePointName(char: string): string {
  const hex = char.codePointAt(0)!.toString(16).toUpperCase();
  return `U+${hex.padStart(4, "0")}`;
}

/**
 * Checks a permission pattern against the grammar: a verb, a colon and a
 * non-empty target in NFC without control characters.
 *
 * @example
 * ```ts
 * import { patternProblem } from "./_pattern_grammar.ts";
 *
 * patternProblem("read:a"); // undefined
 * patternProblem("Read:a")?.end; // 4: the verb
 * ```
 *
 * @param pattern The pattern to check.
 * @returns `undefined` for a pattern that follows the grammar, else what is
 * wrong and the range of the pattern to fix.
 */
export function patternProblem(pattern: string): PatternProblem | undefined {
  const checked = splitPattern(pattern);
  return "kind" in checked ? checked : undefined;
}

/**
 * Checks a permission pattern against the grammar and returns its parts, or
 * a sentence saying what is wrong and what was expected.
 *
 * @example
 * ```ts
 * import { checkPattern } from "./_pattern_grammar.ts";
 *
 * checkPattern("write:a.txt"); // { verb: "write", target: "a.txt" }
 * checkPattern("WRITE:a.txt"); // 'unknown verb "WRITE": …'
 * ```
 *
 * @param pattern The pattern to check.
 * @returns The verb and target, or the problem.
 */
export function checkPattern(pattern: string): PatternParts | string {
  const checked = splitPattern(pattern);
  return "kind" in checked ? checked.message : checked;
}

// One pass for both answers: a policy checks every pattern of every call.
function splitPattern(pattern: string): PatternParts | PatternProblem {
  if (typeof pattern !== "string") {
    return {
      kind: "not-string",
      message: `expected a string "verb:target", got ${
        pattern === null ? "null" : typeof pattern
      }`,
      start: 0,
      end: 0,
    };
  }
  const colon = pattern.indexOf(":");
  if (colon === -1) {
    return {
      kind: "no-colon",
      message: `expected "verb:target", got ${
        JSON.stringify(pattern)
      } (no colon)`,
      start: 0,
      end: pattern.length,
    };
  }
  const verb = pattern.slice(0, colon);
  const target = pattern.slice(colon + 1);
  if (!isPatternVerb(verb)) {
    const lower = verb.toLowerCase();
    const hint = verb !== lower && isPatternVerb(lower)
      ? ` (verbs are lowercase: "${lower}")`
      : "";
    return {
      kind: "verb",
      message: `unknown verb ${JSON.stringify(verb)}: expected one of ${
        PATTERN_VERBS.join(", ")
      } or x-<name>${hint}`,
      start: 0,
      end: colon,
    };
  }
  if (target === "") {
    return {
      kind: "empty-target",
      message: `empty target in ${
        JSON.stringify(pattern)
      }: expected "${verb}:<target>"`,
      start: colon,
      end: colon + 1,
    };
  }
  const control = CONTROL.exec(target);
  if (control !== null) {
    const start = colon + 1 + control.index;
    return {
      kind: "control",
      message: `target contains control character ${
        codePointName(control[0])
      } at offset ${control.index}`,
      start,
      end: start + 1,
    };
  }
  const normal = target.normalize("NFC");
  if (target !== normal) {
    // Where NFC first changes the text: the start of the sequence to rewrite.
    let i = 0;
    while (i < target.length && target[i] === normal[i]) i++;
    return {
      kind: "nfc",
      message: "target is not in Unicode NFC form",
      start: colon + 1 + i,
      end: colon + 2 + i,
    };
  }
  return { verb, target };
}
