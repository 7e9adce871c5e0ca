// Permission patterns (`verb:target`, see pattern.ts), located: the lead's
// checkPattern() decides, this file says which column the problem is at.

import { checkPattern } from "./pattern.ts";
import { Locator } from "./position.ts";
import type { Parsed } from "./parsed.ts";

// C0 controls, DEL and C1 controls, as pattern.ts refuses them.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;

/** Checks a permission pattern; the value is `{ verb, target }`. */
export function parseProbePattern(text: string): Parsed {
  const checked = checkPattern(text);
  if (typeof checked !== "string") {
    return { ok: true, value: checked, diagnostics: [] };
  }
  const locator = new Locator(text);
  const colon = text.indexOf(":");
  let start = 0;
  let end = text.length;
  if (colon === -1) {
    end = text.length;
  } else if (checked.startsWith("unknown verb")) {
    end = colon;
  } else if (checked.startsWith("empty target")) {
    start = colon;
    end = colon + 1;
  } else if (checked.startsWith("target contains control")) {
    const control = CONTROL.exec(text.slice(colon + 1))!;
    start = colon + 1 + control.index;
    end = start + 1;
  } else if (checked.startsWith("target is not in Unicode NFC")) {
    start = colon + 1 + firstNonNfc(text.slice(colon + 1));
    end = start + 1;
  }
  return {
    ok: false,
    diagnostics: [
      locator.diagnostic(start, sentence(checked), "error", end),
    ],
  };
}

// Where NFC first changes the text: the start of the sequence to rewrite.
function firstNonNfc(target: string): number {
  const normal = target.normalize("NFC");
  let i = 0;
  while (i < target.length && target[i] === normal[i]) i++;
  return i;
}

function sentence(problem: string): string {
  // The position is in the diagnostic; an offset in the message would
  // count UTF-16 units from another origin and confuse.
  return `Invalid permission pattern: ${
    problem.replace(/ at offset \d+$/, "")
  }`;
}
