// Internal: what the gate says to a host it sends to the approval page
// (MCP 2025-11-25, URL-mode elicitation): `elicitation/create` with
// `mode: "url"` for a host that declared `elicitation.url`, the
// URL-required error (-32042) for a host that can be asked nothing, and
// `notifications/elicitation/complete` once an approver decided.

import type { JsonRpcMessage } from "../jsonrpc/types.ts";

/** The spec's error code: the call needs the user to visit a URL first. */
export const URL_ELICITATION_REQUIRED = -32042;

/** An approval on the page, as the host is told of it. */
export interface PageApproval {
  /** The approval's id, used as the elicitation's id. */
  id: string;
  /** The page's absolute URL. */
  url: string;
}

/** Why the user is sent to the page, for `tool`. */
export function pageMessage(tool: string, patterns: readonly string[]): string {
  return `The gate's policy asks for an approval of this call of ${tool}${
    patterns.length === 0 ? "" : ` (${patterns.join(", ")})`
  }: an approver decides on the gate's page.`;
}

/** The params of `elicitation/create` in URL mode. */
export function urlElicitation(
  page: PageApproval,
  message: string,
): Record<string, unknown> {
  return { mode: "url", message, elicitationId: page.id, url: page.url };
}

/** The URL-required error: the host shows the URL, and calls again once approved. */
export function urlRequired(
  page: PageApproval,
  message: string,
): { code: number; message: string; data: Record<string, unknown> } {
  return {
    code: URL_ELICITATION_REQUIRED,
    message:
      `${message} Open ${page.url} to have it approved, then call again. Nothing was run.`,
    data: { elicitations: [urlElicitation(page, message)] },
  };
}

/** The notification that the out-of-band elicitation `id` completed. */
export function elicitationComplete(id: string): JsonRpcMessage {
  return {
    jsonrpc: "2.0",
    method: "notifications/elicitation/complete",
    params: { elicitationId: id },
  };
}
