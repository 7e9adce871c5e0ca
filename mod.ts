/**
 * @forge/toolkit: helpers for writing MCP servers in TypeScript.
 *
 * The main entry is the server author's: {@linkcode createServer}, the
 * result builders, {@linkcode ToolError} and the permission-pattern probe.
 * Everything else has an entry of its own (`@forge/toolkit/server`,
 * `/probe`, `/patterns`, `/policy`, `/http`, `/testing`, `/validate`,
 * `/configreload`, …); see `toolkit/mod.ts`.
 *
 * Where it runs: this entry, `/server`, `/result`, `/args`, `/probe`,
 * `/http`, `/jsonrpc`, `/policy` and `/validate` run unchanged on Deno, Node
 * (20 and later), Bun and Cloudflare Workers (workerd); none reaches for
 * `Deno` at import (`examples/edge` serves one server on all four). What
 * needs Deno stays behind its own line: `server.serve()` (stdio, signals),
 * `/stdio`, real paths in `/patterns` (`fileAccess`), `/env`,
 * `/configreload` (`watchFs`), `/redis` and `/gate`.
 *
 * @example A server with one tool
 * ```ts
 * import { createServer, text } from "@forge/toolkit";
 * import { z } from "zod";
 *
 * const server = createServer({ name: "hello", version: "0.1.0" });
 * server.tool({
 *   name: "hello",
 *   description: "Greets someone",
 *   input: z.object({ name: z.string() }),
 *   handler: ({ name }) => text(`Hello, ${name}!`),
 * });
 * if (import.meta.main) await server.serve();
 * ```
 *
 * @module
 */

// The card's main entry; its one list of names is toolkit/mod.ts.
export * from "./toolkit/mod.ts";
