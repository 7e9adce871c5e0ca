// For the tests of the gate served over HTTP: one 2026-07-28 request,
// with the caller's token and capabilities, answered from a JSON body or
// the last message of its SSE stream.

import type { Message } from "./gate_process.ts";

/** What a 2026-07-28 request carries besides its method and params. */
export interface StatelessOptions {
  /** The caller's bearer token; none without it. */
  token?: string;
  /** The caller's `clientCapabilities`. @default {{}} */
  capabilities?: Record<string, unknown>;
  /** The request's id. @default {1} */
  id?: number;
}

/**
 * Sends `method` with `params` to `url` as a 2026-07-28 caller; resolves
 * with the response's status and headers, and the answer.
 */
export async function statelessResponse(
  url: URL | string,
  method: string,
  params: Record<string, unknown>,
  options: StatelessOptions = {},
): Promise<{ status: number; headers: Headers; body: Message }> {
  const { token, capabilities = {}, id = 1 } = options;
  // The request's name, or a read's URI, as 2026-07-28 asks.
  const name = params.name ?? params.uri;
  const response = await fetch(url, {
    method: "POST",
    // A request whose answer went to another caller would wait forever.
    signal: AbortSignal.timeout(20_000),
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof name === "string" ? { "mcp-name": name } : {}),
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": capabilities,
        },
      },
    }),
  });
  const type = response.headers.get("content-type") ?? "";
  const body = type.includes("text/event-stream")
    ? (await response.text()).split("\n")
      .filter((l) => l.startsWith("data: "))
      .map((l) => JSON.parse(l.slice("data: ".length))).at(-1)
    : await response.json();
  return { status: response.status, headers: response.headers, body };
}

/** {@linkcode statelessResponse}'s answer alone. */
export async function stateless(
  url: URL | string,
  method: string,
  params: Record<string, unknown>,
  options: StatelessOptions = {},
): Promise<Message> {
  return (await statelessResponse(url, method, params, options)).body;
}
