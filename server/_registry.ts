// The tools of one server: definitions checked once at registration (so a
// mistake is a TypeError or RangeError at start-up, not at the first call),
// and the tools/list answer computed once per change.

import {
  isStandardSchema,
  type JsonSchema,
  type StandardSchema,
  toJsonSchema,
} from "../args/schema.ts";
import { jsonType } from "../_util/json_type.ts";
import { answersProbes } from "../patterns/_probe_mark.ts";
import { META_SUPPORTS_PERMISSION_PATTERNS } from "../patterns/probe_meta.ts";
import type { ListedTool, ToolDefinition } from "./tool.ts";

const TOOL_NAME = /^[A-Za-z0-9._-]{1,128}$/;

const EMPTY_INPUT: JsonSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {},
};

/** A tool as the call pipeline needs it. */
export interface RegisteredTool {
  def: ToolDefinition;
  listed: ListedTool;
  /** The input's Standard Schema (zod), when it has one; else the JSON Schema is checked. */
  schema: StandardSchema | undefined;
  /** The output's Standard Schema, for checking `structuredContent`. */
  output: StandardSchema | undefined;
}

/** The registered tools, by name. */
export class ToolRegistry {
  #tools = new Map<string, RegisteredTool>();
  #listed: ListedTool[] | undefined;

  /** Checks and adds a definition; throws on a mistake. */
  add(def: ToolDefinition): void {
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
    this.#tools.set(name, {
      def,
      listed: listing(def, probe),
      schema: isStandardSchema(def.input) ? def.input : undefined,
      output: isStandardSchema(def.output) ? def.output : undefined,
    });
    this.#listed = undefined;
  }

  /** The tool called `name`, if there is one. */
  get(name: string): RegisteredTool | undefined {
    return this.#tools.get(name);
  }

  /** The tools as `tools/list` shows them. */
  list(): ListedTool[] {
    this.#listed ??= [...this.#tools.values()].map((t) => t.listed);
    return this.#listed;
  }
}

/** The `tools/list` entry of a definition; its schemas converted once, here. */
function listing(def: ToolDefinition, probe: boolean): ListedTool {
  let inputSchema: JsonSchema;
  let outputSchema: JsonSchema | undefined;
  try {
    inputSchema = def.input === undefined
      ? structuredClone(EMPTY_INPUT)
      : toJsonSchema(def.input);
    outputSchema = def.output === undefined
      ? undefined
      : toJsonSchema(def.output, { io: "output" });
  } catch (cause) {
    throw new TypeError(
      `Cannot register tool ${def.name}: ${(cause as Error).message}`,
      { cause },
    );
  }
  const listed: ListedTool = {
    name: def.name,
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
  return listed;
}
