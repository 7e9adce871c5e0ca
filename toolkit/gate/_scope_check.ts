// Internal: the scopes a call needs (the policy's `scopes:`), checked
// where HTTP can still answer as MCP's authorization spec asks, with a
// 403 and `WWW-Authenticate: Bearer error="insufficient_scope"` that
// starts the client's step-up flow. The gate behind answers in JSON-RPC
// only, so this layer runs in the HTTP handler past the OAuth resource
// server (the token is verified) and the body limit (the body is held to
// it): it reads a POST's body, finds each `tools/call`, and refuses one
// whose tool needs a scope the caller's token lacks, by the caller's view
// of the policy (its principals' scopes too) and, under `servers:`, the
// view of the server the name's prefix routes to. Anything else goes on
// with the body it read.

import type { HttpLayer } from "../http/layer.ts";
import { authInfoOf } from "../http/_auth_info.ts";
import { readBodyText } from "../http/_body.ts";
import { copyRequest } from "../http/_copy_request.ts";
import { metadataUrl } from "../http/_protected_resource.ts";
import { CODE, rpcError } from "../http/_response.ts";
import { isRecord } from "../_util/json_type.ts";
import { splitName } from "../_util/mount_names.ts";
import { type CallerClaims, claimsOf } from "./policy/_claims.ts";
import { callerPolicy } from "./policy/_caller_policy.ts";
import { basesOf } from "./policy/_principals.ts";
import { requiredScopes, scopeChallenge } from "./policy/_scopes.ts";
import type { GatePolicy } from "./policy/policy_file.ts";

/** What {@linkcode scopeCheck} checks by. */
export interface ScopeCheckOptions {
  /** The policy file in force now (`undefined` for a fixed policy). */
  file(): GatePolicy | undefined;
  /** The gate's public resource URL (`auth.resource`), when set. */
  resource?: string;
  /** The MCP endpoint's path. */
  path: string;
  /** The scopes every request needs (`auth.scopes`), named in the challenge too. */
  always: readonly string[];
}

/** The layer refusing a `tools/call` whose tool needs a scope the token lacks. */
export function scopeCheck(options: ScopeCheckOptions): HttpLayer {
  return async (request, next) => {
    const file = options.file();
    // A policy that names no scope anywhere has nothing to check: its
    // requests are not read twice.
    if (
      request.method !== "POST" || request.body === null ||
      file === undefined || !namesScopes(file) || !jsonBody(request)
    ) {
      return await next(request);
    }
    // A body over the limit throws here, for the body limit to answer.
    const text = await readBodyText(request);
    const forward = copyRequest(request, { body: text });
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      // The endpoint answers the parse error as it would.
      return await next(forward);
    }
    const claims = claimsOf(authInfoOf(request));
    const held = claims?.scope ?? [];
    for (const one of Array.isArray(message) ? message : [message]) {
      if (
        !isRecord(one) || one.method !== "tools/call" ||
        !isRecord(one.params) || typeof one.params.name !== "string"
      ) {
        continue;
      }
      const tool = one.params.name;
      const needed = scopesOfCall(file, claims, tool);
      const missing = needed.filter((scope) => !held.includes(scope));
      if (missing.length === 0) continue;
      const resource = options.resource ??
        `${new URL(request.url).origin}${options.path}`;
      const id = typeof one.id === "string" || typeof one.id === "number"
        ? one.id
        : null;
      return rpcError(
        403,
        CODE.TRANSPORT,
        `Forbidden: a call of ${tool} needs the scope ${
          missing.join(" ")
        }, which the token lacks`,
        {
          id,
          headers: {
            "www-authenticate": scopeChallenge(needed, {
              resourceMetadata: metadataUrl(resource),
              always: options.always,
              missing,
            }),
          },
        },
      );
    }
    return await next(forward);
  };
}

/**
 * The scopes a call of `tool` needs by the caller's view: the one
 * server's, or under `servers:` the view of the server its prefix
 * routes to; a name more than one server's prefix fits (one of them has
 * the empty prefix) needs the scopes of each.
 */
function scopesOfCall(
  file: GatePolicy,
  claims: CallerClaims | undefined,
  tool: string,
): readonly string[] {
  if (file.servers === undefined) {
    return requiredScopes(callerPolicy(file, claims).scopes, tool);
  }
  const fits: { server: string; name: string }[] = [];
  for (const entry of file.servers.values()) {
    const name = splitName(entry.prefix, tool);
    if (name !== undefined) fits.push({ server: entry.name, name });
  }
  // Such a name goes by the servers' lists, which are not known here.
  const needed = new Set<string>();
  for (const { server, name } of fits) {
    const view = callerPolicy(file, claims, server);
    for (const scope of requiredScopes(view.scopes, name)) needed.add(scope);
  }
  return [...needed];
}

/** Per version of the policy file: whether any of its views needs a scope. */
const NAMES_SCOPES = new WeakMap<GatePolicy, boolean>();

/**
 * Whether `file` names a scope: at the top, in a `servers:` entry, or in
 * a principal (whose rules the caller's view adds).
 */
function namesScopes(file: GatePolicy): boolean {
  let found = NAMES_SCOPES.get(file);
  if (found === undefined) {
    found = (file.scopes?.size ?? 0) > 0 ||
      [...file.servers?.values() ?? []].some((entry) =>
        (entry.policy.scopes?.size ?? 0) > 0
      ) ||
      (basesOf(file)?.rules.some((rules) =>
        rules.scopes !== undefined && rules.scopes !== null
      ) ?? false);
    NAMES_SCOPES.set(file, found);
  }
  return found;
}

/** Whether the request says its body is JSON (others are the endpoint's to refuse). */
function jsonBody(request: Request): boolean {
  const type = request.headers.get("content-type") ?? "";
  const semicolon = type.indexOf(";");
  return (semicolon === -1 ? type : type.slice(0, semicolon)).trim()
    .toLowerCase() === "application/json";
}
