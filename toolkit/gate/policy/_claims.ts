// Internal: who is calling, as the policy file's `principals:` and
// `approvers:` see it. The OAuth layer verifies a caller's token and hands
// each request its AuthInfo; the gate reads the few claims its rules name
// from it (sub, groups, scope, or any other claim by name), and a
// principal's `match` says which callers its rules are for.

import type { AuthInfo } from "../../jsonrpc/types.ts";
import { isRecord, typeName } from "../../_util/json_type.ts";
import { checkedList, MappingError } from "./_tool_mapping.ts";
import { listWords } from "../../patterns/_messages.ts";

/**
 * The claims of a caller's verified token that the policy matches on.
 *
 * @example
 * ```ts
 * import { claimsOf } from "./_claims.ts";
 *
 * const claims = claimsOf({
 *   subject: "alice",
 *   scopes: ["files:read"],
 *   claims: { sub: "alice", groups: ["admins"], scope: "files:read" },
 * });
 * claims?.groups; // ["admins"]
 * ```
 */
export interface CallerClaims {
  /** Whom the token speaks for (`sub`); absent for a client's own token. */
  readonly sub?: string;
  /** The `groups` claim: its strings (a lone string is one group). */
  readonly groups: readonly string[];
  /** The granted scopes: `scope` split at spaces (or `scp`'s list). */
  readonly scope: readonly string[];
  /** Every claim of the token, as verified. */
  readonly claims: Readonly<Record<string, unknown>>;
}

/**
 * What a principal's `match` asks of a caller: every key given is met when
 * the caller has any one of its values.
 *
 * @example
 * ```ts
 * import { parseGatePolicy } from "@forge/toolkit/gate";
 *
 * const { principals } = parseGatePolicy({
 *   principals: [{ match: { groups: ["admins"], scope: ["files:write"] }, allow: ["write:**"] }],
 * });
 * principals?.[0].match.groups; // ["admins"]
 * ```
 */
export interface PrincipalMatch {
  /** Token subjects (`sub`), one of which the caller's must be. */
  readonly sub?: readonly string[];
  /** Groups (the `groups` claim), one of which the caller must be in. */
  readonly groups?: readonly string[];
  /** Scopes, one of which the caller's token must grant. */
  readonly scope?: readonly string[];
  /** Other claims by name: a string claim equal to a value, or a list holding one. */
  readonly claim?: ReadonlyMap<string, readonly string[]>;
}

const MATCH_KEYS: readonly string[] = ["sub", "groups", "scope", "claim"];

/**
 * The claims of the token the OAuth layer verified (`ctx.auth`, or
 * `authInfoOf(request)`); `undefined` for a caller without one, whom no
 * principal matches.
 *
 * @example
 * ```ts
 * import { claimsOf } from "./_claims.ts";
 *
 * claimsOf(undefined); // undefined
 * claimsOf({ scopes: ["a", "b"], claims: { scope: "a b" } })?.scope; // ["a", "b"]
 * ```
 */
export function claimsOf(auth: AuthInfo | undefined): CallerClaims | undefined {
  if (auth === undefined) return undefined;
  const raw = auth.claims ?? {};
  const groups = Array.isArray(raw.groups)
    ? raw.groups.filter((g): g is string => typeof g === "string")
    : typeof raw.groups === "string"
    ? [raw.groups]
    : [];
  const sub = auth.subject ??
    (typeof raw.sub === "string" ? raw.sub : undefined);
  return Object.freeze({
    ...(sub === undefined ? {} : { sub }),
    groups: Object.freeze(groups),
    scope: Object.freeze([...auth.scopes]),
    claims: raw,
  });
}

/**
 * The claims of a caller written out as a token's (a `gate test` case's
 * `claims:`, an audit line's `caller`): `sub` a string, `groups` a string
 * or a list, `scope` space-separated or a list, any other claim as it is.
 * Values of another type are taken as absent.
 *
 * @example
 * ```ts
 * import { claimsOfRecord } from "./_claims.ts";
 *
 * claimsOfRecord({ sub: "alice", scope: "files:read files:write" }).scope;
 * // ["files:read", "files:write"]
 * ```
 */
export function claimsOfRecord(value: Record<string, unknown>): CallerClaims {
  const { sub, scope } = value;
  const scopes = typeof scope === "string"
    ? scope.split(" ").filter((s) => s !== "")
    : Array.isArray(scope)
    ? scope.filter((s): s is string => typeof s === "string")
    : [];
  return claimsOf({
    ...(typeof sub === "string" ? { subject: sub } : {}),
    scopes,
    claims: value,
  })!;
}

/**
 * Whether `claims` meet `match`: each key it gives by one of its values (a
 * caller without a token meets none).
 *
 * @example
 * ```ts
 * import { claimsOf, matchesClaims } from "./_claims.ts";
 *
 * const alice = claimsOf({ subject: "alice", scopes: [], claims: { groups: ["dev"] } });
 * matchesClaims({ sub: ["alice"], groups: ["dev", "ops"] }, alice); // true
 * matchesClaims({ sub: ["alice"], groups: ["ops"] }, alice); // false
 * ```
 */
export function matchesClaims(
  match: PrincipalMatch,
  claims: CallerClaims | undefined,
): boolean {
  if (claims === undefined) return false;
  if (
    match.sub !== undefined &&
    (claims.sub === undefined || !match.sub.includes(claims.sub))
  ) {
    return false;
  }
  if (match.groups !== undefined && !meets(match.groups, claims.groups)) {
    return false;
  }
  if (match.scope !== undefined && !meets(match.scope, claims.scope)) {
    return false;
  }
  for (const [name, values] of match.claim ?? []) {
    const value = Object.hasOwn(claims.claims, name)
      ? claims.claims[name]
      : undefined;
    if (!meets(values, claimValues(value))) return false;
  }
  return true;
}

/**
 * Checks a `match:` (or `approvers:`) object at `path`: `keys` of lists of
 * names, and `claim:` of claim names to lists.
 *
 * @throws {MappingError} Naming the wrong field.
 */
export function parseMatch(
  value: unknown,
  path: readonly (string | number)[],
  keys: readonly string[] = MATCH_KEYS,
): PrincipalMatch {
  const expected = keys.includes("claim")
    ? "{ sub: [...], groups: [...], scope: [...], claim: { name: [...] } }"
    : `{ ${keys.map((k) => `${k}: [...]`).join(", ")} }`;
  if (!isRecord(value)) {
    throw new MappingError(
      `expected ${expected}, got ${typeName(value)}`,
      path,
    );
  }
  const match: {
    sub?: readonly string[];
    groups?: readonly string[];
    scope?: readonly string[];
    claim?: ReadonlyMap<string, readonly string[]>;
  } = {};
  for (const [key, list] of Object.entries(value)) {
    if (!keys.includes(key)) {
      throw new MappingError(
        `unknown key: expected ${listWords(keys)}`,
        [...path, key],
      );
    }
    if (key === "claim") {
      if (!isRecord(list) || Object.keys(list).length === 0) {
        throw new MappingError(
          `expected claim names with lists of values ({ department: [finance] }), got ${
            isRecord(list) ? "an empty object" : typeName(list)
          }`,
          [...path, key],
        );
      }
      const claim = new Map<string, readonly string[]>();
      for (const [name, values] of Object.entries(list)) {
        claim.set(name, names(values, [...path, key, name]));
      }
      match.claim = claim;
    } else {
      match[key as "sub" | "groups" | "scope"] = names(list, [...path, key]);
    }
  }
  if (Object.keys(match).length === 0) {
    throw new MappingError(
      `expected at least one of ${keys.join(", ")}: an empty ${
        path.at(-1)
      } would take in every caller`,
      path,
    );
  }
  return Object.freeze(match);
}

/** A non-empty list of non-empty strings. */
function names(
  value: unknown,
  path: readonly (string | number)[],
): readonly string[] {
  return checkedList(value, path, {
    what: "strings",
    check: (item) =>
      typeof item !== "string" || item === ""
        ? `expected a non-empty string, got ${
          typeof item === "string" ? '""' : typeName(item)
        }`
        : undefined,
  });
}

function meets(wanted: readonly string[], held: readonly string[]): boolean {
  return wanted.some((value) => held.includes(value));
}

/**
 * A claim's values as the match compares them: a string, each string of
 * a list, a number or boolean as JSON writes it; an object names nothing.
 */
function claimValues(value: unknown): readonly string[] {
  const one = (v: unknown) =>
    typeof v === "string"
      ? [v]
      : typeof v === "number" || typeof v === "boolean"
      ? [JSON.stringify(v)]
      : [];
  return Array.isArray(value) ? value.flatMap(one) : one(value);
}
