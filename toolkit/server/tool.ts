/**
 * A tool as its author defines it and as `tools/list` shows it.
 *
 * @module
 */

import type { CallToolResult } from "../result/result.ts";
import type { Infer, JsonSchema, ToolSchema } from "../schema.ts";
import type { ToolContext } from "./context.ts";
import type { Icon } from "./icon.ts";
import type { TaskOptions } from "./tasks.ts";

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
 * server.tool({ name: "count", description: "Counts notes", annotations: READ_ONLY, handler: count });
 * server.tool({ name: "wipe", description: "Deletes notes", annotations: DESTRUCTIVE, handler: wipe });
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
  /** Icons a client may show for the tool; each `src` an `https:` URL or a `data:` URI. */
  icons?: Icon[];
  /** A time limit for one call, in milliseconds; past it the call answers a JSON-RPC error. */
  timeoutMs?: number;
  /** Extra metadata shown in `tools/list`. */
  _meta?: Record<string, unknown>;
  /**
   * Run calls as tasks (the `io.modelcontextprotocol/tasks` extension of
   * 2026-07-28): a client that declared the extension gets a task id at once
   * and polls `tasks/get` for the result, while the handler runs detached
   * from the request. `true` or `"optional"`: other 2026-07-28 clients get
   * the plain answer; `"required"`: they are refused (-32021); or
   * {@linkcode TaskOptions} for time to live, poll interval and when to
   * detach. `tools/list` shows it as `execution.taskSupport` to 2026-07-28
   * requests. A 2025-11-25 session is not offered the extension: it sees no
   * `taskSupport`, and every call runs to its end and answers inline.
   *
   * @default {undefined}
   */
  task?: boolean | "optional" | "required" | TaskOptions;
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
  /** Icons for the tool. */
  icons?: Icon[];
  /** Extra metadata, such as probe support. */
  _meta?: Record<string, unknown>;
  /** Whether calls can run as tasks: absent for a tool that never does. */
  execution?: { taskSupport: "optional" | "required" };
}
