// Internal: the policy one caller's calls are decided by, from a checked
// policy file with `principals:` (_principals.ts checks them and keeps
// what this needs with the file): the base, with the rules of every
// principal the caller's claims match added in order. Kept apart from
// _principals.ts, which policy_file.ts imports, so that the types of the
// checked file can be named here without a circle.

import type { CallerClaims } from "./_claims.ts";
import { matchesClaims } from "./_claims.ts";
import { addedRules, basesOf, type GatePrincipal } from "./_principals.ts";
import type { GatePolicy } from "./policy_file.ts";

/** Caller views of each version of a file, by server and matching set. */
const VIEWS = new WeakMap<GatePolicy, Map<string, GatePolicy>>();

/**
 * The principals of `file` that `claims` match, in the order written;
 * none for a caller without a token.
 *
 * @example
 * ```ts
 * import { parseGatePolicy } from "./policy_file.ts";
 * import { claimsOf } from "./_claims.ts";
 * import { matchingPrincipals } from "./_caller_policy.ts";
 *
 * const file = parseGatePolicy({
 *   principals: [{ match: { groups: ["admins"] }, allow: ["write:**"] }],
 * });
 * const caller = claimsOf({ scopes: [], claims: { groups: ["admins"] } });
 * matchingPrincipals(file, caller).map((p) => p.name); // ["principals[0]"]
 * ```
 */
export function matchingPrincipals(
  file: GatePolicy,
  claims: CallerClaims | undefined,
): readonly GatePrincipal[] {
  return (file.principals ?? []).filter((p) => matchesClaims(p.match, claims));
}

/**
 * The policy a caller's calls are decided by: `file`'s own (or, given
 * `server`, that server's under `servers:`; a name the file lacks decides
 * by the top level), with the rules of every principal `claims` match
 * added in order, and the file's flows followed by theirs. The same object is answered for
 * the same version of the file, server and matching principals; `file`'s
 * own (or the server's) when none matches.
 *
 * @throws {TypeError} When `file` has principals but is a copy of what
 * parseGatePolicy() returned (its principals' rules are not known).
 *
 * @example
 * ```ts
 * import { parseGatePolicy } from "./policy_file.ts";
 * import { claimsOf } from "./_claims.ts";
 * import { callerPolicy } from "./_caller_policy.ts";
 *
 * const file = parseGatePolicy({
 *   allow: ["read:**"],
 *   principals: [{ match: { sub: ["alice"] }, allow: ["write:home/alice/**"] }],
 * });
 * const alice = claimsOf({ subject: "alice", scopes: [], claims: {} });
 * callerPolicy(file, alice).policy.evaluate(["write:home/alice/a"]).decision; // "allow"
 * callerPolicy(file, undefined).policy.evaluate(["write:home/alice/a"]).decision; // "ask"
 * ```
 */
export function callerPolicy(
  file: GatePolicy,
  claims: CallerClaims | undefined,
  server?: string,
): GatePolicy {
  const entry = server === undefined ? undefined : file.servers?.get(server);
  const base = entry?.policy ?? file;
  if (file.principals === undefined) return base;
  const bases = basesOf(file);
  if (bases === undefined) {
    // A copy of a checked file: deciding by its base alone would drop the
    // principals' deny rules too.
    throw new TypeError(
      "Cannot decide by principals: the policy was not checked by parseGatePolicy() (pass the file it returned, not a copy)",
    );
  }
  const indexes: number[] = [];
  file.principals.forEach((p, i) => {
    if (matchesClaims(p.match, claims)) indexes.push(i);
  });
  if (indexes.length === 0) return base;
  const key = `${entry === undefined ? "" : entry.name}\u0000${
    indexes.join(",")
  }`;
  let views = VIEWS.get(file);
  if (views === undefined) {
    views = new Map();
    VIEWS.set(file, views);
  }
  const found = views.get(key);
  if (found !== undefined) return found;
  let value = entry === undefined
    ? bases.top
    : bases.servers.get(entry.name) ?? bases.top;
  for (const i of indexes) value = addedRules(value, bases.rules[i]);
  const checked = bases.check(value) as GatePolicy;
  // The file's flows, then each matching principal's: a session's flows
  // span its servers, so every server's view holds the same list.
  const added = indexes.flatMap((i) => file.principals![i].flows ?? []);
  const flows = added.length === 0
    ? file.flows
    : Object.freeze([...file.flows ?? [], ...added]);
  const view = Object.freeze({
    ...checked,
    ...(flows === undefined ? {} : { flows }),
  });
  views.set(key, view);
  return view;
}
