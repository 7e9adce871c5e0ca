// The probe as a call layer: the server runs it last before every tool, so
// that a probe reaches only a tool that answers probes without acting, and a
// malformed probe flag reaches none. The same goes for the approved patterns
// a host sends with a real call; the tool's own wrapper (wrapProbe) then
// compares them with what the call needs, once it has computed that.

import { ProtocolError, RPC_ERROR } from "../jsonrpc/errors.ts";
import { type CallToolResult, error } from "../result/result.ts";
import {
  META_APPROVED_PATTERNS,
  META_PERMISSION_PATTERNS,
  META_SUPPORTS_PERMISSION_PATTERNS,
} from "./probe_meta.ts";

/** What the guard reads of a call (the server's `ToolCall` has it). */
interface ProbedCall {
  readonly name: string;
  readonly tool: { readonly _meta?: Record<string, unknown> };
  readonly ctx: { readonly meta: Readonly<Record<string, unknown>> };
}

/**
 * Refuses, with JSON-RPC -32602 and before anything runs, a probe flag that
 * is not `true`, a probe of a tool that does not answer probes, approved
 * patterns that are not an array of strings, and approved patterns sent to
 * a tool that cannot check them; passes every other call on. The server
 * lists a tool as answering probes only when its handler came from
 * `wrapProbe`, so the listing is what is checked here.
 */
export function probeGuard<R>(call: ProbedCall, next: () => R): R {
  const meta = call.ctx.meta;
  const flag = meta[META_PERMISSION_PATTERNS];
  const approved = meta[META_APPROVED_PATTERNS];
  if ((flag === undefined || flag === false) && approved === undefined) {
    return next();
  }
  if (flag !== undefined && flag !== false && flag !== true) {
    throw new ProtocolError(
      RPC_ERROR.INVALID_PARAMS,
      `Invalid probe: _meta["${META_PERMISSION_PATTERNS}"] must be true, got ${
        JSON.stringify(flag)
      }`,
    );
  }
  if (approved !== undefined) approvedList(approved);
  if (call.tool._meta?.[META_SUPPORTS_PERMISSION_PATTERNS] !== true) {
    throw new ProtocolError(
      RPC_ERROR.INVALID_PARAMS,
      flag === true
        ? `Tool ${call.name} does not support permission-pattern probes: it has no side effects to approve`
        : `Tool ${call.name} cannot check _meta["${META_APPROVED_PATTERNS}"]: it does not support permission-pattern probes, so it has no patterns to compare; send the key only to tools that list _meta["${META_SUPPORTS_PERMISSION_PATTERNS}"]`,
    );
  }
  return next();
}

/**
 * The approved patterns of a request's `_meta`, checked: an array of
 * strings. Anything else is the host's mistake, not the model's: -32602.
 */
function approvedList(value: unknown): readonly string[] {
  if (!Array.isArray(value)) {
    throw new ProtocolError(
      RPC_ERROR.INVALID_PARAMS,
      `Invalid approved patterns: _meta["${META_APPROVED_PATTERNS}"] must be an array of pattern strings, got ${
        describe(value)
      }`,
    );
  }
  for (let i = 0; i < value.length; i++) {
    if (typeof value[i] !== "string") {
      throw new ProtocolError(
        RPC_ERROR.INVALID_PARAMS,
        `Invalid approved patterns: _meta["${META_APPROVED_PATTERNS}"][${i}] must be a pattern string, got ${
          describe(value[i])
        }`,
      );
    }
  }
  return value;
}

function describe(value: unknown): string {
  const shown = JSON.stringify(value);
  return shown === undefined ? typeof value : shown.slice(0, 80);
}

/**
 * What a real call whose `_meta` carries approved patterns answers when it
 * needs a pattern the host did not approve: a domain error naming each such
 * pattern, so that the model (and the user behind it) can probe again. The
 * comparison is by exact string, as a set: order and repeats do not matter,
 * and needing fewer patterns than were approved is fine, since acting on
 * less than was approved is still acting on what was approved. Returns
 * `undefined` when the call may run: no key, or every pattern approved.
 */
export function refuseUnapproved(
  meta: Readonly<Record<string, unknown>>,
  always: readonly string[],
  patterns: readonly string[],
): CallToolResult | undefined {
  const value = meta[META_APPROVED_PATTERNS];
  if (value === undefined) return undefined;
  const approved = new Set(approvedList(value));
  const missing: string[] = [];
  for (const pattern of [...always, ...patterns]) {
    if (!approved.has(pattern) && !missing.includes(pattern)) {
      missing.push(pattern);
    }
  }
  if (missing.length === 0) return undefined;
  const listed = approved.size === 0 ? "none" : [...approved].join(", ");
  return error(
    `Call refused: it needs ${
      missing.length === 1 ? "a pattern" : "patterns"
    } that ${missing.length === 1 ? "was" : "were"} not approved: ${
      missing.join(", ")
    } (approved: ${listed}). Nothing was done. What the call acts on changed ` +
      "after it was approved (a file replaced by a symbolic link, say): probe the call again and approve what it answers.",
  );
}
