/**
 * @forge/toolkit: helpers for writing MCP servers in TypeScript.
 *
 * - {@linkcode createServer} registers tools and serves them over stdio or
 *   Streamable HTTP with a real lifecycle; results from {@linkcode text},
 *   {@linkcode json} and {@linkcode error}; domain errors thrown as
 *   {@linkcode ToolError}.
 * - {@linkcode registerPatternTool} adds the permission-pattern probe to a
 *   side-effecting tool; {@linkcode fileAccess}, {@linkcode netAccess} and
 *   {@linkcode execAccess} compute the canonical targets a probe names and a
 *   handler acts on.
 *
 * This entry is for writing a server, and holds nothing else. The rest has
 * an entry of its own: `./server` (every server type), `./result`, `./args`
 * (schemas, decoding, argument readers), `./probe` (the probe's helpers and
 * wire constants), `./patterns` (canonicalisers), `./policy` (the host-side
 * matcher), `./env` (typed environment configuration), `./stdio`, `./http`
 * and `./jsonrpc` (transports and protocol errors), `./testing` (an
 * in-memory client), `./skills`, `./gate`, `./validate` (syntax validators)
 * and `./configreload` (live config reload).
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
 *   input: z.object({ name: z.string().describe("Who to greet") }),
 *   annotations: { readOnlyHint: true },
 *   handler: ({ name }) => text(`Hello, ${name}!`),
 * });
 * if (import.meta.main) await server.serve();
 * ```
 *
 * @module
 */

export {
  audio,
  type CallToolResult,
  type Content,
  error,
  image,
  json,
  resource,
  resourceLink,
  text,
  ToolError,
} from "./result/mod.ts";
export type { Infer } from "./schema.ts";
export { type PatternToolDefinition, registerPatternTool } from "./probe.ts";
export { execAccess, fileAccess, netAccess } from "./patterns/mod.ts";
export {
  type CallLayer,
  createServer,
  type ServeOptions,
  type ServerOptions,
  type ToolAnnotations,
  type ToolContext,
  type ToolDefinition,
  type ToolHandler,
  ToolServer,
} from "./server/mod.ts";
