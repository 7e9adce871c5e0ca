/**
 * @forge/toolkit: helpers for writing MCP servers in TypeScript on Deno.
 *
 * - {@linkcode createServer} registers tools and serves them over stdio with
 *   a real lifecycle; results from {@linkcode text}, {@linkcode json} and
 *   {@linkcode error}; domain errors thrown as {@linkcode ToolError}.
 * - {@linkcode registerPatternTool} adds the permission-pattern probe to a
 *   side-effecting tool.
 * - {@linkcode fileAccess}, {@linkcode netAccess} and {@linkcode execAccess}
 *   compute the canonical targets a probe names and a handler acts on.
 *
 * This entry is for writing a server. The rest lives in its own entries:
 * `./server` (every server type), `./result`, `./args` (schemas, decoding,
 * argument readers), `./patterns` (the probe and canonicalisers),
 * `./policy` (the host-side matcher), `./env` (typed environment
 * configuration), `./stdio`, `./http` and `./jsonrpc` (transports),
 * `./testing` (an in-memory client), `./validate` (syntax validators) and
 * `./configreload` (live config reload).
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
export type { Infer, JsonSchema, ToolSchema } from "./args/mod.ts";
export {
  execAccess,
  fileAccess,
  isProbe,
  META_ALWAYS,
  META_PATTERNS,
  META_PERMISSION_PATTERNS,
  META_SUPPORTS_PERMISSION_PATTERNS,
  netAccess,
  type PatternToolDefinition,
  PROBE_META,
  registerPatternTool,
  wrapProbe,
} from "./patterns/mod.ts";
export {
  type CallLayer,
  createServer,
  type PromptDefinition,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
  type ServeOptions,
  type ServerInfo,
  type ServerOptions,
  type ToolAnnotations,
  type ToolContext,
  type ToolDefinition,
  type ToolHandler,
  ToolServer,
} from "./server/mod.ts";
export { ProtocolError, RPC_ERROR } from "./jsonrpc/mod.ts";
