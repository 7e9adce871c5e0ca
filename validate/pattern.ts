// The permission-pattern grammar (`verb:target`), shared by validate(),
// the probe and the host-side matcher so that all three agree exactly.

/** The verbs a permission pattern may use, besides `x-<name>` extensions. */
export const PATTERN_VERBS: readonly string[] = [
  "read",
  "write",
  "delete",
  "exec",
  "net",
];

const EXTENSION_VERB = /^x-[a-z0-9][a-z0-9-]*$/;
// C0 controls, DEL and C1 controls.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;

/** A pattern split into its verb and target. */
export interface PatternParts {
  /** The verb, such as `write` or `x-deploy`. */
  verb: string;
  /** The target after the first colon. */
  target: string;
}

/**
 * Checks a permission pattern against the grammar and returns its parts, or
 * a sentence saying what is wrong and what was expected.
 */
export function checkPattern(pattern: string): PatternParts | string {
  if (typeof pattern !== "string") {
    return `expected a string "verb:target", got ${
      pattern === null ? "null" : typeof pattern
    }`;
  }
  const colon = pattern.indexOf(":");
  if (colon === -1) {
    return `expected "verb:target", got ${JSON.stringify(pattern)} (no colon)`;
  }
  const verb = pattern.slice(0, colon);
  const target = pattern.slice(colon + 1);
  if (!PATTERN_VERBS.includes(verb) && !EXTENSION_VERB.test(verb)) {
    const lower = verb.toLowerCase();
    const hint = verb !== lower &&
        (PATTERN_VERBS.includes(lower) || EXTENSION_VERB.test(lower))
      ? ` (verbs are lowercase: "${lower}")`
      : "";
    return `unknown verb ${JSON.stringify(verb)}: expected one of ${
      PATTERN_VERBS.join(", ")
    } or x-<name>${hint}`;
  }
  if (target === "") {
    return `empty target in ${
      JSON.stringify(pattern)
    }: expected "${verb}:<target>"`;
  }
  const control = CONTROL.exec(target);
  if (control !== null) {
    const code = control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(
      4,
      "0",
    );
    return `target contains control character U+${code} at offset ${control.index}`;
  }
  if (target !== target.normalize("NFC")) {
    return "target is not in Unicode NFC form";
  }
  return { verb, target };
}
