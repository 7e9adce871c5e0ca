// A Deno permission failure inside a tool (its handler, its probe or its
// patterns function) is the operator's to fix, with a flag: the call
// answers an isError result that names the flag to add, derived from
// Deno's own message, instead of an internal error whose text is a
// wrapper's (and whose server path helps no one).

import { denoNamespace } from "../_util/runtime.ts";

/** Deno's wording of a missing permission: `Requires write access to "notes/a.txt", run again with the --allow-write flag`. */
const REQUIRES =
  /Requires (\w+) access to "(.*)", run again with the (--allow-[\w-]+) flag/;

/** How many `cause` links to follow to the permission failure under a wrapper. */
const MAX_DEPTH = 8;

/**
 * The isError text for a Deno permission failure at or under `cause`
 * (its `cause` chain), or `undefined` when it is none.
 */
export function permissionDenied(cause: unknown): string | undefined {
  // Only Deno has permissions (and `Deno.errors`); elsewhere none failed.
  const errors = denoNamespace()?.errors;
  if (errors === undefined) return undefined;
  let error = cause;
  for (let depth = 0; depth < MAX_DEPTH && error instanceof Error; depth++) {
    const capability = error instanceof errors.NotCapable ||
      error instanceof errors.PermissionDenied;
    const match = capability ? REQUIRES.exec(error.message) : null;
    if (match !== null) {
      const [, kind, value, flag] = match;
      return `Permission denied: run the server with ${flag}=${
        scopeOf(kind, value)
      } (Deno refused ${kind} access to ${JSON.stringify(value)})`;
    }
    error = error.cause;
  }
  return undefined;
}

/**
 * What to grant: a written file's directory (a tool that writes one file
 * writes its neighbours next, and a new file needs its directory), else the
 * exact name Deno refused.
 */
function scopeOf(kind: string, value: string): string {
  if (kind !== "write") return value;
  const trimmed = value.length > 1 ? value.replace(/\/+$/, "") : value;
  const slash = trimmed.lastIndexOf("/");
  if (slash < 0) return ".";
  return slash === 0 ? "/" : trimmed.slice(0, slash);
}
