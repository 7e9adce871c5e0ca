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

/** Sends `method` with `params` to `url` as a 2026-07-28 caller; resolves with the answer. */
export async function stateless(
  url: URL | string,
  method: string,
  params: Record<string, unknown>,
  options: StatelessOptions = {},
): Promise<Message> {
  const { token, capabilities = {}, id = 1 } = options;
  const response = await fetch(url, {
    method: "POST",
    // A request whose answer went to another caller would wait forever.
    signal: AbortSignal.timeout(20_000),
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}),
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
  if (type.includes("text/event-stream")) {
    const events = (await response.text()).split("\n")
      .filter((l) => l.startsWith("data: "))
      .map((l) => JSON.parse(l.slice("data: ".length)));
    return events.at(-1);
  }
  if (!type.includes("json")) {
    throw new Error(
      `${method}: HTTP ${response.status}: ${await response.text()}`,
    );
  }
  return await response.json();
}
