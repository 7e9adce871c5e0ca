/**
 * my-server: an MCP server built with `@forge/toolkit`. It serves one tool,
 * `hello`, over stdio; replace it with your own.
 *
 * @example Run it, then type a JSON-RPC line (or connect a host)
 * ```sh
 * deno task start
 * ```
 *
 * @module
 */

import { createServer, text, type ToolServer } from "@forge/toolkit";
import { env, EnvError, readEnv } from "@forge/toolkit/env";
import { z } from "zod";

/** The settings this server reads from its environment at start-up. */
export interface Config {
  /** The word `hello` greets with. */
  greeting: string;
}

/**
 * Builds the server; `main_test.ts` calls it with a test config.
 *
 * @example
 * ```ts
 * import { buildServer } from "./main.ts";
 *
 * const server = buildServer({ greeting: "Hello" });
 * ```
 */
export function buildServer(config: Config): ToolServer {
  const server = createServer({ name: "my-server", version: "0.1.0" });

  server.tool({
    name: "hello",
    description: "Greets someone by name.",
    input: z.object({ name: z.string().min(1).describe("Who to greet") }),
    annotations: { readOnlyHint: true },
    handler: ({ name }) => text(`${config.greeting}, ${name}!`),
  });

  return server;
}

if (import.meta.main) {
  try {
    const config = readEnv({
      greeting: env.string("GREETING", { default: "Hello" }),
    });
    await buildServer(config).serve();
  } catch (error) {
    if (!(error instanceof EnvError)) throw error;
    // Every bad variable at once, then a non-zero exit the host can show.
    console.error(error.message);
    Deno.exit(1);
  }
}
