/**
 * The toolkit's server on the SDK v2 package's
 * `WebStandardStreamableHTTPServerTransport` (`@modelcontextprotocol/server`),
 * one 2025-11-25 session, behind v2's own Host and Origin checks: what
 * `http/sessions.ts` would run on after a move to v2. Without
 * `@forge/toolkit/http`, whose graph holds the v1 SDK.
 *
 * ```sh
 * deno run -A bench/transports/v2_sessions.ts   # one cold start, as JSON
 * ```
 *
 * @module
 */

import {
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { createServer, text } from "@forge/toolkit";
import type { McpTransport } from "@forge/toolkit/jsonrpc";
import {
  type Caller,
  coldStart,
  ECHO_INPUT,
  sessionCaller,
} from "./_requests.ts";

const IMPORTED_MS = performance.now();

/** Opens one session on the v2 transport, the toolkit's server behind it. */
export async function open(): Promise<Caller> {
  const server = createServer({ name: "bench", version: "1.0.0" });
  server.tool({
    name: "echo",
    description: "Echoes its text",
    input: ECHO_INPUT,
    handler: (args) => text((args as { text: string }).text),
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
  });
  // The toolkit's transport contract is the shape the SDK's transports have.
  await server.connect(transport as unknown as McpTransport);
  const hosts = localhostAllowedHostnames();
  const origins = localhostAllowedOrigins();
  return sessionCaller(async (request) =>
    hostHeaderValidationResponse(request, hosts) ??
      originValidationResponse(request, origins) ??
      await transport.handleRequest(request)
  );
}

if (import.meta.main) await coldStart(IMPORTED_MS, open);
