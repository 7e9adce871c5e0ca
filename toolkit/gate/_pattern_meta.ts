// Internal: the permission-pattern keys of `_meta` as the gate speaks them:
// the probe it sends for a call, the patterns it reads from the server's
// answer, and the approved patterns it puts on a forwarded call (and takes
// off any a host put there: approvals are the gate's to give).

import type { JsonRpcMessage } from "../jsonrpc/mod.ts";
import {
  META_ALWAYS,
  // What the gate approved, for the server to check against the patterns it
  // recomputes at call time (patterns/_probe_guard.ts).
  META_APPROVED_PATTERNS,
  META_PATTERNS,
  META_PERMISSION_PATTERNS,
} from "../patterns/probe_meta.ts";
import { isRecord } from "../_util/json_type.ts";
import { refusal } from "./_era.ts";
import type { HostRequest, Reply } from "./_relay.ts";

/** The params of the probe of a call with `params`, carrying the call's `era` keys. */
export function probeParams(
  params: Record<string, unknown>,
  era: Record<string, unknown> | undefined,
): Record<string, unknown> {
  return {
    name: params.name,
    arguments: params.arguments,
    _meta: { ...era, [META_PERMISSION_PATTERNS]: true },
  };
}

/**
 * The patterns in the server's answer to the probe of a call of `tool`
 * (always patterns first), or the host's answer instead: the probe's error
 * or `isError` result as it came, or a refusal of an answer without
 * patterns.
 */
export function readProbeAnswer(
  answer: JsonRpcMessage,
  tool: unknown,
  era: Record<string, unknown> | undefined,
): { patterns: string[] } | { reply: Reply } {
  if ("error" in answer) return { reply: { error: answer.error } };
  const result = "result" in answer ? answer.result : {};
  if (result.isError === true) return { reply: { result } };
  const patterns = patternsOf(result);
  if (typeof patterns === "string") {
    return {
      reply: {
        result: refusal(
          `The gate cannot check this call of ${tool}: the server's probe answer ${patterns}. Nothing was run.`,
          era,
        ),
      },
    };
  }
  return { patterns };
}

/** Options for {@linkcode callToForward}. */
export interface ForwardOptions {
  /** The params to send instead of the call's (an approval round's). */
  params?: Record<string, unknown>;
  /**
   * Whether a host's own value under `forge.approved_patterns` is removed
   * (not for the host's own probe, which runs nothing).
   *
   * @default {true}
   */
  strip?: boolean;
}

/**
 * The call to send the server: with `approved`, the patterns go in its
 * `_meta`; whatever the host put under that key is never passed on.
 */
export function callToForward(
  message: HostRequest,
  approved: readonly string[] | undefined,
  options: ForwardOptions = {},
): HostRequest {
  const params = options.params ?? message.params ?? {};
  const meta = isRecord(params._meta) ? params._meta : undefined;
  if (
    approved === undefined &&
    (options.strip === false || meta?.[META_APPROVED_PATTERNS] === undefined)
  ) {
    return options.params === undefined ? message : { ...message, params };
  }
  const { [META_APPROVED_PATTERNS]: _smuggled, ...rest } = meta ?? {};
  const _meta = approved === undefined
    ? rest
    : { ...rest, [META_APPROVED_PATTERNS]: [...approved] };
  return { ...message, params: { ...params, _meta } };
}

function patternsOf(result: Record<string, unknown>): string[] | string {
  const meta = isRecord(result._meta) ? result._meta : undefined;
  if (meta === undefined) return `carries no _meta with ${META_PATTERNS}`;
  const patterns = meta[META_PATTERNS];
  const always = meta[META_ALWAYS] ?? [];
  if (!isStringList(patterns)) {
    return `has no list of strings under _meta["${META_PATTERNS}"]`;
  }
  if (!isStringList(always)) {
    return `has something other than a list of strings under _meta["${META_ALWAYS}"]`;
  }
  return [...always, ...patterns];
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) &&
    value.every((item) => typeof item === "string");
}
