// Internal: the policy one caller's calls are decided by, following the
// gate's policy source as serverPolicy() follows it for one server: each
// version of the file gives the caller's view (callerPolicy()), built once
// per version and set of matching principals and shared by every session
// of callers with that set.

import type { Decision } from "../../policy/mod.ts";
import type { CallerClaims } from "./_claims.ts";
import {
  type PolicyInForce,
  policyInForce,
  type PolicySource,
  viewSource,
} from "./_policy_source.ts";
import { callerPolicy } from "./_caller_policy.ts";
import type { GatePolicy } from "./policy_file.ts";

/** Options for {@linkcode callerPolicySource}. */
export interface CallerPolicySourceOptions {
  /** In a gate of many servers: the server whose calls it decides. */
  server?: string;
  /**
   * The decisions when the file does not say, as for watchPolicy(): one
   * object for the gate, so that callers share their views.
   */
  defaults: { unprobed: Decision; tools: ReadonlyMap<string, Decision> };
}

/** Each caller view's PolicyInForce, so that its mapping is built once. */
const IN_FORCE = new WeakMap<
  GatePolicy,
  { defaults: CallerPolicySourceOptions["defaults"]; inForce: PolicyInForce }
>();

/**
 * The policy in force for a caller with `claims` (on `options.server`),
 * following `source`. A fixed policy (no file) is answered as it is.
 * Closing it leaves `source` open.
 *
 * @example
 * ```ts
 * import { callerPolicySource } from "./_caller_source.ts";
 * import { claimsOf } from "./_claims.ts";
 * import { fixedPolicy } from "./_policy_source.ts";
 * import { Policy } from "../../policy/mod.ts";
 *
 * const source = fixedPolicy({ policy: new Policy({}), unprobed: "ask", tools: new Map() });
 * const caller = callerPolicySource(source, claimsOf(undefined), {
 *   defaults: { unprobed: "ask", tools: new Map() },
 * });
 * caller.current().unprobed; // "ask"
 * ```
 */
export function callerPolicySource(
  source: PolicySource,
  claims: CallerClaims | undefined,
  options: CallerPolicySourceOptions,
): PolicySource {
  const { server, defaults } = options;
  // The last version's view: most calls come under the same version.
  let viewed: { whole: GatePolicy; view: PolicyInForce } | undefined;
  const view = (whole: PolicyInForce): PolicyInForce => {
    if (whole.file === undefined) return whole;
    if (viewed?.whole === whole.file) return viewed.view;
    const file = callerPolicy(whole.file, claims, server);
    let inForce = whole;
    if (file !== whole.file) {
      const kept = IN_FORCE.get(file);
      if (kept !== undefined && kept.defaults === defaults) {
        inForce = kept.inForce;
      } else {
        inForce = { ...policyInForce(file, defaults), file };
        IN_FORCE.set(file, { defaults, inForce });
      }
    }
    viewed = { whole: whole.file, view: inForce };
    return inForce;
  };
  return viewSource(
    source,
    view,
    (file) => callerPolicy(file, claims, server),
  );
}
