// The names of the OpenTelemetry semantic conventions for MCP (gen-ai/mcp,
// status Development) that the layer writes, and what it reads of a request
// to fill them: the method, the tool, prompt or resource it names, its ids.
// Never an argument value, never a result body.

import { isRecord } from "../_util/json_type.ts";
import { META_PERMISSION_PATTERNS } from "../patterns/probe_meta.ts";
import type { IncomingRequest } from "../server/layer.ts";

/** Attribute keys, as the conventions spell them. */
export const ATTR = {
  METHOD: "mcp.method.name",
  SESSION_ID: "mcp.session.id",
  PROTOCOL_VERSION: "mcp.protocol.version",
  RESOURCE_URI: "mcp.resource.uri",
  REQUEST_ID: "jsonrpc.request.id",
  TOOL_NAME: "gen_ai.tool.name",
  PROMPT_NAME: "gen_ai.prompt.name",
  OPERATION: "gen_ai.operation.name",
  ERROR_TYPE: "error.type",
  STATUS_CODE: "rpc.response.status_code",
  NETWORK_TRANSPORT: "network.transport",
  /** The toolkit's own: the call is a permission-pattern probe, the handler does not run. */
  PROBE: "forge.probe",
  /** The toolkit's own: the task a detached call runs as. */
  TASK_ID: "mcp.task.id",
} as const;

/** The server-side duration histogram, in seconds. */
export const DURATION_METRIC = "mcp.server.operation.duration";

/** The conventions' advice for that histogram's buckets, in seconds. */
export const DURATION_BUCKETS: readonly number[] = [
  0.01,
  0.02,
  0.05,
  0.1,
  0.2,
  0.5,
  1,
  2,
  5,
  10,
  30,
  60,
  120,
  300,
];

/** `error.type` of a `tools/call` answered with `isError: true`. */
export const TOOL_ERROR = "tool_error";

/** What a request names, for the span's name and attributes. */
export interface Target {
  /** The tool or prompt: low-cardinality, so it goes in the span name. */
  name: string | undefined;
  /** Which attribute carries it. */
  key: typeof ATTR.TOOL_NAME | typeof ATTR.PROMPT_NAME | undefined;
  /** The resource URI of a resources method: an attribute, never the name. */
  uri: string | undefined;
}

/** The tool, prompt or resource `request` names. */
export function targetOf(
  request: Pick<IncomingRequest, "method" | "params">,
): Target {
  const params = request.params;
  const name = typeof params?.name === "string" ? params.name : undefined;
  switch (request.method) {
    case "tools/call":
      return { name, key: ATTR.TOOL_NAME, uri: undefined };
    case "prompts/get":
      return { name, key: ATTR.PROMPT_NAME, uri: undefined };
    case "resources/read":
    case "resources/subscribe":
    case "resources/unsubscribe":
      return {
        name: undefined,
        key: undefined,
        uri: typeof params?.uri === "string" ? params.uri : undefined,
      };
    default:
      return { name: undefined, key: undefined, uri: undefined };
  }
}

/** The request's `_meta`, if it sent one. */
export function metaOf(
  request: Pick<IncomingRequest, "params">,
): Record<string, unknown> | undefined {
  const meta = request.params?._meta;
  return isRecord(meta) ? meta : undefined;
}

/** Whether a `tools/call` is a permission-pattern probe. */
export function isProbe(meta: Record<string, unknown> | undefined): boolean {
  return meta?.[META_PERMISSION_PATTERNS] !== undefined;
}

/**
 * The JSON-RPC error code a failure is answered with: its own numeric
 * `code`, else -32603 (as the session answers it).
 */
export function errorCode(cause: unknown): string {
  const code = (cause as { code?: unknown } | null)?.code;
  return String(Number.isSafeInteger(code) ? code : -32603);
}
