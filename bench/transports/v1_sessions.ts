/**
 * The HTTP transport as the toolkit uses it today for 2025-11-25 sessions:
 * `createHttpHandler` (host guard, body limit) around the SDK v1
 * `WebStandardStreamableHTTPServerTransport`, one session.
 *
 * ```sh
 * deno run -A bench/transports/v1_sessions.ts   # one cold start, as JSON
 * ```
 *
 * @module
 */

import { createServer, text } from "@forge/toolkit";
import { createHttpHandler } from "@forge/toolkit/http";
import {
  type Caller,
  coldStart,
  ECHO_INPUT,
  sessionCaller,
} from "./_requests.ts";

const IMPORTED_MS = performance.now();

/** Opens one session through the toolkit's handler. */
export function open(): Promise<Caller> {
  const server = createServer({ name: "bench", version: "1.0.0" });
  server.tool({
    name: "echo",
    description: "Echoes its text",
    input: ECHO_INPUT,
    handler: (args) => text((args as { text: string }).text),
  });
  return sessionCaller(createHttpHandler(server));
}

if (import.meta.main) await coldStart(IMPORTED_MS, open);
