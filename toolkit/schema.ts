/**
 * Tool schemas: a zod 4 schema (or any Standard Schema that can describe
 * itself as JSON Schema), or a raw JSON Schema object, turned into the
 * MCP-ready JSON Schema 2020-12 with an object root that `tools/list` shows.
 *
 * The toolkit never imports zod itself: zod 4 implements the Standard Schema
 * and Standard JSON Schema interfaces, which is all this module relies on.
 *
 * @module
 */

import type { StandardSchema } from "../validate/standard_schema.ts";

// The package's one definition of the Standard Schema types is in
// validate/ (the bottom layer, which configreload/ uses too); the args
// modules name the issue and result types as they always have.
export type {
  StandardSchema,
  StandardSchemaIssue as SchemaIssue,
  StandardSchemaResult as SchemaResult,
} from "../validate/standard_schema.ts";

/**
 * The JSON Schema dialect MCP tools use.
 *
 * @example Declare the dialect of a hand-written input schema
 * ```ts
 * import { createServer, text } from "@forge/toolkit";
 * import { JSON_SCHEMA_2020_12 } from "@forge/toolkit/args";
 *
 * createServer({ name: "s", version: "1" }).tool({
 *   name: "echo",
 *   description: "Repeats the message",
 *   input: {
 *     $schema: JSON_SCHEMA_2020_12,
 *     type: "object",
 *     properties: { message: { type: "string" } },
 *   },
 *   handler: ({ message }) => text(String(message)),
 * });
 * ```
 */
export const JSON_SCHEMA_2020_12 =
  "https://json-schema.org/draft/2020-12/schema";

/**
 * A JSON Schema document, as plain data.
 *
 * @example A raw input schema without zod
 * ```ts
 * import type { JsonSchema } from "@forge/toolkit/args";
 *
 * const input: JsonSchema = {
 *   type: "object",
 *   properties: { path: { type: "string" }, limit: { type: "integer", minimum: 1 } },
 *   required: ["path"],
 *   additionalProperties: false,
 * };
 * ```
 */
export type JsonSchema = { [key: string]: unknown };

// The Standard JSON Schema extension (zod 4.2 and later): a schema that can
// describe itself. Read by toJsonSchema() only, so it is not part of the
// StandardSchema type, which is Standard Schema v1 exactly.
interface JsonSchemaDescriber {
  readonly input: (options: { readonly target: string }) => JsonSchema;
  readonly output: (options: { readonly target: string }) => JsonSchema;
}

/**
 * What a tool's `input` or `output` may be.
 *
 * @example Register read-only tools through a helper of your own
 * ```ts
 * import { createServer, type Infer, text, type ToolHandler } from "@forge/toolkit";
 * import type { ToolSchema } from "@forge/toolkit/args";
 * import type { ToolServer } from "@forge/toolkit";
 * import { z } from "zod";
 *
 * function readOnly<S extends ToolSchema>(
 *   server: ToolServer, name: string, input: S, handler: ToolHandler<Infer<S>>,
 * ): void {
 *   const annotations = { readOnlyHint: true };
 *   server.tool({ name, description: `Reads ${name}`, input, annotations, handler });
 * }
 * readOnly(createServer({ name: "s", version: "1" }), "size", z.object({ path: z.string() }),
 *   async ({ path }) => text(`${(await Deno.stat(path)).size} bytes`));
 * ```
 */
export type ToolSchema = StandardSchema | JsonSchema;

/**
 * The value a schema produces: its output type, or a plain record.
 *
 * @example Type a handler written apart from its tool
 * ```ts
 * import { type Infer, text, type ToolHandler } from "@forge/toolkit";
 * import { z } from "zod";
 *
 * const input = z.object({ name: z.string(), times: z.number().int().default(1) });
 * type GreetArgs = Infer<typeof input>; // { name: string; times: number }
 * const greet: ToolHandler<GreetArgs> = ({ name, times }) =>
 *   text(`Hello, ${name}! `.repeat(times));
 * ```
 */
export type Infer<S> = S extends StandardSchema<unknown, infer Output> ? Output
  : Record<string, unknown>;

/**
 * Whether a value is a Standard Schema validator rather than plain JSON Schema.
 *
 * @example
 * ```ts
 * import { isStandardSchema } from "@forge/toolkit/args";
 * import { z } from "zod";
 *
 * isStandardSchema(z.object({})); // true
 * isStandardSchema({ type: "object" }); // false
 * ```
 */
export function isStandardSchema(value: unknown): value is StandardSchema {
  return typeof value === "object" && value !== null && "~standard" in value &&
    typeof (value as StandardSchema)["~standard"]?.validate === "function";
}

/**
 * Options for {@linkcode toJsonSchema}.
 *
 * @example Describe what a schema produces
 * ```ts
 * import { toJsonSchema, type ToJsonSchemaOptions } from "@forge/toolkit/args";
 * import { z } from "zod";
 *
 * const output = z.object({ count: z.number().default(0) });
 * const options: ToJsonSchemaOptions = { io: "output" };
 * const schema = toJsonSchema(output, options); // `count` is required in the output
 * ```
 */
export interface ToJsonSchemaOptions {
  /**
   * Describe what the schema accepts (`"input"`, for `inputSchema`) or what
   * it produces (`"output"`, for `outputSchema`).
   *
   * @default {"input"}
   */
  io?: "input" | "output";
}

/**
 * Converts a tool schema to MCP-ready JSON Schema 2020-12 whose root is an
 * object, as `inputSchema` and `outputSchema` require. Throws a `TypeError`
 * naming what came when the schema cannot be described or its root is not an
 * object. Compute it once per tool, not per `tools/list`.
 *
 * @example
 * ```ts
 * import { toJsonSchema } from "@forge/toolkit/args";
 * import { z } from "zod";
 *
 * const schema = toJsonSchema(z.object({ name: z.string() }));
 * // { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object",
 * //   properties: { name: { type: "string" } }, required: ["name"] }
 * ```
 */
export function toJsonSchema(
  schema: ToolSchema,
  options: ToJsonSchemaOptions = {},
): JsonSchema {
  const io = options.io ?? "input";
  let json: JsonSchema;
  if (isStandardSchema(schema)) {
    const describer = (schema["~standard"] as {
      readonly jsonSchema?: JsonSchemaDescriber;
    }).jsonSchema;
    if (describer === undefined) {
      throw new TypeError(
        `Cannot describe the schema as JSON Schema: the ${
          schema["~standard"].vendor
        } schema does not implement Standard JSON Schema (use zod 4.2 or later, or pass a JSON Schema object)`,
      );
    }
    try {
      json = describer[io]({ target: "draft-2020-12" });
    } catch (cause) {
      // zod throws a plain Error for dates, transforms and the like.
      throw new TypeError(
        `Cannot describe the schema as JSON Schema: ${
          cause instanceof Error ? cause.message : String(cause)
        }`,
        { cause },
      );
    }
  } else if (
    typeof schema === "object" && schema !== null && !Array.isArray(schema)
  ) {
    json = structuredClone(schema);
  } else {
    throw new TypeError(
      `Cannot describe the schema as JSON Schema: expected a Standard Schema or a JSON Schema object, got ${
        schema === null
          ? "null"
          : Array.isArray(schema)
          ? "array"
          : typeof schema
      }`,
    );
  }
  const declared = json.$schema;
  if (declared !== undefined && declared !== JSON_SCHEMA_2020_12) {
    throw new TypeError(
      `Cannot use the schema: expected JSON Schema 2020-12, got $schema ${
        JSON.stringify(declared)
      }`,
    );
  }
  if (json.type !== "object") {
    throw new TypeError(
      `Cannot use the schema for a tool: expected an object at the root, got ${
        json.type === undefined
          ? "no type"
          : `type ${JSON.stringify(json.type)}`
      }`,
    );
  }
  return { $schema: JSON_SCHEMA_2020_12, ...json };
}
