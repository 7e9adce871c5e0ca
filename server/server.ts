/**
 * `createServer()`: a tool registry that keeps the wire contract, served over
 * stdio (or any MCP transport) with a real lifecycle.
 *
 * The toolkit owns `tools/list` and `tools/call` (and resources, prompts
 * and completion) on the SDK's low-level server, because the SDK's
 * `McpServer` turns every throw into `isError` and emits draft-07 schemas. Here a returned `error()` or a thrown
 * `ToolError` is a domain error (`isError`), anything else thrown is a
 * JSON-RPC error whose stack goes to stderr, never to the peer.
 *
 * @module
 */

import { type PromptDefinition, PromptRegistry } from "./prompts.ts";
import {
  type RequestContext,
  type ResourceDefinition,
  ResourceRegistry,
  type ResourceTemplateDefinition,
} from "./resources.ts";
import { decode, type DecodeResult, formatProblems } from "../args/args.ts";
import {
  answersProbes,
  META_PERMISSION_PATTERNS,
  META_SUPPORTS_PERMISSION_PATTERNS,
} from "../patterns/probe.ts";
import { type CallToolResult, error, ToolError } from "../result/result.ts";
import {
  type Infer,
  isStandardSchema,
  type JsonSchema,
  type StandardSchema,
  toJsonSchema,
  type ToolSchema,
} from "../args/schema.ts";
import type { McpTransport } from "../jsonrpc/types.ts";
import type { ServeHttpOptions } from "../http/http.ts";
import { StdioTransport, type StdioTransportOptions } from "../stdio/stdio.ts";
import { type RequestExtra, type RequestHandler, Session } from "./_session.ts";
import { isRecord, jsonType } from "../_util/json_type.ts";
import { LazyAbort } from "../_util/abort.ts";
import { ProtocolError, RPC_ERROR } from "../jsonrpc/errors.ts";
import { isThenable } from "../_util/thenable.ts";

/** Microtask turns between a call settling and its answer reaching the transport, with room to spare. */
const ANSWER_TURNS = 16;

const TOOL_NAME = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * The server's name and version, sent to the client at initialisation.
 *
 * @example Name the server once
 * ```ts
 * import { createServer, type ServerInfo } from "@forge/toolkit";
 *
 * const INFO: ServerInfo = { name: "notes", version: "1.4.0", title: "Team notes" };
 * const server = createServer(INFO);
 * server.info.title; // "Team notes"
 * ```
 */
export interface ServerInfo {
  /** A programmatic name, such as `hello`. */
  name: string;
  /** The server's version, such as `0.1.0`. */
  version: string;
  /** A human-readable name. */
  title?: string;
}

/**
 * Options for {@linkcode createServer}.
 *
 * @example Limit every call's run time
 * ```ts
 * import { createServer, type ServerOptions } from "@forge/toolkit";
 *
 * const options: ServerOptions = {
 *   instructions: "Search before you create a note; notes are Markdown.",
 *   timeoutMs: 30_000, // no call runs longer than 30 s
 *   graceMs: 2_000, // on shutdown, calls in flight get 2 s to finish
 * };
 * const server = createServer({ name: "notes", version: "1" }, options);
 * ```
 */
export interface ServerOptions {
  /**
   * Instructions for the model on how to use the server's tools.
   *
   * @default {undefined}
   */
  instructions?: string;
  /**
   * How long in-flight calls may run after shutdown begins (stdin EOF,
   * SIGINT, SIGTERM, `close()`), in milliseconds; then their signals abort.
   *
   * @default {5000}
   */
  graceMs?: number;
  /**
   * A time limit for every tool call that sets none itself, in milliseconds.
   *
   * @default {undefined}
   */
  timeoutMs?: number;
}

/**
 * Hints about a tool's behaviour, shown to the client in `tools/list`.
 *
 * @example Mark tools read-only or destructive
 * ```ts
 * import { createServer, text, type ToolAnnotations } from "@forge/toolkit";
 *
 * const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
 * const DESTRUCTIVE: ToolAnnotations = { destructiveHint: true, idempotentHint: true };
 * const count = () => text("12");
 * const wipe = () => text("deleted 12 notes");
 * const server = createServer({ name: "notes", version: "1" });
 * server.tool({ name: "count", description: "Counts notes", annotations: READ_ONLY, handler: count })
 *   .tool({ name: "wipe", description: "Deletes notes", annotations: DESTRUCTIVE, handler: wipe });
 * ```
 */
export interface ToolAnnotations {
  /** A human-readable title. */
  title?: string;
  /** The tool does not change its environment. */
  readOnlyHint?: boolean;
  /** The tool may destroy or overwrite data. */
  destructiveHint?: boolean;
  /** Calling it twice with the same arguments has no further effect. */
  idempotentHint?: boolean;
  /** The tool talks to an open world, such as the web. */
  openWorldHint?: boolean;
}

/**
 * Log severities, as MCP's `notifications/message` names them.
 *
 * @example Pick a level from an upstream status
 * ```ts
 * import type { ToolContext } from "@forge/toolkit";
 * import type { LogLevel } from "@forge/toolkit/server";
 *
 * function logStatus(ctx: ToolContext, status: number): void {
 *   const level: LogLevel = status >= 500 ? "error" : status >= 400 ? "warning" : "debug";
 *   ctx.log.log(level, `upstream answered ${status}`);
 * }
 * ```
 */
export type LogLevel =
  | "debug"
  | "info"
  | "notice"
  | "warning"
  | "error"
  | "critical"
  | "alert"
  | "emergency";

/**
 * Logging from inside a tool call: to stderr and, as MCP log notifications, to the client.
 *
 * @example Hand the call's logger to a helper
 * ```ts
 * import type { ToolLogger } from "@forge/toolkit/server";
 *
 * async function fetchWithRetry(url: string, log: ToolLogger): Promise<Response> {
 *   for (let attempt = 1;; attempt++) {
 *     try {
 *       return await fetch(url);
 *     } catch (cause) {
 *       if (attempt === 3) throw cause;
 *       log.warning(`Retrying ${url}`, { attempt, cause: String(cause) });
 *     }
 *   }
 * }
 * ```
 */
export interface ToolLogger {
  /** Logs at `debug`. */
  debug(message: string, data?: unknown): void;
  /** Logs at `info`. */
  info(message: string, data?: unknown): void;
  /** Logs at `warning`. */
  warning(message: string, data?: unknown): void;
  /** Logs at `error`. */
  error(message: string, data?: unknown): void;
  /** Logs at any level. */
  log(level: LogLevel, message: string, data?: unknown): void;
}

/**
 * What a handler knows about its call.
 *
 * @example Report progress and stop when cancelled
 * ```ts
 * import { text, type ToolContext } from "@forge/toolkit";
 *
 * async function reindex(files: string[], ctx: ToolContext) {
 *   for (const [i, file] of files.entries()) {
 *     ctx.signal.throwIfAborted(); // the client cancelled or the call timed out
 *     ctx.log.debug(`indexing ${file}`);
 *     await ctx.progress(i + 1, files.length);
 *   }
 *   return text(`indexed ${files.length} files`);
 * }
 * ```
 */
export interface ToolContext {
  /** Aborted when the client cancels, the call times out or the server shuts down. */
  readonly signal: AbortSignal;
  /** The request's `_meta`, `{}` when it had none. */
  readonly meta: Readonly<Record<string, unknown>>;
  /** The JSON-RPC id of the call. */
  readonly requestId: string | number;
  /** The transport session, on transports that have sessions. */
  readonly sessionId: string | undefined;
  /** The tool being called. */
  readonly toolName: string;
  /**
   * Reports progress when the client asked for it (a `progressToken`);
   * otherwise does nothing.
   */
  progress(done: number, total?: number, message?: string): Promise<void>;
  /** Logs to stderr and to the client. */
  readonly log: ToolLogger;
  /**
   * Asks the client's model for a completion (`sampling/createMessage`).
   * Rejects when the client did not declare the `sampling` capability.
   */
  sample(params: SamplingParams): Promise<SamplingResult>;
  /**
   * Asks the user for input through the client (`elicitation/create`).
   * Rejects when the client did not declare the `elicitation` capability.
   */
  elicit(params: ElicitationParams): Promise<ElicitationResult>;
}

/**
 * A message in a sampling request or result.
 *
 * @example Give the model context, then the question
 * ```ts
 * import type { SamplingMessage } from "@forge/toolkit/server";
 *
 * function ask(question: string, document: string): SamplingMessage[] {
 *   return [
 *     { role: "user", content: { type: "text", text: `Document:\n${document}` } },
 *     { role: "user", content: { type: "text", text: question } },
 *   ];
 * }
 * ```
 */
export interface SamplingMessage {
  /** Who speaks. */
  role: "user" | "assistant";
  /** What is said: text, image or audio. */
  content: { type: string; [field: string]: unknown };
}

/**
 * The parameters of `sampling/createMessage`.
 *
 * @example Summarise with the client's model
 * ```ts
 * import type { ToolContext } from "@forge/toolkit";
 * import type { SamplingParams } from "@forge/toolkit/server";
 *
 * async function summarise(body: string, ctx: ToolContext): Promise<string> {
 *   const params: SamplingParams = {
 *     messages: [{ role: "user", content: { type: "text", text: body } }],
 *     systemPrompt: "Summarise in one sentence.",
 *     maxTokens: 100,
 *     temperature: 0.2,
 *   };
 *   const answer = await ctx.sample(params);
 *   return answer.content.type === "text" ? String(answer.content.text) : "";
 * }
 * ```
 */
export interface SamplingParams {
  /** The conversation so far. */
  messages: SamplingMessage[];
  /** The most tokens the model may produce. */
  maxTokens: number;
  /** A system prompt. */
  systemPrompt?: string;
  /** Further MCP fields: `modelPreferences`, `temperature`, `stopSequences`, … */
  [field: string]: unknown;
}

/**
 * What the client's model answered.
 *
 * @example Turn the model's answer into a tool result
 * ```ts
 * import { error, text } from "@forge/toolkit";
 * import { type SamplingResult } from "@forge/toolkit/server";
 *
 * function toResult(answer: SamplingResult) {
 *   if (answer.stopReason === "maxTokens") {
 *     return error("The summary was cut off: ask for a shorter one");
 *   }
 *   return text(`${answer.content.text} (written by ${answer.model})`);
 * }
 * ```
 */
export interface SamplingResult {
  /** Who spoke (the model: `assistant`). */
  role: "user" | "assistant";
  /** What it said. */
  content: { type: string; [field: string]: unknown };
  /** The model that answered. */
  model: string;
  /** Why it stopped. */
  stopReason?: string;
  /** Further fields. */
  [field: string]: unknown;
}

/**
 * The parameters of `elicitation/create` (form mode).
 *
 * @example Ask the user to confirm a deletion
 * ```ts
 * import type { ToolContext } from "@forge/toolkit";
 * import type { ElicitationParams } from "@forge/toolkit/server";
 *
 * async function confirm(ctx: ToolContext, what: string): Promise<boolean> {
 *   const params: ElicitationParams = {
 *     message: `Delete ${what}?`,
 *     requestedSchema: {
 *       type: "object",
 *       properties: { sure: { type: "boolean", title: "Yes, delete it" } },
 *       required: ["sure"],
 *     },
 *   };
 *   const answer = await ctx.elicit(params);
 *   return answer.action === "accept" && answer.content?.sure === true;
 * }
 * ```
 */
export interface ElicitationParams {
  /** What to ask the user. */
  message: string;
  /** A flat JSON Schema object of the fields to fill in. */
  requestedSchema: Record<string, unknown>;
  /** Further MCP fields. */
  [field: string]: unknown;
}

/**
 * What the user answered.
 *
 * @example Tell the model what the user decided
 * ```ts
 * import { error, text } from "@forge/toolkit";
 * import { type ElicitationResult } from "@forge/toolkit/server";
 *
 * function booking(answer: ElicitationResult) {
 *   if (answer.action !== "accept") {
 *     return error(`Nothing was booked: the user chose to ${answer.action}`);
 *   }
 *   return text(`Booked for ${answer.content?.date}`);
 * }
 * ```
 */
export interface ElicitationResult {
  /** Whether the user accepted, declined or dismissed the request. */
  action: "accept" | "decline" | "cancel";
  /** The values, when accepted. */
  content?: Record<string, unknown>;
  /** Further fields. */
  [field: string]: unknown;
}

/**
 * A tool handler: decoded arguments in, a result out.
 *
 * @example Write a handler apart from its registration
 * ```ts
 * import { createServer, text, type ToolHandler } from "@forge/toolkit";
 * import { z } from "zod";
 *
 * const input = z.object({ a: z.number(), b: z.number() });
 * const add: ToolHandler<z.infer<typeof input>> = ({ a, b }) => text(String(a + b));
 * createServer({ name: "calc", version: "1" })
 *   .tool({ name: "add", description: "Adds two numbers", input, handler: add });
 * ```
 */
export type ToolHandler<A> = (
  args: A,
  ctx: ToolContext,
) => CallToolResult | Promise<CallToolResult>;

/**
 * A tool as {@linkcode ToolServer.tool} takes it.
 *
 * @example Define a tool apart from the server
 * ```ts
 * import { createServer, text, type ToolDefinition } from "@forge/toolkit";
 * import { z } from "zod";
 *
 * const input = z.object({ city: z.string().describe("City name, such as Lisbon") });
 * const weather: ToolDefinition<typeof input> = {
 *   name: "weather",
 *   description: "Current weather for a city",
 *   input,
 *   annotations: { readOnlyHint: true, openWorldHint: true },
 *   timeoutMs: 10_000,
 *   handler: ({ city }) => text(`Sunny in ${city}`),
 * };
 * createServer({ name: "weather", version: "1" }).tool(weather);
 * ```
 */
export interface ToolDefinition<
  S extends ToolSchema | undefined = ToolSchema | undefined,
> {
  /** The tool's name: 1-128 of `A-Z a-z 0-9 . _ -`, unique in the server. */
  name: string;
  /** A human-readable title. */
  title?: string;
  /** What the tool does, written for the model. */
  description: string;
  /** The arguments: a zod 4 object schema or a JSON Schema object. */
  input?: S;
  /** The shape of `structuredContent`, when the tool returns it. */
  output?: ToolSchema;
  /** Behaviour hints for the client. */
  annotations?: ToolAnnotations;
  /** A time limit for one call, in milliseconds; past it the call answers a JSON-RPC error. */
  timeoutMs?: number;
  /** Extra metadata shown in `tools/list`. */
  _meta?: Record<string, unknown>;
  /** Performs the call. */
  handler: ToolHandler<Infer<S>>;
}

/**
 * A tool as `tools/list` shows it.
 *
 * @example Check the schema a client will see
 * ```ts
 * import { createServer, text } from "@forge/toolkit";
 * import { type ListedTool } from "@forge/toolkit/server";
 * import { z } from "zod";
 * import assert from "node:assert/strict";
 *
 * const server = createServer({ name: "s", version: "1" });
 * const input = z.object({ name: z.string() });
 * server.tool({ name: "greet", description: "Greets", input, handler: (a) => text(a.name) });
 * const [greet]: ListedTool[] = server.listTools();
 * assert.deepEqual(greet.inputSchema.required, ["name"]);
 * ```
 */
export interface ListedTool {
  /** The tool's name. */
  name: string;
  /** A human-readable title. */
  title?: string;
  /** What the tool does. */
  description: string;
  /** JSON Schema 2020-12 of the arguments. */
  inputSchema: JsonSchema;
  /** JSON Schema 2020-12 of `structuredContent`. */
  outputSchema?: JsonSchema;
  /** Behaviour hints. */
  annotations?: ToolAnnotations;
  /** Extra metadata, such as probe support. */
  _meta?: Record<string, unknown>;
}

interface RegisteredTool {
  def: ToolDefinition;
  listed: ListedTool;
  schema: StandardSchema | undefined;
  output: StandardSchema | undefined;
  probe: boolean;
}

/**
 * Options for {@linkcode ToolServer.serve}.
 *
 * @example Serve HTTP when asked to, else stdio
 * ```ts ignore
 * import { createServer, type ServeOptions } from "@forge/toolkit";
 *
 * const server = createServer({ name: "notes", version: "1" });
 * const options: ServeOptions = Deno.env.get("NOTES_HTTP") === "1"
 *   ? { http: { port: 8080 } }
 *   : { maxMessageBytes: 1024 * 1024 };
 * await server.serve(options);
 * ```
 */
export interface ServeOptions extends StdioTransportOptions {
  /**
   * Serve Streamable HTTP instead of stdio, at `http://127.0.0.1:8000/mcp`
   * unless the options say otherwise.
   *
   * @default {undefined}
   */
  http?: ServeHttpOptions;
  /**
   * Exit the process with status 0 once the server has shut down.
   *
   * @default {true}
   */
  exit?: boolean;
  /**
   * Stop on SIGINT and SIGTERM (where the platform has them).
   *
   * @default {true}
   */
  handleSignals?: boolean;
}

/** What the SDK hands a `tools/call` handler, as far as the toolkit uses it. */
/** The `meta` of a call without `_meta`: one frozen object, not one per call. */
const NO_META: Readonly<Record<string, unknown>> = Object.freeze({});

type CallExtra = RequestExtra;

/** One connected session and what it subscribed to. */
interface Connection {
  session: Session;
  subscriptions: Set<string>;
  /** The least severe level the client wants; everything until it says. */
  logLevel: LogLevel | undefined;
}

interface CompleteParams {
  ref: { type: string; name?: string; uri?: string };
  argument: { name: string; value: string };
  context?: { arguments?: Record<string, string> };
}

/**
 * An MCP server built from tool definitions. Make one with
 * {@linkcode createServer}.
 *
 * @example
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
 * // await server.serve();
 * ```
 */
export class ToolServer {
  /** The name and version the server reports. */
  readonly info: ServerInfo;
  #options: ServerOptions;
  #tools = new Map<string, RegisteredTool>();
  #resources = new ResourceRegistry();
  #prompts = new PromptRegistry();
  #listed: ListedTool[] | undefined;
  #connections = new Set<Connection>();
  /** Calls whose handlers are running, until each has its answer. */
  #inFlight = new Set<LazyAbort>();
  /** Resolves the wait for `#inFlight` to empty, during shutdown. */
  #idle: (() => void) | undefined;
  #draining = false;
  #closed: Promise<void> | undefined;
  /** Resolved by `close()`, which `serve()` waits for beside its transport's end. */
  #stopRequested = Promise.withResolvers<void>();

  /**
   * Use {@linkcode createServer} instead.
   *
   * @param info The server's name and version.
   * @param options Server-wide settings.
   */
  constructor(info: ServerInfo, options: ServerOptions = {}) {
    if (typeof info?.name !== "string" || typeof info?.version !== "string") {
      throw new TypeError(
        "Cannot create server: expected info { name: string, version: string }",
      );
    }
    if (options.graceMs !== undefined && !(options.graceMs >= 0)) {
      throw new RangeError(
        `Cannot create server: graceMs must be >= 0, got ${options.graceMs}`,
      );
    }
    this.info = { ...info };
    this.#options = { ...options };
  }

  /**
   * Registers a tool. Names, schemas and time limits are checked here, so a
   * mistake is a `TypeError` or `RangeError` at start-up, not at the first call.
   *
   * @example
   * ```ts
   * import { createServer, text } from "@forge/toolkit";
   *
   * createServer({ name: "s", version: "1" }).tool({
   *   name: "ping",
   *   description: "Answers pong",
   *   handler: () => text("pong"),
   * });
   * ```
   */
  tool<S extends ToolSchema | undefined>(def: ToolDefinition<S>): this {
    if (typeof def !== "object" || def === null) {
      throw new TypeError(
        `Cannot register tool: expected a definition object, got ${
          jsonType(def)
        }`,
      );
    }
    const name = def.name;
    if (typeof name !== "string" || !TOOL_NAME.test(name)) {
      throw new TypeError(
        `Cannot register tool: invalid name ${
          JSON.stringify(name)
        }: expected 1-128 characters of A-Z a-z 0-9 . _ -`,
      );
    }
    if (this.#tools.has(name)) {
      throw new TypeError(`Cannot register tool: duplicate name: ${name}`);
    }
    if (typeof def.description !== "string") {
      throw new TypeError(
        `Cannot register tool ${name}: expected a description string`,
      );
    }
    if (typeof def.handler !== "function") {
      throw new TypeError(
        `Cannot register tool ${name}: expected a handler function`,
      );
    }
    if (def.timeoutMs !== undefined && !(def.timeoutMs > 0)) {
      throw new RangeError(
        `Cannot register tool ${name}: timeoutMs must be > 0, got ${def.timeoutMs}`,
      );
    }
    const probe = answersProbes(def.handler);
    if (def._meta?.[META_SUPPORTS_PERMISSION_PATTERNS] === true && !probe) {
      // A probe must never act: only handlers made by wrapProbe guarantee that.
      throw new TypeError(
        `Cannot register tool ${name}: _meta claims probe support but the handler does not answer probes (use registerPatternTool or wrapProbe)`,
      );
    }
    let inputSchema: JsonSchema;
    let outputSchema: JsonSchema | undefined;
    try {
      inputSchema = def.input === undefined
        ? {
          $schema: "https://json-schema.org/draft/2020-12/schema",
          type: "object",
          properties: {},
        }
        : toJsonSchema(def.input);
      outputSchema = def.output === undefined
        ? undefined
        : toJsonSchema(def.output, { io: "output" });
    } catch (cause) {
      throw new TypeError(
        `Cannot register tool ${name}: ${(cause as Error).message}`,
        { cause },
      );
    }
    const listed: ListedTool = {
      name,
      description: def.description,
      inputSchema,
    };
    if (def.title !== undefined) listed.title = def.title;
    if (outputSchema !== undefined) listed.outputSchema = outputSchema;
    if (def.annotations !== undefined) {
      listed.annotations = { ...def.annotations };
    }
    if (def._meta !== undefined || probe) {
      listed._meta = {
        ...def._meta,
        ...(probe ? { [META_SUPPORTS_PERMISSION_PATTERNS]: true } : {}),
      };
    }
    this.#tools.set(name, {
      def: def as ToolDefinition,
      listed,
      schema: isStandardSchema(def.input) ? def.input : undefined,
      output: isStandardSchema(def.output) ? def.output : undefined,
      probe,
    });
    this.#listed = undefined;
    this.#notify("notifications/tools/list_changed");
    return this;
  }

  /**
   * The tools as `tools/list` shows them, computed once per change.
   *
   * @example
   * ```ts
   * import { createServer, text } from "@forge/toolkit";
   *
   * const server = createServer({ name: "s", version: "1" });
   * server.tool({ name: "ping", description: "pong", handler: () => text("pong") });
   * server.listTools()[0].inputSchema.type; // "object"
   * ```
   */
  listTools(): ListedTool[] {
    this.#listed ??= [...this.#tools.values()].map((t) => t.listed);
    return this.#listed;
  }

  /**
   * Serves one MCP session over `transport` until it closes. `serve()` and
   * the test client use this; call it yourself for a custom transport.
   *
   * @example
   * ```ts ignore
   * await server.connect(myTransport);
   * ```
   */
  async connect(transport: McpTransport): Promise<void> {
    const capabilities: Record<string, Record<string, unknown>> = {
      tools: { listChanged: true },
    };
    if (this.#resources.size > 0) {
      capabilities.resources = { subscribe: true, listChanged: true };
    }
    if (this.#prompts.size > 0) capabilities.prompts = { listChanged: true };
    if (this.#resources.completes || this.#prompts.completes) {
      capabilities.completions = {};
    }
    const handlers = new Map<string, RequestHandler>();
    const handle = (method: string, handler: RequestHandler) =>
      handlers.set(method, handler);
    const session = new Session(transport, {
      info: { ...this.info },
      capabilities: { ...capabilities, logging: {} },
      handlers,
      ...(this.#options.instructions === undefined
        ? {}
        : { instructions: this.#options.instructions }),
      onclose: () => this.#connections.delete(connection),
    });
    const connection: Connection = {
      session,
      subscriptions: new Set(),
      logLevel: undefined,
    };
    const context = (extra: CallExtra): RequestContext => ({
      signal: extra.signal,
      sessionId: extra.sessionId,
    });
    handle("logging/setLevel", (params) => {
      const level = stringParam(
        params,
        "level",
        "logging/setLevel",
      ) as LogLevel;
      if (!LEVELS.includes(level)) {
        throw new ProtocolError(
          RPC_ERROR.INVALID_PARAMS,
          `Invalid log level: expected one of ${LEVELS.join(", ")}, got ${
            JSON.stringify(level)
          }`,
        );
      }
      connection.logLevel = level;
      return {};
    });
    handle("tools/list", () => ({ tools: this.listTools() }));
    handle("tools/call", (params, extra) => {
      const name = stringParam(params, "name", "tools/call");
      const args = params.arguments;
      if (
        args !== undefined &&
        !isRecord(args)
      ) {
        // The model chose the arguments: a domain error it can correct.
        return error(
          `Invalid arguments for tool ${
            JSON.stringify(name)
          }:\narguments: expected object, got ${jsonType(args)}`,
        );
      }
      return this.#call(connection, name, params, extra);
    });
    if (capabilities.resources) {
      handle("resources/list", async (_, extra) => ({
        resources: await this.#resources.list(context(extra)),
      }));
      handle(
        "resources/templates/list",
        () => ({ resourceTemplates: this.#resources.templates() }),
      );
      handle("resources/read", async (params, extra) => ({
        contents: await this.#resources.read(
          stringParam(params, "uri", "resources/read"),
          context(extra),
        ),
      }));
      handle("resources/subscribe", (params) => {
        connection.subscriptions.add(
          stringParam(params, "uri", "resources/subscribe"),
        );
        return {};
      });
      handle("resources/unsubscribe", (params) => {
        connection.subscriptions.delete(
          stringParam(params, "uri", "resources/unsubscribe"),
        );
        return {};
      });
    }
    if (capabilities.prompts) {
      handle("prompts/list", () => ({ prompts: this.#prompts.list() }));
      handle("prompts/get", async (params, extra) => {
        const args = params.arguments;
        if (
          args !== undefined &&
          !isRecord(args)
        ) {
          throw new ProtocolError(
            RPC_ERROR.INVALID_PARAMS,
            `Invalid params for prompts/get: arguments: expected object, got ${
              jsonType(args)
            }`,
          );
        }
        return await this.#prompts.get(
          stringParam(params, "name", "prompts/get"),
          args as Record<string, unknown> | undefined,
          context(extra),
        );
      });
    }
    if (capabilities.completions) {
      handle(
        "completion/complete",
        (params) => this.#complete(checkCompleteParams(params)),
      );
    }
    this.#connections.add(connection);
    await session.start();
  }

  async #complete(
    params: CompleteParams,
  ): Promise<{ completion: Record<string, unknown> }> {
    const { ref, argument } = params;
    const completer = ref.type === "ref/prompt"
      ? this.#prompts.completer(ref.name ?? "", argument.name)
      : ref.type === "ref/resource"
      ? this.#resources.completer(ref.uri ?? "", argument.name)
      : null;
    if (completer === null) {
      throw new ProtocolError(
        RPC_ERROR.INVALID_PARAMS,
        `Cannot complete: unknown ${
          ref.type === "ref/prompt" ? "prompt" : "reference"
        }: ${JSON.stringify(ref.name ?? ref.uri)}`,
      );
    }
    const values = completer === undefined
      ? []
      : await completer(argument.value, {
        arguments: params.context?.arguments ?? {},
      });
    // MCP caps one completion answer at 100 values.
    return {
      completion: {
        values: values.slice(0, 100),
        total: values.length,
        hasMore: values.length > 100,
      },
    };
  }

  /**
   * Registers a fixed resource, listed by `resources/list` and read by
   * `resources/read`.
   *
   * @example
   * ```ts
   * import { createServer } from "@forge/toolkit";
   *
   * createServer({ name: "s", version: "1" }).resource({
   *   uri: "config://app",
   *   name: "app-config",
   *   mimeType: "application/json",
   *   read: (uri) => ({ uri: uri.href, text: "{}" }),
   * });
   * ```
   */
  resource(def: ResourceDefinition): this {
    this.#resources.add(def);
    this.#notify("notifications/resources/list_changed");
    return this;
  }

  /**
   * Registers a family of resources named by a URI template, with optional
   * listing and completion of its variables.
   *
   * @example
   * ```ts
   * import { createServer } from "@forge/toolkit";
   *
   * createServer({ name: "s", version: "1" }).resourceTemplate({
   *   uriTemplate: "notes://{name}",
   *   name: "note",
   *   complete: { name: (typed) => ["todo", "ideas"].filter((n) => n.startsWith(typed)) },
   *   read: (uri, { name }) => ({ uri: uri.href, text: `# ${name}` }),
   * });
   * ```
   */
  resourceTemplate(def: ResourceTemplateDefinition): this {
    this.#resources.addTemplate(def);
    this.#notify("notifications/resources/list_changed");
    return this;
  }

  /**
   * Registers a prompt, listed by `prompts/list` and rendered by `prompts/get`.
   *
   * @example
   * ```ts
   * import { createServer } from "@forge/toolkit";
   *
   * createServer({ name: "s", version: "1" }).prompt({
   *   name: "review",
   *   arguments: [{ name: "code", required: true }],
   *   handler: ({ code }) => ({
   *     messages: [{ role: "user", content: { type: "text", text: `Review:\n${code}` } }],
   *   }),
   * });
   * ```
   */
  prompt(def: PromptDefinition): this {
    this.#prompts.add(def);
    this.#notify("notifications/prompts/list_changed");
    return this;
  }

  /**
   * Tells every session subscribed to `uri` that the resource changed.
   *
   * @example
   * ```ts ignore
   * await server.resourceUpdated("config://app");
   * ```
   */
  async resourceUpdated(uri: string): Promise<void> {
    await Promise.all(
      [...this.#connections].filter((c) => c.subscriptions.has(uri)).map((c) =>
        c.session.notify("notifications/resources/updated", { uri }).catch(
          () => {},
        )
      ),
    );
  }

  #notify(method: string): void {
    for (const connection of this.#connections) {
      connection.session.notify(method).catch(() => {});
    }
  }

  /**
   * Runs a call. A call whose arguments decode synchronously and whose
   * handler returns a plain result is answered without a promise, so nothing
   * of it outlives the turn it arrived in (less garbage, and far less that
   * survives into the old generation under load).
   */
  #call(
    connection: Connection,
    name: string,
    params: Record<string, unknown>,
    extra: CallExtra,
  ): CallToolResult | Promise<CallToolResult> {
    const tool = this.#tools.get(name);
    if (tool === undefined) {
      throw new ProtocolError(
        RPC_ERROR.INVALID_PARAMS,
        `Unknown tool: ${JSON.stringify(name)}`,
      );
    }
    const meta = (params._meta ?? NO_META) as Record<string, unknown>;
    const probeFlag = meta[META_PERMISSION_PATTERNS];
    if (probeFlag !== undefined && probeFlag !== false) {
      if (probeFlag !== true) {
        throw new ProtocolError(
          RPC_ERROR.INVALID_PARAMS,
          `Invalid probe: _meta["${META_PERMISSION_PATTERNS}"] must be true, got ${
            JSON.stringify(probeFlag)
          }`,
        );
      }
      if (!tool.probe) {
        throw new ProtocolError(
          RPC_ERROR.INVALID_PARAMS,
          `Tool ${name} does not support permission-pattern probes: it has no side effects to approve`,
        );
      }
    }
    if (this.#draining) {
      throw new ProtocolError(
        RPC_ERROR.INTERNAL_ERROR,
        "Server is shutting down: the call was not started",
      );
    }
    const decoded = decode(
      params.arguments,
      tool.listed.inputSchema,
      tool.schema,
    );
    return decoded instanceof Promise
      ? decoded.then((settled) =>
        this.#invoke(connection, tool, meta, settled, extra)
      )
      : this.#invoke(connection, tool, meta, decoded, extra);
  }

  #invoke(
    connection: Connection,
    tool: RegisteredTool,
    meta: Record<string, unknown>,
    decoded: DecodeResult<unknown>,
    extra: CallExtra,
  ): CallToolResult | Promise<CallToolResult> {
    if (!decoded.ok) {
      return error(formatProblems(decoded.problems, { tool: tool.def.name }));
    }
    const abort = new LazyAbort();
    // A cancelled call gets no answer; aborting settles it so it stops counting as in flight.
    extra.onabort((reason) => abort.abort(reason));
    const ctx = new CallContext(connection, tool.def.name, meta, abort, extra);
    let outcome: unknown;
    try {
      outcome = tool.def.handler(decoded.value, ctx);
    } catch (cause) {
      return this.#failed(tool, abort, cause);
    }
    // Answered synchronously: never in flight, nothing to time out.
    if (!isThenable(outcome)) return this.#checked(tool, abort, outcome);
    return this.#settle(tool, abort, outcome);
  }

  async #settle(
    tool: RegisteredTool,
    abort: LazyAbort,
    run: PromiseLike<unknown>,
  ): Promise<CallToolResult> {
    const timeoutMs = tool.def.timeoutMs ?? this.#options.timeoutMs;
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => {
      abort.abort(
        new ProtocolError(
          RPC_ERROR.REQUEST_TIMEOUT,
          `Tool ${tool.def.name} timed out after ${timeoutMs} ms`,
        ),
      );
    }, timeoutMs);
    this.#inFlight.add(abort);
    try {
      // The answer does not wait for a handler that ignores its aborted signal.
      const result = await abort.race(Promise.resolve(run));
      return await this.#checked(tool, abort, result);
    } catch (cause) {
      return this.#failed(tool, abort, cause);
    } finally {
      clearTimeout(timer);
      this.#inFlight.delete(abort);
      if (this.#inFlight.size === 0) this.#idle?.();
    }
  }

  /** The handler's result once checked, or what its failure turns into. */
  #checked(
    tool: RegisteredTool,
    abort: LazyAbort,
    result: unknown,
  ): CallToolResult | Promise<CallToolResult> {
    let checked: CallToolResult | Promise<CallToolResult>;
    try {
      checked = checkResult(tool, result);
    } catch (cause) {
      return this.#failed(tool, abort, cause);
    }
    return checked instanceof Promise
      ? checked.catch((cause) => this.#failed(tool, abort, cause))
      : checked;
  }

  /**
   * What a failed call answers: a `ToolError` is the model's to read (a
   * domain error); anything else is the server's fault (-32603), logged to
   * stderr with its stack.
   */
  #failed(
    tool: RegisteredTool,
    abort: LazyAbort,
    cause: unknown,
  ): CallToolResult {
    if (cause instanceof ToolError) return error(cause.message);
    if (cause instanceof ProtocolError) throw cause;
    // A cancelled call gets no answer; nothing to report.
    if (abort.aborted && !(abort.reason instanceof ProtocolError)) {
      throw cause;
    }
    const message = cause instanceof Error ? cause.message : String(cause);
    console.error(`Tool ${tool.def.name} failed:`, cause);
    throw new ProtocolError(
      RPC_ERROR.INTERNAL_ERROR,
      `Tool ${tool.def.name} failed: ${message}`,
    );
  }

  /**
   * Serves over stdio (or Streamable HTTP with `options.http`): JSON-RPC on stdout only (`console.log` and friends are
   * sent to stderr while serving), until stdin ends or SIGINT/SIGTERM arrive.
   * Then it takes no new calls, lets in-flight calls finish for `graceMs`,
   * aborts the rest, writes every answer, and exits with status 0.
   *
   * @example
   * ```ts ignore
   * await server.serve();
   * ```
   */
  async serve(options: ServeOptions = {}): Promise<void> {
    if (this.#closed !== undefined) {
      // Closed before it served: nothing to open, nothing to wait for.
      await this.#closed;
      if (options.exit !== false) Deno.exit(0);
      return;
    }
    if (options.http !== undefined) {
      // Loaded on demand so that stdio servers start without the HTTP stack.
      const { serveHttp } = await import("../http/http.ts");
      const http = serveHttp(this, {
        ...options.http,
        handleSignals: options.http.handleSignals ?? options.handleSignals,
      });
      // close() from user code stops the listener too.
      await Promise.race([http.finished, this.#stopRequested.promise]);
      await http.shutdown();
      if (options.exit !== false) Deno.exit(0);
      return;
    }
    const restoreConsole = redirectConsole();
    const transport = new StdioTransport(options);
    const stop = () => this.close();
    const signals: Deno.Signal[] =
      options.handleSignals === false || Deno.build.os === "windows"
        ? []
        : ["SIGINT", "SIGTERM"];
    for (const signal of signals) Deno.addSignalListener(signal, stop);
    const ended = new Promise<void>((resolve) => {
      transport.onend = () => resolve(this.close());
    });
    try {
      await this.connect(transport);
      await Promise.race([ended, this.#stopRequested.promise]);
      await this.close();
    } finally {
      for (const signal of signals) Deno.removeSignalListener(signal, stop);
      restoreConsole();
    }
    if (options.exit !== false) Deno.exit(0);
  }

  /**
   * Shuts down: no new calls, in-flight calls get `graceMs` to finish, then
   * their signals abort; every answer is written and every session closed.
   *
   * @example
   * ```ts ignore
   * await server.close();
   * ```
   */
  close(): Promise<void> {
    this.#closed ??= this.#shutdown();
    this.#stopRequested.resolve();
    return this.#closed;
  }

  #whenIdle(): Promise<void> {
    if (this.#inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => (this.#idle = resolve));
  }

  async #shutdown(): Promise<void> {
    this.#draining = true;
    if (this.#inFlight.size > 0) {
      // Only then a timer: the usual EOF has nothing in flight, and Deno's
      // first timer costs about 9 ms.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const graceOver = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.#options.graceMs ?? 5000);
      });
      await Promise.race([this.#whenIdle(), graceOver]);
      clearTimeout(timer);
      for (const abort of this.#inFlight) {
        abort.abort(
          new ProtocolError(
            RPC_ERROR.INTERNAL_ERROR,
            "Server shut down before the tool finished",
          ),
        );
      }
      // Aborted calls answer at once (their answers race the abort).
      await this.#whenIdle();
    }
    // An answer reaches the transport a few microtask turns after its call
    // settles; closing the session then flushes what was sent.
    for (let turn = 0; turn < ANSWER_TURNS; turn++) await undefined;
    await Promise.all(
      [...this.#connections].map((c) => c.session.close().catch(() => {})),
    );
  }
}

function stringParam(
  params: Record<string, unknown>,
  key: string,
  method: string,
): string {
  const value = params[key];
  if (typeof value !== "string") {
    throw new ProtocolError(
      RPC_ERROR.INVALID_PARAMS,
      `Invalid params for ${method}: ${key}: expected string, got ${
        value === undefined ? "nothing" : jsonType(value)
      }`,
    );
  }
  return value;
}

function checkCompleteParams(params: Record<string, unknown>): CompleteParams {
  const ref = params.ref as Record<string, unknown> | undefined;
  const argument = params.argument as Record<string, unknown> | undefined;
  if (
    typeof ref?.type !== "string" || typeof argument !== "object" ||
    argument === null
  ) {
    throw new ProtocolError(
      RPC_ERROR.INVALID_PARAMS,
      "Invalid params for completion/complete: expected { ref: { type, name | uri }, argument: { name, value } }",
    );
  }
  stringParam(argument, "name", "completion/complete argument");
  stringParam(argument, "value", "completion/complete argument");
  return params as unknown as CompleteParams;
}

const LEVELS: readonly LogLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

// Internal state of a call context, under a symbol so that the context can be
// the prototype of the probe wrapper's `{ ...ctx, access }` object and its
// methods still find it (private fields would not be reachable from there).
const CALL = Symbol("call");

interface CallState {
  connection: Connection;
  abort: LazyAbort;
  extra: CallExtra;
  logger: ToolLogger | undefined;
}

/** Logs a call's message to stderr and, at the client's level, as a notification. */
function sendLog(
  call: CallState,
  toolName: string,
  level: LogLevel,
  message: string,
  data: unknown,
): void {
  console.error(
    `[${toolName}] ${level}: ${message}`,
    ...(data === undefined ? [] : [data]),
  );
  const wanted = call.connection.logLevel;
  if (wanted !== undefined && LEVELS.indexOf(level) < LEVELS.indexOf(wanted)) {
    return;
  }
  call.extra.sendNotification({
    method: "notifications/message",
    params: {
      level,
      logger: toolName,
      data: data === undefined ? message : { message, data },
    },
  }).catch(() => {});
}

/**
 * The `ctx` a handler receives. One object per call with its methods on the
 * prototype: a call allocates no closures, and the signal and the logger are
 * made only when a handler uses them.
 */
class CallContext implements ToolContext {
  readonly meta: Readonly<Record<string, unknown>>;
  readonly requestId: string | number;
  readonly sessionId: string | undefined;
  readonly toolName: string;
  readonly [CALL]: CallState;

  constructor(
    connection: Connection,
    toolName: string,
    meta: Record<string, unknown>,
    abort: LazyAbort,
    extra: CallExtra,
  ) {
    this.meta = meta;
    this.requestId = extra.requestId;
    this.sessionId = extra.sessionId;
    this.toolName = toolName;
    this[CALL] = { connection, abort, extra, logger: undefined };
  }

  get signal(): AbortSignal {
    return this[CALL].abort.signal;
  }

  get log(): ToolLogger {
    const call = this[CALL];
    if (call.logger !== undefined) return call.logger;
    const toolName = this.toolName;
    const log = (level: LogLevel, message: string, data?: unknown) =>
      sendLog(call, toolName, level, message, data);
    call.logger = {
      debug: (m, d) => log("debug", m, d),
      info: (m, d) => log("info", m, d),
      warning: (m, d) => log("warning", m, d),
      error: (m, d) => log("error", m, d),
      log,
    };
    return call.logger;
  }

  async progress(
    done: number,
    total?: number,
    message?: string,
  ): Promise<void> {
    const progressToken = this.meta.progressToken;
    if (progressToken === undefined) return;
    await this[CALL].extra.sendNotification({
      method: "notifications/progress",
      params: {
        progressToken,
        progress: done,
        ...(total === undefined ? {} : { total }),
        ...(message === undefined ? {} : { message }),
      },
    });
  }

  async sample(params: SamplingParams): Promise<SamplingResult> {
    return await this[CALL].extra.sendRequest({
      method: "sampling/createMessage",
      params,
    }) as SamplingResult;
  }

  async elicit(params: ElicitationParams): Promise<ElicitationResult> {
    return await this[CALL].extra.sendRequest({
      method: "elicitation/create",
      params,
    }) as ElicitationResult;
  }
}

/**
 * Sends everything the console would print on stdout to stderr, so that
 * stdout carries JSON-RPC only; returns the undo. Deno prints `count`,
 * `table`, `dir` and the timers without going through `console.log`, so
 * those are replaced too.
 */
function redirectConsole(): () => void {
  const c = console as unknown as Record<string, unknown>;
  const saved = Object.fromEntries(STDOUT_METHODS.map((m) => [m, c[m]]));
  const print = console.error.bind(console);
  const counts = new Map<string, number>();
  const timers = new Map<string, number>();
  const elapsed = (label: string) => {
    const start = timers.get(label);
    return start === undefined
      ? `Timer "${label}" does not exist`
      : `${label}: ${(performance.now() - start).toFixed(3)}ms`;
  };
  Object.assign(console, {
    log: print,
    info: print,
    debug: print,
    dirxml: print,
    dir: (item: unknown, options?: Deno.InspectOptions) =>
      print(Deno.inspect(item, options)),
    table: (data: unknown) => print(Deno.inspect(data)),
    count: (label = "default") => {
      const n = (counts.get(label) ?? 0) + 1;
      counts.set(label, n);
      print(`${label}: ${n}`);
    },
    countReset: (label = "default") => counts.delete(label),
    time: (label = "default") => timers.set(label, performance.now()),
    timeLog: (label = "default", ...data: unknown[]) =>
      print(elapsed(label), ...data),
    timeEnd: (label = "default") => {
      print(elapsed(label));
      timers.delete(label);
    },
  });
  return () => Object.assign(console, saved);
}

const STDOUT_METHODS = [
  "log",
  "info",
  "debug",
  "dirxml",
  "dir",
  "table",
  "count",
  "countReset",
  "time",
  "timeLog",
  "timeEnd",
] as const;

/**
 * Creates a server. Register tools with `server.tool(def)` (or
 * `registerPatternTool` for side-effecting tools), then `await server.serve()`.
 *
 * @example
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
 * ```
 */
export function createServer(
  info: ServerInfo,
  options: ServerOptions = {},
): ToolServer {
  return new ToolServer(info, options);
}

/** Checks a handler's result: its shape, and its `structuredContent` against the output schema. */
function checkResult(
  tool: RegisteredTool,
  result: unknown,
): CallToolResult | Promise<CallToolResult> {
  if (
    typeof result !== "object" || result === null ||
    !Array.isArray((result as CallToolResult).content)
  ) {
    throw new Error(
      `invalid result: expected { content: [...] } (use text(), json() or error()), got ${
        jsonType(result)
      }`,
    );
  }
  const call = result as CallToolResult;
  if (tool.listed.outputSchema === undefined || call.isError) return call;
  if (call.structuredContent === undefined) {
    throw new Error(
      "invalid result: the tool declares an output schema but returned no structuredContent",
    );
  }
  if (tool.output === undefined) return call;
  const checked = tool.output["~standard"].validate(call.structuredContent);
  return checked instanceof Promise
    ? checked.then((settled) => matchesOutput(call, settled))
    : matchesOutput(call, checked);
}

function matchesOutput(
  call: CallToolResult,
  checked: { readonly issues?: readonly { readonly message: string }[] },
): CallToolResult {
  if (checked.issues !== undefined) {
    const problems = checked.issues.map((i) => i.message).join("; ");
    throw new Error(
      `invalid result: structuredContent does not match the output schema: ${problems}`,
    );
  }
  return call;
}
