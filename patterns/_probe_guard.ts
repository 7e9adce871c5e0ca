// The probe as a call layer: the server runs it last before every tool, so
// that a probe reaches only a tool that answers probes without acting, and a
// malformed probe flag reaches none.

import { ProtocolError, RPC_ERROR } from "../jsonrpc/errors.ts";
import {
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
 * is not `true` and a probe of a tool that does not answer probes; passes
 * every other call on. The server lists a tool as answering probes only when
 * its handler came from `wrapProbe`, so the listing is what is checked here.
 */
export function probeGuard<R>(call: ProbedCall, next: () => R): R {
  const flag = call.ctx.meta[META_PERMISSION_PATTERNS];
  if (flag === undefined || flag === false) return next();
  if (flag !== true) {
    throw new ProtocolError(
      RPC_ERROR.INVALID_PARAMS,
      `Invalid probe: _meta["${META_PERMISSION_PATTERNS}"] must be true, got ${
        JSON.stringify(flag)
      }`,
    );
  }
  if (call.tool._meta?.[META_SUPPORTS_PERMISSION_PATTERNS] !== true) {
    throw new ProtocolError(
      RPC_ERROR.INVALID_PARAMS,
      `Tool ${call.name} does not support permission-pattern probes: it has no side effects to approve`,
    );
  }
  return next();
}
