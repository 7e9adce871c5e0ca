/**
 * @forge/toolkit: helpers for writing MCP servers in TypeScript on Deno.
 *
 * - {@linkcode createServer} registers tools and serves them over stdio with
 *   a real lifecycle; results from {@linkcode text}, {@linkcode json} and
 *   {@linkcode error}; domain errors thrown as {@linkcode ToolError}.
 * - {@linkcode registerPatternTool} adds the permission-pattern probe to a
 *   side-effecting tool.
 * - Argument accessors and decoding with model-readable messages, typed
 *   environment configuration with {@linkcode readEnv}.
 *
 * Also: `@forge/toolkit/testing` (an in-memory client), `./validate`
 * (syntax validators) and `./configreload` (live config reload).
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
  type AudioContent,
  type CallToolResult,
  type Content,
  type ContentAnnotations,
  type EmbeddedResourceContent,
  error,
  image,
  type ImageContent,
  json,
  resource,
  type ResourceContents,
  resourceLink,
  type ResourceLinkContent,
  type ResourceLinkOptions,
  text,
  type TextContent,
  ToolError,
} from "./result/result.ts";
export {
  ArgumentError,
  type ArgumentErrorOptions,
  type ArgumentProblem,
  decodeArguments,
  type DecodeOptions,
  type DecodeResult,
  formatProblems,
  type NumberOptions,
  optionalBoolean,
  optionalInt,
  optionalNumber,
  optionalString,
  type RawArguments,
  requireBoolean,
  requireEnum,
  requireInt,
  requireNumber,
  requireString,
  requireStringArray,
} from "./args/args.ts";
export {
  type Infer,
  isStandardSchema,
  JSON_SCHEMA_2020_12,
  type JsonSchema,
  type SchemaIssue,
  type SchemaResult,
  type StandardSchema,
  toJsonSchema,
  type ToJsonSchemaOptions,
  type ToolSchema,
} from "./args/schema.ts";
export {
  type Access,
  type AccessList,
  isProbe,
  META_ALWAYS,
  META_PATTERNS,
  META_PERMISSION_PATTERNS,
  META_SUPPORTS_PERMISSION_PATTERNS,
  patternsOf,
  type PatternToolContext,
  type PatternToolDefinition,
  type ProbeDefinition,
  registerPatternTool,
  wrapProbe,
} from "./patterns/probe.ts";
export {
  env,
  type EnvConfig,
  type EnvDurationOptions,
  EnvError,
  type EnvKinds,
  type EnvListOptions,
  type EnvNumberOptions,
  type EnvOptions,
  type EnvProblem,
  type EnvReadResult,
  type EnvSecretOptions,
  type EnvSource,
  type EnvUrlOptions,
  type EnvVar,
  readEnv,
  type ReadEnvOptions,
  Secret,
} from "./env/env.ts";
export {
  type Completer,
  type ListedResource,
  ProtocolError,
  type ReadResult,
  type RequestContext,
  RESOURCE_NOT_FOUND,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
} from "./server/resources.ts";
export {
  type PromptArgument,
  type PromptDefinition,
  type PromptMessage,
  type PromptResult,
} from "./server/prompts.ts";
export {
  createServer,
  type ElicitationParams,
  type ElicitationResult,
  type ListedTool,
  type LogLevel,
  RPC_ERROR,
  type SamplingMessage,
  type SamplingParams,
  type SamplingResult,
  type ServeOptions,
  type ServerInfo,
  type ServerOptions,
  type ToolAnnotations,
  type ToolContext,
  type ToolDefinition,
  type ToolHandler,
  type ToolLogger,
  ToolServer,
} from "./server/server.ts";
export {
  canonicalPath,
  escapeGlob,
  execAccess,
  type ExecAccessOptions,
  type ExecTarget,
  type FileAccess,
  fileAccess,
  type FileTarget,
  type FileTargetOptions,
  netAccess,
  type NetAccessOptions,
  type NetScheme,
  type NetTarget,
  type RenameTarget,
} from "./patterns/patterns.ts";
export {
  type Decision,
  matchPattern,
  type PatternDecision,
  Policy,
  type PolicyDecision,
  type PolicyRules,
  Rule,
  RuleSyntaxError,
  type RuleSyntaxErrorOptions,
} from "./policy/policy.ts";
export {
  DEFAULT_MAX_MESSAGE_BYTES,
  StdioTransport,
  type StdioTransportOptions,
} from "./stdio/stdio.ts";
export type {
  JsonRpcId,
  JsonRpcMessage,
  McpTransport,
  TransportSendOptions,
} from "./jsonrpc/types.ts";
