// Internal: which 2026-07-28 callers of an HTTP gate share a gate. Their
// requests carry no session, so the gate serving them is made once per
// caller, not per request, and two callers share one only when every
// claim the policy could match on is the same for both: the key is the
// whole of the verified token's claims but those that name one token
// rather than its holder (its times and its id), which a refreshed token
// changes. Those are dropped from the claims the gate decides by too, so
// a gate never decides by what one caller's token said and another's
// did not.

import type { AuthInfo } from "../jsonrpc/types.ts";
import { type CallerClaims, claimsOf } from "./policy/_claims.ts";
import { sha256Hex } from "../../configreload/_sha256_hex.ts";

/** Claims that name a token, not its holder: never matched for a shared gate. */
export const TOKEN_CLAIMS: readonly string[] = [
  "exp",
  "iat",
  "nbf",
  "jti",
  "auth_time",
];

/**
 * The claims a shared gate decides by for the token `auth`, and the key of
 * the gate: callers with equal keys have equal claims.
 */
export function sharedCaller(
  auth: AuthInfo | undefined,
): { key: string; claims: CallerClaims | undefined } {
  const full = claimsOf(auth);
  if (full === undefined) return { key: "", claims: undefined };
  const kept: Record<string, unknown> = {};
  for (const name of Object.keys(full.claims).sort()) {
    if (!TOKEN_CLAIMS.includes(name)) kept[name] = full.claims[name];
  }
  const claims: CallerClaims = Object.freeze({
    ...full,
    claims: Object.freeze(kept),
  });
  const key = JSON.stringify([
    full.sub ?? null,
    [...full.groups].sort(),
    [...full.scope].sort(),
    kept,
  ]);
  return { key, claims };
}

/**
 * The Redis key of what a caller's gate keeps there (`kind`: `flows`,
 * `remembered`): `<prefix><kind>:<sha-256 of the caller's key>`, so that
 * Redis holds no claim.
 */
export async function callerStoreKey(
  kind: string,
  callerKey: string,
  prefix = "forge-gate:",
): Promise<string> {
  return `${prefix}${kind}:${await sha256Hex(
    new TextEncoder().encode(callerKey),
  )}`;
}
