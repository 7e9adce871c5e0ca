/**
 * The floor the transports are measured against: the toolkit's server and
 * its in-memory client (`@forge/toolkit/testing`), no HTTP module at all,
 * so what a transport of the toolkit's own adds to start-up is the
 * difference between this and `toolkit_2026.ts` minus the SDK's share.
 *
 * ```sh
 * deno run -A bench/transports/floor.ts   # one cold start, as JSON
 * ```
 *
 * @module
 */

import { createServer, text } from "@forge/toolkit";
import { connect } from "@forge/toolkit/testing";
import { type Caller, coldStart, ECHO_INPUT } from "./_requests.ts";

const IMPORTED_MS = performance.now();

/** A caller of the toolkit's server over its in-memory connection. */
export async function open(): Promise<Caller> {
  const server = createServer({ name: "bench", version: "1.0.0" });
  server.tool({
    name: "echo",
    description: "Echoes its text",
    input: ECHO_INPUT,
    handler: (args) => text((args as { text: string }).text),
  });
  const client = await connect(server);
  return {
    async call() {
      const result = await client.call("echo", { text: "hi" });
      if (JSON.stringify(result).includes('"text":"hi"')) return;
      throw new Error(`Unexpected answer: ${JSON.stringify(result)}`);
    },
  };
}

if (import.meta.main) await coldStart(IMPORTED_MS, open);
