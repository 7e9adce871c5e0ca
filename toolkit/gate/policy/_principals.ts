// Internal: rules by who is calling (`principals:` in the policy file) and
// who may approve asked calls (`approvers:`). A principal names callers by
// the claims of their tokens (`match`) and carries rules as a policy does;
// for a caller it matches, its rules add to the base policy: its allow,
// ask and deny lists follow the base's, its `tools`, `annotations` and
// `scopes` entries join the base's (its own replacing one of the same
// name), and its `unprobed` replaces the base's; its `flows` follow the
// base's (a flow can only tighten). Several principals may match one
// caller: each adds in the order written. In a gate of many servers, the
// base is each server's policy (its `servers:` entry with the top level),
// and a principal adds to every server's; its flows, like the top
// level's, span the servers (`server:` makes one watch a single server).
//
// Each entry is checked as the policy its callers are decided by (the top
// level, and each server's, with the entry's rules), so a wrong field is
// named where it is written. A caller's policy is built once per version
// of the file and set of matching principals, not for each call.

import { isRecord, typeName } from "../../_util/json_type.ts";
import {
  type CallerClaims,
  parseMatch,
  type PrincipalMatch,
} from "./_claims.ts";
import { MappingError } from "./_tool_mapping.ts";
import { ENTRY_POLICY_KEYS } from "./_servers.ts";
import { type GateFlow, parseFlows } from "./_flows.ts";
import { listWords } from "../../patterns/_messages.ts";

/**
 * One checked entry of `principals:`: which callers it is for. Its rules
 * are in the policy callerPolicy() builds for them.
 *
 * @example
 * ```ts
 * import { parseGatePolicy } from "@forge/toolkit/gate";
 *
 * const { principals } = parseGatePolicy({
 *   principals: [{ match: { sub: ["alice"] }, allow: ["write:home/alice/**"] }],
 * });
 * principals?.[0].name; // "principals[0]"
 * ```
 */
export interface GatePrincipal {
  /** Its place in the file: `principals[0]`. */
  readonly name: string;
  /** Which callers it is for. */
  readonly match: PrincipalMatch;
  /**
   * Its `flows:`, checked as the top level's and named from its place
   * (`principals[0].flows[1]`); `undefined` when it gives none.
   */
  readonly flows?: readonly GateFlow[];
}

/**
 * Who may approve asked calls in the browser (`approvers:`): any caller
 * named by sub, or in one of the groups; with `selfApproval: false`, never
 * a call they asked for themselves.
 *
 * @example
 * ```ts
 * import { parseGatePolicy } from "@forge/toolkit/gate";
 *
 * const { approvers } = parseGatePolicy({
 *   approvers: { groups: ["security"], selfApproval: false },
 * });
 * approvers?.groups; // ["security"]
 * approvers?.selfApproval; // false
 * ```
 */
export interface GateApprovers {
  /** Token subjects (`sub`) who may approve. */
  readonly sub?: readonly string[];
  /** Groups whose members may approve. */
  readonly groups?: readonly string[];
  /**
   * Whether an approver may decide a call they asked for themselves;
   * `false` asks for another approver (four eyes).
   *
   * @default {true}
   */
  readonly selfApproval?: boolean;
}

/** The keys a principal holds besides `match`: a policy's rules. */
const RULE_KEYS: readonly string[] = [
  "allow",
  "ask",
  "deny",
  "tools",
  "unprobed",
  "annotations",
  "scopes",
];
const LISTS: readonly string[] = ["allow", "ask", "deny"];
/** Keys whose entries (by tool name or hint) join the base's. */
const JOINED: readonly string[] = ["tools", "annotations", "scopes"];

/** How the policy file checks a policy object and reads its errors. */
export interface PrincipalChecker {
  check(value: Record<string, unknown>): object;
  explain(
    error: unknown,
  ):
    | { problem: string; path: readonly (string | number)[]; column?: number }
    | undefined;
}

/** What callerPolicy() needs of a file with principals. */
export interface Bases {
  /** The top level's policy keys, as written. */
  top: Record<string, unknown>;
  /** Each server's policy object (top level and entry merged). */
  servers: ReadonlyMap<string, Record<string, unknown>>;
  /** Each principal's rule keys, as written. */
  rules: readonly Record<string, unknown>[];
  check: (value: Record<string, unknown>) => object;
}

// Keyed by the checked file (a GatePolicy; typed apart here, since
// policy_file.ts imports this module).
const BASES = new WeakMap<object, Bases>();

/** What callerPolicy() needs of a checked file with principals; `undefined` for a copy. */
export function basesOf(file: object): Bases | undefined {
  return BASES.get(file);
}

/**
 * Checks `principals:` of a policy file whose top level is `top` and whose
 * servers' policy objects are `servers`: a list of `{ match, …rules }`.
 * Each entry is checked with every base it adds to.
 *
 * @throws {MappingError} Naming the wrong field from the file's top.
 */
export function parsePrincipals(
  value: unknown,
  bases: {
    top: Record<string, unknown>;
    servers: ReadonlyMap<string, Record<string, unknown>>;
  },
  checker: PrincipalChecker,
): { principals: readonly GatePrincipal[]; rules: Record<string, unknown>[] } {
  if (!Array.isArray(value)) {
    throw new MappingError(
      `expected a list of principals ({ match: { groups: [admins] }, allow: [rules] }), got ${
        typeName(value)
      }`,
      ["principals"],
    );
  }
  const principals: GatePrincipal[] = [];
  const rules: Record<string, unknown>[] = [];
  value.forEach((entry: unknown, index) => {
    const path = ["principals", index];
    if (!isRecord(entry)) {
      throw new MappingError(
        `expected { match: { sub: [...], groups: [...] }, allow: [...], deny: [...] }, got ${
          typeName(entry)
        }`,
        path,
      );
    }
    for (const key of Object.keys(entry)) {
      if (key !== "match" && key !== "flows" && !RULE_KEYS.includes(key)) {
        throw new MappingError(
          `unknown key: expected match, ${RULE_KEYS.join(", ")} or flows`,
          [...path, key],
        );
      }
    }
    if (entry.match === undefined || entry.match === null) {
      throw new MappingError(
        "missing: expected which callers it is for, such as match: { groups: [admins] }",
        [...path, "match"],
      );
    }
    const match = parseMatch(entry.match, [...path, "match"]);
    const own: Record<string, unknown> = {};
    for (const key of RULE_KEYS) {
      if (entry[key] !== undefined && entry[key] !== null) {
        own[key] = entry[key];
      }
    }
    for (const base of [bases.top, ...bases.servers.values()]) {
      checkAgainst(base, own, { path, checker });
    }
    const flows = entry.flows === undefined || entry.flows === null
      ? undefined
      : parseFlows(entry.flows, {
        servers: bases.servers.size === 0
          ? undefined
          : [...bases.servers.keys()],
        at: path,
      });
    principals.push(Object.freeze({
      name: `principals[${index}]`,
      match,
      ...(flows === undefined || flows.length === 0 ? {} : { flows }),
    }));
    rules.push(own);
  });
  return { principals: Object.freeze(principals), rules };
}

/** The top level's policy keys of a policy file, as a caller's base. */
export function basePolicyValue(
  value: Record<string, unknown>,
): Record<string, unknown> {
  const base: Record<string, unknown> = {};
  for (const key of ENTRY_POLICY_KEYS) {
    if (value[key] !== undefined && value[key] !== null) base[key] = value[key];
  }
  return base;
}

/**
 * Keeps what {@linkcode callerPolicy} builds a caller's view of `file`
 * from. Internal to the policy file.
 */
export function keepBases(file: object, bases: Bases): void {
  BASES.set(file, bases);
}

/** `base` with `own`'s rules added (see the file's head). */
export function addedRules(
  base: Record<string, unknown>,
  own: Record<string, unknown>,
): Record<string, unknown> {
  const merged = { ...base };
  for (const [key, value] of Object.entries(own)) {
    const above = base[key];
    if (LISTS.includes(key)) {
      merged[key] = Array.isArray(above) && Array.isArray(value)
        ? [...above, ...value]
        : value;
    } else if (JOINED.includes(key) && isRecord(above) && isRecord(value)) {
      // A Map, then own properties: a tool may be named "__proto__".
      const joined = new Map(Object.entries(above));
      for (const [name, item] of Object.entries(value)) {
        const before = joined.get(name);
        // Scopes add: a tool both name is guarded by both.
        joined.set(
          name,
          key === "scopes" && Array.isArray(before) && Array.isArray(item)
            ? [...before, ...item]
            : item,
        );
      }
      merged[key] = Object.fromEntries(joined);
    } else {
      merged[key] = value;
    }
  }
  return merged;
}

/**
 * Checks `own` added to `base`; an error in what the principal wrote is
 * named in it (`principals[0].deny[1]`), with its index in its own list.
 */
function checkAgainst(
  base: Record<string, unknown>,
  own: Record<string, unknown>,
  context: { path: readonly (string | number)[]; checker: PrincipalChecker },
): void {
  try {
    context.checker.check(addedRules(base, own));
  } catch (error) {
    const explained = context.checker.explain(error);
    if (explained === undefined) throw error;
    const [key, index, ...rest] = explained.path;
    let path = explained.path;
    if (typeof key === "string" && Object.hasOwn(own, key)) {
      if (LISTS.includes(key) && typeof index === "number") {
        const above = Array.isArray(base[key]) && Array.isArray(own[key])
          ? (base[key] as unknown[]).length
          : 0;
        if (index >= above) {
          path = [...context.path, key, index - above, ...rest];
        }
      } else if (
        !JOINED.includes(key) || index === undefined || !isRecord(own[key]) ||
        Object.hasOwn(own[key] as Record<string, unknown>, index)
      ) {
        path = [...context.path, ...explained.path];
      }
    }
    throw new MappingError(explained.problem, path, explained.column);
  }
}

/**
 * Checks `approvers:`: `{ sub: [...], groups: [...] }`, one or both.
 *
 * @throws {MappingError} Naming the wrong field.
 */
export function parseApprovers(value: unknown): GateApprovers {
  let selfApproval: boolean | undefined;
  for (const key of isRecord(value) ? Object.keys(value) : []) {
    if (!APPROVER_KEYS.includes(key)) {
      throw new MappingError(
        `unknown key: expected ${listWords(APPROVER_KEYS)}`,
        ["approvers", key],
      );
    }
  }
  if (isRecord(value) && Object.hasOwn(value, SELF_APPROVAL)) {
    const { [SELF_APPROVAL]: given, ...rest } = value;
    if (typeof given !== "boolean") {
      throw new MappingError(
        `expected true or false (whether an approver may decide a call they asked for), got ${
          typeName(given)
        }`,
        ["approvers", SELF_APPROVAL],
      );
    }
    selfApproval = given;
    value = rest;
  }
  const match = parseMatch(value, ["approvers"], ["sub", "groups"]);
  return Object.freeze({
    ...(match.sub === undefined ? {} : { sub: match.sub }),
    ...(match.groups === undefined ? {} : { groups: match.groups }),
    ...(selfApproval === undefined ? {} : { selfApproval }),
  });
}

/** The key of `approvers:` that says whether approvers decide their own calls. */
const SELF_APPROVAL = "selfApproval";
const APPROVER_KEYS: readonly string[] = ["sub", "groups", SELF_APPROVAL];

/**
 * The claims `principals` match callers on by name (their `match.claim`
 * keys), each once, in the order written.
 *
 * @example
 * ```ts
 * import { parseGatePolicy } from "./policy_file.ts";
 * import { claimNames } from "./_principals.ts";
 *
 * const file = parseGatePolicy({
 *   principals: [{ match: { claim: { team: ["red"] } }, deny: ["exec:**"] }],
 * });
 * claimNames(file.principals); // Set { "team" }
 * ```
 */
export function claimNames(
  principals: readonly GatePrincipal[] | undefined,
): ReadonlySet<string> {
  return new Set(
    (principals ?? []).flatMap((p) => [...p.match.claim?.keys() ?? []]),
  );
}

/**
 * Whether the caller may approve asked calls: its `sub` is one of
 * `approvers.sub`, or one of its groups one of `approvers.groups` (either
 * will do). Nobody may without `approvers:`, nor without a token.
 *
 * @example
 * ```ts
 * import { claimsOf } from "./_claims.ts";
 * import { isApprover } from "./_principals.ts";
 *
 * const bob = claimsOf({ subject: "bob", scopes: [], claims: { groups: ["security"] } });
 * isApprover({ groups: ["security"] }, bob); // true
 * isApprover(undefined, bob); // false
 * ```
 */
export function isApprover(
  approvers: GateApprovers | undefined,
  claims: CallerClaims | undefined,
): boolean {
  if (approvers === undefined || claims === undefined) return false;
  if (
    claims.sub !== undefined && approvers.sub?.includes(claims.sub) === true
  ) {
    return true;
  }
  return claims.groups.some((g) => approvers.groups?.includes(g) === true);
}
