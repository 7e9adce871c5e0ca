/**
 * The toolkit's server on the SDK v2 package's 2026-07-28 path: each request
 * classified by `classifyInboundRequest` (era, envelope, SEP-2243 headers)
 * and served by a `PerRequestHTTPServerTransport` of its own, behind v2's
 * Host and Origin checks: what `http/_stateless.ts` would be after a move
 * to v2.
 *
 * ```sh
 * deno run -A bench/transports/v2_2026.ts   # one cold start, as JSON
 * ```
 *
 * @module
 */

import {
  classifyInboundRequest,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  PerRequestHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { createServer, text } from "@forge/toolkit";
import type { JsonRpcMessage, McpTransport } from "@forge/toolkit/jsonrpc";
import {
  type Caller,
  coldStart,
  ECHO_INPUT,
  statelessCaller,
} from "./_requests.ts";

const IMPORTED_MS = performance.now();

/** A caller of the toolkit's server through v2's per-request transport. */
export function open(): Promise<Caller> {
  const server = createServer({ name: "bench", version: "1.0.0" });
  server.tool({
    name: "echo",
    description: "Echoes its text",
    input: ECHO_INPUT,
    handler: (args) => text((args as { text: string }).text),
  });
  const hosts = localhostAllowedHostnames();
  const origins = localhostAllowedOrigins();
  return Promise.resolve(statelessCaller(async (request) => {
    const refused = hostHeaderValidationResponse(request, hosts) ??
      originValidationResponse(request, origins);
    if (refused !== undefined) return refused;
    const body = await request.json();
    const route = classifyInboundRequest({
      httpMethod: request.method,
      protocolVersionHeader: request.headers.get("mcp-protocol-version") ??
        undefined,
      mcpMethodHeader: request.headers.get("mcp-method") ?? undefined,
      mcpNameHeader: request.headers.get("mcp-name") ?? undefined,
      body,
    });
    if (route.kind !== "modern") {
      return Response.json({ route: route.kind }, { status: 400 });
    }
    const transport = new PerRequestHTTPServerTransport({
      classification: route.classification,
    });
    await server.connect(transport as unknown as McpTransport);
    return await transport.handleMessage(
      route.message as JsonRpcMessage as Parameters<
        typeof transport.handleMessage
      >[0],
      { request },
    );
  }));
}

if (import.meta.main) await coldStart(IMPORTED_MS, open);
