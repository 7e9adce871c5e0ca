// JavaScript regular expressions. The engine decides validity; on failure a
// scanner that follows the ECMAScript pattern grammar finds where the
// engine's complaint applies, so the diagnostic points at the character.

import { Locator } from "./position.ts";
import type { Parsed } from "./parsed.ts";

const FLAG_NAMES = "dgimsuvy";
const SYNTAX = new Set("^$\\.*+?()[]{}|/");
const GROUP_NAME = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*$/u;
const QUANTIFIER = /\{(\d+)(?:(,)(\d*))?\}/y;

interface Located {
  /** The engine's message this problem produces, to match against. */
  kind: string;
  start: number;
  end: number;
  message: string;
}

/** Checks `source` with `flags` as the RegExp constructor would. */
export function parseRegex(source: string, flags: string): Parsed {
  const flagProblem = checkFlags(flags);
  if (flagProblem !== undefined) {
    return {
      ok: false,
      diagnostics: [{
        line: 1,
        column: 1,
        message: flagProblem,
        severity: "error",
      }],
    };
  }
  try {
    return { ok: true, value: new RegExp(source, flags), diagnostics: [] };
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    const kind = engineMessage(error.message, source, flags);
    const found = locate(source, flags);
    const locator = new Locator(source);
    if (found !== undefined && found.kind === kind) {
      return {
        ok: false,
        diagnostics: [
          locator.diagnostic(found.start, found.message, "error", found.end),
        ],
      };
    }
    return {
      ok: false,
      diagnostics: [
        locator.diagnostic(
          0,
          `Invalid regular expression: ${kind}`,
          "error",
          source.length,
        ),
      ],
    };
  }
}

function checkFlags(flags: string): string | undefined {
  const seen = new Set<string>();
  for (const flag of flags) {
    if (!FLAG_NAMES.includes(flag)) {
      return `Invalid regular expression flag "${flag}": expected some of ${
        FLAG_NAMES.split("").join(", ")
      }`;
    }
    if (seen.has(flag)) {
      return `Repeated regular expression flag "${flag}": each flag may appear once`;
    }
    seen.add(flag);
  }
  if (seen.has("u") && seen.has("v")) {
    return 'Regular expression flags "u" and "v" cannot be combined: use one of them';
  }
  return undefined;
}

function engineMessage(message: string, source: string, flags: string): string {
  const prefix = `Invalid regular expression: /${source}/${flags}: `;
  if (message.startsWith(prefix)) return message.slice(prefix.length);
  const colon = message.lastIndexOf(": ");
  return colon === -1 ? message : message.slice(colon + 2);
}

interface Group {
  start: number;
  lookbehind: boolean;
  lookahead: boolean;
}

/** Finds the first problem in `source`, mirroring the engine's checks. */
function locate(source: string, flags: string): Located | undefined {
  const unicode = flags.includes("u") || flags.includes("v");
  const sets = flags.includes("v");
  const names = collectGroupNames(source);
  const hasNames = names.all.size > 0;
  const stack: Group[] = [];
  let canQuantify = false;
  let i = 0;
  const fail = (kind: string, start: number, end: number, message: string) => ({
    kind,
    start,
    end,
    message,
  });
  while (i < source.length) {
    const c = source[i];
    if (c === "\\") {
      if (i + 1 >= source.length) {
        return fail(
          "\\ at end of pattern",
          i,
          i + 1,
          "Backslash at the end of the pattern: escape it as \\\\ or complete the escape",
        );
      }
      const escape = checkEscape(source, i, unicode, hasNames, names, false);
      if ("kind" in escape) return escape;
      canQuantify = !escape.assertion;
      i = escape.end;
      continue;
    }
    if (c === "(") {
      if (source[i + 1] === "?") {
        const rest = source.slice(i + 2);
        let skip: number;
        let lookbehind = false;
        let lookahead = false;
        if (rest.startsWith(":")) skip = 3;
        else if (rest.startsWith("=") || rest.startsWith("!")) {
          skip = 3;
          lookahead = true;
        } else if (rest.startsWith("<=") || rest.startsWith("<!")) {
          skip = 4;
          lookbehind = true;
        } else if (rest.startsWith("<")) {
          const close = source.indexOf(">", i + 3);
          const name = close === -1 ? "" : source.slice(i + 3, close);
          if (close === -1 || !GROUP_NAME.test(name)) {
            return fail(
              "Invalid capture group name",
              i + 3,
              close === -1 ? i + 3 : close,
              `Invalid capture group name "${name}": expected an identifier such as (?<year>…) closed by '>'`,
            );
          }
          if (names.duplicates.has(i)) {
            return fail(
              "Duplicate capture group name",
              i + 3,
              close,
              `Duplicate capture group name "${name}": each name may be used once (or once per alternative)`,
            );
          }
          skip = 3 + name.length + 1;
        } else {
          const modifiers = /^([ims]*)(?:-([ims]*))?:/.exec(rest);
          if (modifiers === null) {
            return fail(
              "Invalid group",
              i,
              i + 3,
              "Invalid group '(?" + (rest[0] ?? "") +
                "': expected (?: (?= (?! (?<= (?<! (?<name> or flag modifiers such as (?i:",
            );
          }
          if (
            modifiers[2] !== undefined && modifiers[1] + modifiers[2] === ""
          ) {
            return fail(
              "Invalid flag group",
              i,
              i + modifiers[0].length + 2,
              "Empty modifier group '(?-:': expected flags to add or remove, such as (?i-m:",
            );
          }
          const all = modifiers[1] + (modifiers[2] ?? "");
          if (new Set(all).size !== all.length) {
            return fail(
              "Repeated flag in flag group",
              i + 2,
              i + 2 + modifiers[0].length - 1,
              "Repeated flag in the modifier group: each of i, m, s may appear once",
            );
          }
          skip = 2 + modifiers[0].length;
        }
        stack.push({ start: i, lookbehind, lookahead });
        i += skip;
      } else {
        stack.push({ start: i, lookbehind: false, lookahead: false });
        i++;
      }
      canQuantify = false;
      continue;
    }
    if (c === ")") {
      const group = stack.pop();
      if (group === undefined) {
        return fail(
          "Unmatched ')'",
          i,
          i + 1,
          "Unmatched ')': escape it as \\) or add the '(' it closes",
        );
      }
      i++;
      if (group.lookbehind || (unicode && group.lookahead)) {
        if (/^[*+?{]/.test(source[i] ?? "")) {
          QUANTIFIER.lastIndex = i;
          if (source[i] !== "{" || QUANTIFIER.test(source)) {
            return fail(
              "Invalid quantifier",
              i,
              i + 1,
              "A lookaround assertion cannot be repeated: remove the quantifier",
            );
          }
        }
        canQuantify = false;
      } else {
        canQuantify = true;
      }
      continue;
    }
    if (c === "[") {
      const cls = checkClass(source, i, unicode, sets, hasNames, names);
      if ("kind" in cls) return cls;
      i = cls.end;
      canQuantify = true;
      continue;
    }
    if (c === "*" || c === "+" || c === "?") {
      if (!canQuantify) {
        return fail(
          "Nothing to repeat",
          i,
          i + 1,
          `Nothing to repeat before '${c}': escape it as \\${c} or put it after a character or group`,
        );
      }
      i++;
      if (source[i] === "?") i++;
      canQuantify = false;
      continue;
    }
    if (c === "{") {
      QUANTIFIER.lastIndex = i;
      const match = QUANTIFIER.exec(source);
      if (match !== null) {
        if (!canQuantify) {
          return fail(
            "Nothing to repeat",
            i,
            i + match[0].length,
            `Nothing to repeat before '${
              match[0]
            }': put it after a character or group`,
          );
        }
        if (
          match[2] !== undefined && match[3] !== "" &&
          Number(match[3]) < Number(match[1])
        ) {
          return fail(
            "numbers out of order in {} quantifier",
            i,
            i + match[0].length,
            `Quantifier ${
              match[0]
            } has its numbers out of order: expected the minimum first`,
          );
        }
        i += match[0].length;
        if (source[i] === "?") i++;
        canQuantify = false;
        continue;
      }
      if (unicode) {
        return fail(
          canQuantify ? "Incomplete quantifier" : "Lone quantifier brackets",
          i,
          i + 1,
          canQuantify
            ? "Incomplete quantifier: expected {n}, {n,} or {n,m} (or escape the brace as \\{)"
            : "Lone '{' with the u or v flag: escape it as \\{",
        );
      }
      i++;
      canQuantify = true;
      continue;
    }
    if ((c === "}" || c === "]") && unicode) {
      return fail(
        "Lone quantifier brackets",
        i,
        i + 1,
        `Lone '${c}' with the u or v flag: escape it as \\${c}`,
      );
    }
    if (c === "|" || c === "^" || c === "$") {
      canQuantify = false;
      i++;
      continue;
    }
    canQuantify = true;
    i += unicode && source.codePointAt(i)! > 0xffff ? 2 : 1;
  }
  const open = stack.pop();
  if (open !== undefined) {
    return fail(
      "Unterminated group",
      open.start,
      open.start + 1,
      "Unterminated group: expected ')' to close this '(' (or escape it as \\()",
    );
  }
  return undefined;
}

interface NameInfo {
  all: Set<string>;
  /** Offsets of group openings whose name repeats one in the same branch. */
  duplicates: Set<number>;
}

// Named groups, and which names repeat within the same alternative (names
// may repeat across alternatives since ES2025).
function collectGroupNames(source: string): NameInfo {
  const all = new Set<string>();
  const duplicates = new Set<number>();
  const pattern = /\\.|\[(?:\\.|[^\]\\])*\]|\(\?<([^>=!]*)>|\||\(|\)/gsu;
  // Each level keeps the names seen on the current path through branches.
  const levels: { before: Set<string>; branch: Set<string> }[] = [{
    before: new Set(),
    branch: new Set(),
  }];
  for (const match of source.matchAll(pattern)) {
    const token = match[0];
    const level = levels[levels.length - 1];
    if (match[1] !== undefined) {
      const name = match[1];
      all.add(name);
      if (level.branch.has(name) || level.before.has(name)) {
        duplicates.add(match.index);
      }
      level.branch.add(name);
      levels.push({
        before: new Set([...level.before, ...level.branch]),
        branch: new Set(),
      });
    } else if (token === "(") {
      levels.push({
        before: new Set([...level.before, ...level.branch]),
        branch: new Set(),
      });
    } else if (token === "|") {
      level.branch = new Set();
    } else if (token === ")" && levels.length > 1) {
      const closed = levels.pop()!;
      const parent = levels[levels.length - 1];
      for (const name of closed.branch) parent.branch.add(name);
    }
  }
  return { all, duplicates };
}

type EscapeResult =
  | { end: number; assertion: boolean; code?: number }
  | Located;

function checkEscape(
  source: string,
  i: number,
  unicode: boolean,
  hasNames: boolean,
  names: NameInfo,
  inClass: boolean,
): EscapeResult {
  const next = source[i + 1];
  const fail = (kind: string, end: number, message: string): Located => ({
    kind,
    start: i,
    end,
    message,
  });
  if (!inClass && (next === "b" || next === "B")) {
    return { end: i + 2, assertion: true };
  }
  if (next === "k" && (unicode || hasNames)) {
    const match = /^\\k<([^>]*)>/.exec(source.slice(i));
    if (match === null && source.startsWith("\\k<", i)) {
      return fail(
        "Invalid capture group name",
        i + 3,
        "Unclosed group name in \\k<…: expected '>' after the name",
      );
    }
    if (match === null) {
      return fail(
        "Invalid named reference",
        i + 2,
        "Invalid named reference: expected \\k<name>",
      );
    }
    if (!names.all.has(match[1])) {
      return fail(
        "Invalid named capture referenced",
        i + match[0].length,
        `Reference to an unknown group name "${
          match[1]
        }": expected a name defined by (?<${match[1]}>…)`,
      );
    }
    return { end: i + match[0].length, assertion: false };
  }
  if (unicode) {
    if (next === "u") {
      const braced = /^\\u\{([0-9a-fA-F]+)\}/.exec(source.slice(i));
      if (braced !== null) {
        if (parseInt(braced[1], 16) > 0x10ffff) {
          return fail(
            "Invalid Unicode escape",
            i + braced[0].length,
            "Unicode escape beyond U+10FFFF: expected \\u{0} to \\u{10FFFF}",
          );
        }
        return {
          end: i + braced[0].length,
          assertion: false,
          code: parseInt(braced[1], 16),
        };
      }
      const plain = /^\\u[0-9a-fA-F]{4}/.exec(source.slice(i));
      if (plain === null) {
        return fail(
          "Invalid Unicode escape",
          i + 2,
          "Invalid Unicode escape: expected \\uXXXX or \\u{X…} with the u or v flag",
        );
      }
      return {
        end: i + 6,
        assertion: false,
        code: parseInt(source.slice(i + 2, i + 6), 16),
      };
    }
    if (next === "x") {
      if (!/^\\x[0-9a-fA-F]{2}/.test(source.slice(i))) {
        return fail(
          "Invalid escape",
          i + 2,
          "Invalid escape: expected \\x followed by two hex digits",
        );
      }
      return {
        end: i + 4,
        assertion: false,
        code: parseInt(source.slice(i + 2, i + 4), 16),
      };
    }
    if (next === "c") {
      if (!/^[A-Za-z]$/.test(source[i + 2] ?? "")) {
        return fail(
          "Invalid Unicode escape",
          i + 2,
          "Invalid control escape: expected \\c followed by a letter",
        );
      }
      return { end: i + 3, assertion: false };
    }
    if (next === "p" || next === "P") {
      const match = /^\\[pP]\{[^}]*\}/.exec(source.slice(i));
      const text = match === null ? source.slice(i, i + 2) : match[0];
      let valid = match !== null;
      if (valid) {
        try {
          new RegExp(text, "u");
        } catch {
          valid = false;
        }
      }
      if (!valid) {
        return fail(
          inClass
            ? "Invalid property name in character class"
            : "Invalid property name",
          i + text.length,
          match === null
            ? `Incomplete Unicode property escape \\${next}: expected \\${next}{Name} closed by '}'`
            : `Invalid Unicode property ${text}: expected a name such as \\p{L}, \\p{Script=Greek} or \\p{ASCII_Hex_Digit}`,
        );
      }
      return { end: i + text.length, assertion: false };
    }
    if (next === "0" && /[0-9]/.test(source[i + 2] ?? "")) {
      return fail(
        "Invalid decimal escape",
        i + 3,
        "Invalid decimal escape: \\0 cannot be followed by a digit with the u or v flag",
      );
    }
    if (/[1-9]/.test(next)) {
      if (inClass) {
        return fail(
          "Invalid class escape",
          i + 2,
          `Invalid escape \\${next} in a character class with the u or v flag`,
        );
      }
      const digits = /^\d+/.exec(source.slice(i + 1))![0];
      const groups = countGroups(source);
      if (Number(digits) > groups) {
        return fail(
          "Invalid escape",
          i + 1 + digits.length,
          `Backreference \\${digits} to a group that does not exist: the pattern has ${groups} capturing group${
            groups === 1 ? "" : "s"
          }`,
        );
      }
      return { end: i + 1 + digits.length, assertion: false };
    }
    const char = String.fromCodePoint(source.codePointAt(i + 1)!);
    if (
      !SYNTAX.has(char) && !"dDsSwWfnrtv0".includes(char) &&
      !(inClass && (char === "-" || char === "b"))
    ) {
      return fail(
        "Invalid escape",
        i + 1 + char.length,
        `Invalid escape \\${char} with the u or v flag: only syntax characters such as \\. \\( \\/ may be escaped`,
      );
    }
    return {
      end: i + 1 + char.length,
      assertion: false,
      code: escapedCode(char),
    };
  }
  const char = String.fromCodePoint(source.codePointAt(i + 1)!);
  return {
    end: i + 1 + char.length,
    assertion: false,
    code: escapedCode(char),
  };
}

function escapedCode(char: string): number | undefined {
  if ("dDsSwW".includes(char)) return undefined; // a class, not a character
  const simple: Record<string, number> = {
    f: 12,
    n: 10,
    r: 13,
    t: 9,
    v: 11,
    0: 0,
    b: 8,
  };
  return simple[char] ?? char.codePointAt(0);
}

function countGroups(source: string): number {
  let count = 0;
  for (
    const match of source.matchAll(
      /\\.|\[(?:\\.|[^\]\\])*\]|\((?!\?)|\(\?<(?![=!])/gsu,
    )
  ) {
    if (match[0].startsWith("(")) count++;
  }
  return count;
}

/** Checks a character class starting at `start` ('['). */
function checkClass(
  source: string,
  start: number,
  unicode: boolean,
  sets: boolean,
  hasNames: boolean,
  names: NameInfo,
): { end: number } | Located {
  let i = start + 1;
  if (source[i] === "^") i++;
  let depth = 1;
  // Previous atom for range checks: its code point, or undefined for a class.
  let previous: number | undefined;
  let previousStart = -1;
  let rangeFrom: { code: number | undefined; start: number } | undefined;
  while (i < source.length) {
    const c = source[i];
    if (c === "]") {
      depth--;
      i++;
      if (depth === 0) return { end: i };
      previous = undefined;
      continue;
    }
    if (sets && c === "[") {
      depth++;
      i++;
      if (source[i] === "^") i++;
      previous = undefined;
      continue;
    }
    let code: number | undefined;
    const atomStart = i;
    if (c === "\\") {
      if (i + 1 >= source.length) break;
      if (sets && source[i + 1] === "q" && source[i + 2] === "{") {
        const close = source.indexOf("}", i + 3);
        if (close === -1) break;
        i = close + 1;
        previous = undefined;
        continue;
      }
      const escape = checkEscape(source, i, unicode, hasNames, names, true);
      if ("kind" in escape) return escape;
      code = escape.code;
      i = escape.end;
    } else if (sets && "()[]{}/|".includes(c)) {
      return {
        kind: "Invalid character in character class",
        start: i,
        end: i + 1,
        message:
          `Character '${c}' must be escaped in a character class with the v flag: write \\${c}`,
      };
    } else if (sets && (c === "&" || c === "-") && source[i + 1] === c) {
      i += 2;
      if (source[i] === c) {
        return {
          kind: "Invalid character in character class",
          start: i,
          end: i + 1,
          message:
            `Invalid '${c}${c}${c}' in a character class: a set operator is '${c}${c}' between two operands`,
        };
      }
      previous = undefined;
      continue;
    } else if (
      c === "-" && previousStart !== -1 && source[i + 1] !== "]" &&
      rangeFrom === undefined
    ) {
      rangeFrom = { code: previous, start: previousStart };
      i++;
      continue;
    } else {
      // Without u or v, a pattern is read in UTF-16 code units.
      code = unicode ? source.codePointAt(i)! : source.charCodeAt(i);
      i += code > 0xffff ? 2 : 1;
    }
    if (rangeFrom !== undefined) {
      if (rangeFrom.code === undefined || code === undefined) {
        if (unicode) {
          return {
            kind: "Invalid character class",
            start: rangeFrom.start,
            end: i,
            message:
              "A class escape such as \\d cannot be a range endpoint: escape the '-' as \\-",
          };
        }
      } else if (code < rangeFrom.code) {
        const surrogates = !unicode &&
          (isSurrogate(code) || isSurrogate(rangeFrom.code));
        return {
          kind: "Range out of order in character class",
          start: rangeFrom.start,
          end: i,
          message: surrogates
            ? "Range out of order: without the u flag a character beyond U+FFFF is two UTF-16 units, so this range is split; add the u (or v) flag"
            : `Range ${
              source.slice(rangeFrom.start, i)
            } is out of order: expected the lower character first`,
        };
      }
      rangeFrom = undefined;
      previous = undefined;
      previousStart = -1;
      continue;
    }
    previous = code;
    previousStart = atomStart;
  }
  return {
    kind: "Unterminated character class",
    start,
    end: start + 1,
    message:
      "Unterminated character class: expected ']' to close this '[' (or escape it as \\[)",
  };
}

function isSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdfff;
}
