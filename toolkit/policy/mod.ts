/**
 * The host side of the permission-pattern probe: rules with wildcards that
 * match canonical patterns, and a {@linkcode Policy} of allow, ask and deny
 * rules that turns the patterns of one call into one decision.
 *
 * Rules use the pattern grammar (`verb:target`, checked by the same code as
 * `validate()`), with wildcards that follow the shape of each verb's target:
 *
 * - paths (`read`, `write`, `delete`): `*` within one segment, `**` a whole
 *   segment standing for zero or more segments (`src/**` matches `src`);
 *   relative rules match root-relative targets, `/…` rules absolute ones.
 * - hosts (`net:scheme://host[:port]`): `*` one label, `**` zero or more
 *   labels, so `*.example.com` does not match `example.com`.
 * - commands (`exec`): `*` one argument, `**` zero or more arguments.
 * - everywhere: `?` one character, `[a-z]`/`[!a-z]` a character class,
 *   `{a,b}` alternatives, `\` escapes the next character.
 *
 * A path pattern ending in an unescaped `**` (`read:notes/**`, `read:**`)
 * names a subtree, as a recursive listing reads it: a deny or ask rule that
 * could match any name below it decides it, and it is allowed only when one
 * allow rule matches every name.
 *
 * Matching is anchored (the whole target must match) and case-sensitive.
 * Bad rules are refused when loaded, with a {@linkcode RuleSyntaxError} that
 * names the rule.
 *
 * Runs on Deno, Node (20 and later), Bun and Cloudflare Workers (workerd):
 * nothing here reaches for `Deno` at import or when called.
 *
 * @example Decide a call
 * ```ts
 * import { Policy } from "@forge/toolkit/policy";
 *
 * const policy = new Policy({
 *   allow: ["read:**", "write:src/**"],
 *   deny: ["write:src/secrets/**", "exec:rm **"],
 * });
 * policy.evaluate(["read:README.md", "write:src/a.ts"]).decision; // "allow"
 * policy.evaluate(["write:src/secrets/key"]).decision; // "deny"
 * policy.evaluate(["net:https://example.com"]).decision; // "ask"
 * ```
 *
 * @module
 */

export {
  type Decision,
  type Evaluation,
  type PatternEvaluation,
} from "./decision.ts";
export { Policy, type PolicyRules } from "./policy.ts";
export { matchPattern, Rule } from "./rule.ts";
export {
  RuleSyntaxError,
  type RuleSyntaxErrorOptions,
} from "./rule_syntax_error.ts";
