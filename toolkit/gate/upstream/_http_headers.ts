// Internal: the headers of a request to a remote Streamable HTTP server: the
// user's own (`--header`), Accept and Content-Type, the session and the
// protocol version, and for a 2026-07-28 request standing alone its method,
// its target and the arguments its tool mirrors in headers (SEP-2243).

import { isRecord } from "../../_util/json_type.ts";

const ACCEPT = "application/json, text/event-stream";
const ERA_KEY = "io.modelcontextprotocol/protocolVersion";

/** The header that names the session. */
export const SESSION_HEADER = "mcp-session-id";

/** What the headers depend on besides the message. */
export interface HeaderState {
  /** Sent with every request (`Authorization: Bearer …`). */
  readonly base?: readonly (readonly [string, string])[];
  /** The 2025 session, once the server named one. */
  readonly sessionId: string | undefined;
  /** The protocol version the server chose in its initialize answer. */
  readonly protocolVersion: string | undefined;
  /** The arguments a tool mirrors in headers, as its tools/list entry marks them. */
  readonly mirrored?: (tool: string) => Mirrored | undefined;
}

/** A tool's arguments mirrored in `Mcp-Param-<Name>` headers: property by header name. */
export type Mirrored = ReadonlyMap<string, string>;

/** The `x-mcp-header` marks of a tool's input schema: property by header name. */
export function mirroredOf(schema: unknown): Map<string, string> {
  const marks = new Map<string, string>();
  const properties = isRecord(schema) ? schema.properties : undefined;
  if (!isRecord(properties)) return marks;
  for (const [property, definition] of Object.entries(properties)) {
    const name = isRecord(definition) ? definition["x-mcp-header"] : undefined;
    if (
      typeof name === "string" && /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)
    ) {
      marks.set(name, property);
    }
  }
  return marks;
}

/**
 * The headers of a POST of `message`, or of a GET (the session's stream, or
 * a resumption) without one, by lower-case name. A plain record, not a
 * `Headers`: `fetch` copies whatever it is given into a request of its own
 * (and checks every name and value there), and a record is the cheapest
 * for it to copy.
 */
export function requestHeaders(
  state: HeaderState,
  message?: Record<string, unknown>,
): Record<string, string> {
  // As `new Headers(base)` then `set()` would: a name given twice is one
  // header with both values, and what is set below replaces the user's.
  const headers: Record<string, string> = Object.create(null);
  for (const [name, value] of state.base ?? []) {
    const key = name.toLowerCase();
    headers[key] = key in headers ? `${headers[key]}, ${value}` : value;
  }
  headers.accept = message === undefined ? "text/event-stream" : ACCEPT;
  if (message !== undefined) headers["content-type"] = "application/json";
  if (state.sessionId !== undefined) {
    headers[SESSION_HEADER] = state.sessionId;
  }
  const params = isRecord(message?.params) ? message.params : undefined;
  const era = isRecord(params?._meta) ? params._meta[ERA_KEY] : undefined;
  const version = typeof era === "string" ? era : state.protocolVersion;
  if (version !== undefined) headers["mcp-protocol-version"] = version;
  if (typeof era === "string" && typeof message?.method === "string") {
    // SEP-2243: a request standing alone names its method and target in
    // headers, which the server checks against the body.
    headers["mcp-method"] = message.method;
    const target = routingValue(message.method, params);
    if (target !== undefined) headers["mcp-name"] = headerValue(target);
    const marks = message.method === "tools/call" && target !== undefined
      ? state.mirrored?.(target)
      : undefined;
    const args = isRecord(params?.arguments) ? params.arguments : {};
    for (const [name, property] of marks ?? []) {
      const value = args[property];
      if (value === undefined || value === null) continue;
      headers[`mcp-param-${name.toLowerCase()}`] = headerValue(String(value));
    }
  }
  return headers;
}

/** The value SEP-2243's Mcp-Name carries for `method`, if any. */
function routingValue(
  method: string,
  params: Record<string, unknown> | undefined,
): string | undefined {
  const field = method === "resources/read"
    ? "uri"
    : method === "tools/call" || method === "prompts/get"
    ? "name"
    : method.startsWith("tasks/")
    ? "taskId"
    : undefined;
  const value = field === undefined ? undefined : params?.[field];
  return typeof value === "string" ? value : undefined;
}

/** A header value: literal when it is plain ASCII, else `=?base64?…?=` of its UTF-8. */
function headerValue(value: string): string {
  if (
    /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value) &&
    !value.startsWith("=?")
  ) {
    return value;
  }
  let binary = "";
  for (const byte of new TextEncoder().encode(value)) {
    binary += String.fromCharCode(byte);
  }
  return `=?base64?${btoa(binary)}?=`;
}
