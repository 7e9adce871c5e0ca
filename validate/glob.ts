// Glob patterns as tools take them: `*` within a path segment, `**` as a
// whole segment for any depth, `?`, `[…]` classes, `{a,b}` alternatives and
// `\` escapes, with `/` as the only separator.

import { Locator } from "./position.ts";
import type { Diagnostic } from "./types.ts";
import type { Parsed } from "./parsed.ts";

interface Problem {
  start: number;
  end: number;
  message: string;
}

/** Checks glob syntax; the value is the pattern itself. */
export function parseGlob(text: string): Parsed {
  const locator = new Locator(text);
  if (text === "") {
    return {
      ok: false,
      diagnostics: [{
        line: 1,
        column: 1,
        message: "Empty glob: expected a pattern such as src/**/*.ts",
        severity: "error",
      }],
    };
  }
  const warnings: Problem[] = [];
  const error = scan(text, warnings);
  const toDiagnostic = (
    p: Problem,
    severity: "error" | "warning",
  ): Diagnostic => locator.diagnostic(p.start, p.message, severity, p.end);
  if (error !== undefined) {
    return { ok: false, diagnostics: [toDiagnostic(error, "error")] };
  }
  return {
    ok: true,
    value: text,
    diagnostics: warnings.map((w) => toDiagnostic(w, "warning")),
  };
}

function scan(text: string, warnings: Problem[]): Problem | undefined {
  const braces: number[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) {
      return {
        start: i,
        end: i + 1,
        message: `Control character U+${
          code.toString(16).toUpperCase().padStart(4, "0")
        } in a glob: expected printable characters`,
      };
    }
    if (c === "\\") {
      if (i + 1 >= text.length) {
        return {
          start: i,
          end: i + 1,
          message:
            "Backslash at the end of the glob: it escapes the next character, so write \\\\ for a literal backslash",
        };
      }
      const next = text[i + 1];
      if (/[A-Za-z0-9]/.test(next)) {
        warnings.push({
          start: i,
          end: i + 2,
          message:
            `'\\${next}' escapes '${next}', which needs no escaping: globs use '/' as the path separator, not '\\'`,
        });
      }
      i += 2;
      continue;
    }
    if (c === "*") {
      let run = 1;
      while (text[i + run] === "*") run++;
      if (run >= 2) {
        const before = i === 0 || text[i - 1] === "/" ||
          (text[i - 1] === "{" || text[i - 1] === ",");
        const after = i + run === text.length || text[i + run] === "/" ||
          text[i + run] === "}" || text[i + run] === ",";
        if (run > 2 || !before || !after) {
          return {
            start: i,
            end: i + run,
            message: run > 2
              ? `'${
                "*".repeat(run)
              }' is not a glob wildcard: use '*' within a name or '**' as a whole path segment`
              : "'**' must be a whole path segment (such as src/**/x.ts): within a name use '*'",
          };
        }
      }
      i += run;
      continue;
    }
    if (c === "[") {
      const problem = scanClass(text, i);
      if (typeof problem !== "number") return problem;
      i = problem;
      continue;
    }
    if (c === "{") {
      braces.push(i);
      i++;
      continue;
    }
    if (c === "}") {
      if (braces.pop() === undefined) {
        return {
          start: i,
          end: i + 1,
          message: "Unmatched '}': escape it as \\} or add the '{' it closes",
        };
      }
      i++;
      continue;
    }
    if (c === "]") {
      return {
        start: i,
        end: i + 1,
        message: "Unmatched ']': escape it as \\] or add the '[' it closes",
      };
    }
    i += text.codePointAt(i)! > 0xffff ? 2 : 1;
  }
  const open = braces.pop();
  if (open !== undefined) {
    return {
      start: open,
      end: open + 1,
      message:
        "Unclosed '{': expected '}' to end the alternatives, such as {a,b}",
    };
  }
  return undefined;
}

// Reads `[…]` from `start`; returns the offset after ']' or the problem.
function scanClass(text: string, start: number): number | Problem {
  let i = start + 1;
  if (text[i] === "!" || text[i] === "^") i++;
  // A ']' first in the class is a literal.
  if (text[i] === "]") i++;
  while (i < text.length) {
    const c = text[i];
    if (c === "]") return i + 1;
    if (c === "/") {
      return {
        start: i,
        end: i + 1,
        message:
          "Path separator '/' inside a character class: a class matches one character of a name",
      };
    }
    let code: number;
    const atom = i;
    if (c === "\\") {
      if (i + 1 >= text.length) break;
      code = text.codePointAt(i + 1)!;
      i += code > 0xffff ? 3 : 2;
    } else {
      code = text.codePointAt(i)!;
      i += code > 0xffff ? 2 : 1;
    }
    if (text[i] === "-" && text[i + 1] !== "]" && i + 1 < text.length) {
      const endAtom = i + 1;
      let to: number;
      if (text[endAtom] === "\\") {
        to = text.codePointAt(endAtom + 1) ?? 0;
        i = endAtom + 1 + (to > 0xffff ? 2 : 1);
      } else {
        to = text.codePointAt(endAtom)!;
        i = endAtom + (to > 0xffff ? 2 : 1);
      }
      if (to < code) {
        return {
          start: atom,
          end: i,
          message: `Range ${
            text.slice(atom, i)
          } is out of order: expected the lower character first`,
        };
      }
      continue;
    }
  }
  return {
    start,
    end: start + 1,
    message:
      "Unclosed '[': expected ']' to end the character class (or escape it as \\[)",
  };
}
