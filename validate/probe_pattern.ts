// Permission patterns (`verb:target`), located: the grammar's
// patternProblem() decides and says where, this file makes the diagnostic.

import { patternProblem } from "./_pattern_grammar.ts";
import { Locator } from "./position.ts";
import type { Parsed } from "./parsed.ts";

/** Checks a permission pattern; the value is `{ verb, target }`. */
export function parseProbePattern(text: string): Parsed {
  const problem = patternProblem(text);
  if (problem === undefined) {
    const colon = text.indexOf(":");
    const value = { verb: text.slice(0, colon), target: text.slice(colon + 1) };
    return { ok: true, value, diagnostics: [] };
  }
  const locator = new Locator(text);
  return {
    ok: false,
    diagnostics: [
      locator.diagnostic(
        problem.start,
        sentence(problem.message),
        "error",
        problem.end,
      ),
    ],
  };
}

function sentence(problem: string): string {
  // The position is in the diagnostic; an offset in the message would
  // count UTF-16 units from another origin and confuse.
  return `Invalid permission pattern: ${
    problem.replace(/ at offset \d+$/, "")
  }`;
}
