/**
 * The SDK v2 package on its own, for reference: `createMcpHandler` with a
 * factory of v2 `McpServer`s (a fresh one per request) and a 2026-07-28
 * `tools/call`, behind v2's Host and Origin checks. The toolkit's server is
 * not in this graph.
 *
 * ```sh
 * deno run -A bench/transports/v2_native.ts   # one cold start, as JSON
 * ```
 *
 * @module
 */

import {
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  McpServer,
  originValidationResponse,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { type Caller, coldStart, statelessCaller } from "./_requests.ts";

const IMPORTED_MS = performance.now();

/** A caller of a trivial v2 server through v2's own handler. */
export function open(): Promise<Caller> {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "bench", version: "1.0.0" });
    server.registerTool("echo", {
      description: "Echoes its text",
      inputSchema: z.object({ text: z.string() }),
    }, ({ text }) => ({ content: [{ type: "text", text }] }));
    return server;
  }, { legacy: "reject" });
  const hosts = localhostAllowedHostnames();
  const origins = localhostAllowedOrigins();
  return Promise.resolve(
    statelessCaller(async (request) =>
      hostHeaderValidationResponse(request, hosts) ??
        originValidationResponse(request, origins) ??
        await handler.fetch(request)
    ),
  );
}

if (import.meta.main) await coldStart(IMPORTED_MS, open);
