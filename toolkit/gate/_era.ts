// Internal: what a call's protocol revision changes for the gate. Through
// 2025-11-25 the host declares its capabilities once, in `initialize`, and
// is asked with `elicitation/create`; from 2026-07-28 each request names its
// revision and capabilities under reserved `_meta` keys, which the gate's
// own requests for that call carry too, and its refusals say they are
// complete.

import { META } from "../jsonrpc/_versions.ts";
import { isRecord } from "../_util/json_type.ts";

/** The prefix of the `_meta` keys the MCP specification reserves for itself. */
const RESERVED_META_PREFIX = "io.modelcontextprotocol/";

/**
 * The 2026-07-28 reserved keys of a request's `_meta` (revision, client
 * capabilities and info, log level); `undefined` for a request without any,
 * as every request of an older revision is.
 */
export function eraMeta(
  meta: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (meta === undefined) return undefined;
  let era: Record<string, unknown> | undefined;
  for (const key in meta) {
    if (key.startsWith(RESERVED_META_PREFIX)) {
      (era ??= {})[key] = meta[key];
    }
  }
  return era;
}

/** Whether a request whose reserved `_meta` keys are `era` speaks 2026-07-28 (or later). */
export function isStateless(era: Record<string, unknown> | undefined): boolean {
  return era?.[META.PROTOCOL_VERSION] !== undefined;
}

/** The client capabilities a 2026-07-28 request declares in its `_meta`. */
export function eraCapabilities(
  era: Record<string, unknown> | undefined,
): unknown {
  return era?.[META.CLIENT_CAPABILITIES];
}

/** Whether client capabilities let the gate ask the user with a form: `elicitation: {}` or `{ form: {} }`. */
export function asksForms(capabilities: unknown): boolean {
  const elicitation = isRecord(capabilities)
    ? capabilities.elicitation
    : undefined;
  // An empty object means form mode; a host that lists modes must list form.
  return isRecord(elicitation) &&
    (Object.keys(elicitation).length === 0 || "form" in elicitation);
}

/** An `isError` result; one answering a 2026-07-28 request says it is complete, as that revision requires. */
export function refusal(
  text: string,
  era: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const result: Record<string, unknown> = {
    content: [{ type: "text", text }],
    isError: true,
  };
  if (isStateless(era)) result.resultType = "complete";
  return result;
}

/** Whether client capabilities let the gate send the user to a URL: `elicitation: { url: {} }`. */
export function asksUrls(capabilities: unknown): boolean {
  const elicitation = isRecord(capabilities)
    ? capabilities.elicitation
    : undefined;
  return isRecord(elicitation) && isRecord(elicitation.url);
}
