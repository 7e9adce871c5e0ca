// Internal: who made a call, as its audit line says, in a gate with
// `auth:`. A log of a service that many people call must say whose each
// call was; it says it with the claims the policy decides by (the subject,
// groups, scopes, and each claim a principal matches on), not the whole
// token, so that names, e-mail addresses and the like a token may carry
// stay out of it, and `gate replay` can decide each call again as that
// caller's.

import type { AuditCaller } from "./audit/_audit.ts";
import type { CallerClaims } from "./policy/_claims.ts";
import type { PolicySource } from "./policy/_policy_source.ts";
import type { GatePolicy } from "./policy/policy_file.ts";
import { claimNames } from "./policy/_principals.ts";

/**
 * What the audit lines of `claims`' calls name as their caller, as of the
 * policy in force in `source` (the whole file, whose principals say which
 * claims count). The same object is answered for one version of the file.
 */
export function auditCaller(
  claims: CallerClaims,
  source: PolicySource,
): () => AuditCaller {
  let shownFor = source.current().file;
  let shown = callerOf(claims, shownFor);
  return () => {
    const { file } = source.current();
    if (file !== shownFor) {
      shown = callerOf(claims, file);
      shownFor = file;
    }
    return shown;
  };
}

function callerOf(
  claims: CallerClaims,
  file: GatePolicy | undefined,
): AuditCaller {
  const caller: Record<string, unknown> = {};
  if (claims.sub !== undefined) caller.sub = claims.sub;
  if (claims.groups.length > 0) caller.groups = claims.groups;
  if (claims.scope.length > 0) caller.scope = claims.scope.join(" ");
  for (const name of claimNames(file?.principals)) {
    if (Object.hasOwn(caller, name)) continue;
    // null: the token has no such claim (gate replay tells that apart
    // from a claim the policy of the time did not name).
    caller[name] = Object.hasOwn(claims.claims, name)
      ? claims.claims[name]
      : null;
  }
  return Object.freeze(caller);
}
