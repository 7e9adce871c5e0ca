/**
 * The toolkit's own 2026-07-28 path (`http/_stateless.ts`), reached as a
 * user reaches it: `createHttpHandler` given a 2026-07-28 request. The
 * module graph is the same as `v1_sessions.ts`'s, SDK included, because
 * `@forge/toolkit/http` imports both paths statically.
 *
 * ```sh
 * deno run -A bench/transports/toolkit_2026.ts   # one cold start, as JSON
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
  statelessCaller,
} from "./_requests.ts";

const IMPORTED_MS = performance.now();

/** A caller whose every `tools/call` is a 2026-07-28 request of its own. */
export function open(): Promise<Caller> {
  const server = createServer({ name: "bench", version: "1.0.0" });
  server.tool({
    name: "echo",
    description: "Echoes its text",
    input: ECHO_INPUT,
    handler: (args) => text((args as { text: string }).text),
  });
  return Promise.resolve(statelessCaller(createHttpHandler(server)));
}

if (import.meta.main) await coldStart(IMPORTED_MS, open);
