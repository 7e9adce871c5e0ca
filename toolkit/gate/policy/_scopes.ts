// Internal: scopes by tool (`scopes: { write_*: [files:write] }` in the
// policy file, at the top, in a `servers:` entry or in a principal). A call
// of a tool whose scopes the caller's token lacks is refused as MCP's
// authorization spec asks (its step-up flow): 403 with
// `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`, after
// which the client asks the authorization server for them and retries.

import { isRecord, typeName } from "../../_util/json_type.ts";
import type { CallerClaims } from "./_claims.ts";
import { checkedList, MappingError, nameGlob } from "./_tool_mapping.ts";

/** RFC 6749's scope-token: printable ASCII but space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** The policy's scopes by tool name or glob, in the order written. */
export type ToolScopes = ReadonlyMap<string, readonly string[]>;

/**
 * Checks `scopes`: tool names or globs (`*`, `?`) to non-empty lists of
 * scope names.
 *
 * @throws {MappingError} Naming the wrong field.
 */
export function parseToolScopes(
  value: unknown,
  path: readonly (string | number)[] = ["scopes"],
): Map<string, readonly string[]> {
  if (!isRecord(value)) {
    throw new MappingError(
      `expected tool names (or globs) with the scopes a call of them needs (scopes: { write_file: ["files:write"] }), got ${
        typeName(value)
      }`,
      path,
    );
  }
  const scopes = new Map<string, readonly string[]>();
  for (const [tool, list] of Object.entries(value)) {
    scopes.set(tool, parseScopeList(list, [...path, tool]));
  }
  return scopes;
}

/**
 * Checks a list of scope names (RFC 6749 scope-tokens: no spaces, quotes
 * or backslashes).
 *
 * @throws {MappingError} Naming the wrong field.
 */
export function parseScopeList(
  value: unknown,
  path: readonly (string | number)[],
): readonly string[] {
  return checkedList(value, path, {
    what: "scope names",
    check: (scope) =>
      typeof scope !== "string" || !SCOPE_TOKEN.test(scope)
        ? `expected a scope name without spaces, quotes or backslashes, got ${
          typeof scope === "string" ? JSON.stringify(scope) : typeName(scope)
        }`
        : undefined,
  });
}

/**
 * The scopes a call of `tool` needs: those of every entry that names it,
 * exactly or by glob (all of them, not the first: two entries that both
 * name a tool both guard it), each once, in the order written.
 *
 * @example
 * ```ts
 * import { requiredScopes } from "./_scopes.ts";
 *
 * const scopes = new Map([["write_*", ["files:write"]], ["write_file", ["files"]]]);
 * requiredScopes(scopes, "write_file"); // ["files:write", "files"]
 * requiredScopes(scopes, "read_file"); // []
 * ```
 */
export function requiredScopes(
  scopes: ToolScopes | undefined,
  tool: string,
): readonly string[] {
  const needed = new Set<string>();
  for (const [name, list] of scopes ?? []) {
    const hit = /[*?]/.test(name) ? nameGlob(name).test(tool) : name === tool;
    if (hit) { for (const scope of list) needed.add(scope); }
  }
  return [...needed];
}

/**
 * The scopes a call of `tool` needs that the caller's token lacks; empty
 * when it may call it (or nothing is required). A caller without a token
 * lacks every one.
 *
 * @example
 * ```ts
 * import { claimsOf } from "./_claims.ts";
 * import { missingScopes } from "./_scopes.ts";
 *
 * const caller = claimsOf({ scopes: ["files:read"], claims: {} });
 * missingScopes(new Map([["write_*", ["files:write"]]]), "write_file", caller); // ["files:write"]
 * ```
 */
export function missingScopes(
  scopes: ToolScopes | undefined,
  tool: string,
  claims: CallerClaims | undefined,
): readonly string[] {
  const held = claims?.scope ?? [];
  return requiredScopes(scopes, tool).filter((scope) => !held.includes(scope));
}

/** Options for {@linkcode scopeChallenge}. */
export interface ScopeChallengeOptions {
  /** The URL of the gate's protected resource metadata (RFC 9728). */
  resourceMetadata?: string;
  /** The scopes every request needs (`auth.scopes`), named in the challenge too. */
  always?: readonly string[];
  /** What the token lacks, for `error_description`. */
  missing?: readonly string[];
}

/**
 * The `WWW-Authenticate` value of a 403 that refuses a call for a missing
 * scope: `scope` names every scope the call needs (the request's own and
 * the tool's), since RFC 6750 asks for the scope needed to access the
 * resource and MCP clients add it to what they asked for before.
 *
 * @example
 * ```ts
 * import { scopeChallenge } from "./_scopes.ts";
 *
 * scopeChallenge(["files:write"], { always: ["mcp"], missing: ["files:write"] });
 * // 'Bearer error="insufficient_scope", scope="mcp files:write", error_description="the token lacks the scope files:write"'
 * ```
 */
export function scopeChallenge(
  needed: readonly string[],
  options: ScopeChallengeOptions = {},
): string {
  const scope = [...new Set([...(options.always ?? []), ...needed])];
  const parts = [
    `error="insufficient_scope"`,
    `scope="${scope.join(" ")}"`,
  ];
  if (options.resourceMetadata !== undefined) {
    parts.push(`resource_metadata="${quoted(options.resourceMetadata)}"`);
  }
  if (options.missing !== undefined && options.missing.length > 0) {
    parts.push(
      `error_description="the token lacks the scope ${
        options.missing.join(" ")
      }"`,
    );
  }
  return `Bearer ${parts.join(", ")}`;
}

// A quoted-string of RFC 9110: `"` and `\` escaped.
function quoted(text: string): string {
  return text.replace(/["\\]/g, "\\$&");
}
