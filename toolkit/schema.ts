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

/**
 * One problem reported by a Standard Schema validator. Validators may add
 * fields (zod adds `code`, `expected`, …); they are read where present.
 *
 * @example Turn issues into one line each
 * ```ts
 * import type { SchemaIssue } from "@forge/toolkit/args";
 *
 * function describe(issue: SchemaIssue): string {
 *   const path = (issue.path ?? []).map((k) => typeof k === "object" ? k.key : k);
 *   return `${path.join(".") || "value"}: ${issue.message}`;
 * }
 * describe({ message: "expected string", path: ["user", "name"] });
 * // "user.name: expected string"
 * ```
 */
export interface SchemaIssue {
  /** What is wrong, in the validator's words. */
  readonly message: string;
  /** Where, as keys and indexes from the root. */
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>;
}

/**
 * The outcome of a Standard Schema validation.
 *
 * @example Validate a config value with a tool's schema
 * ```ts
 * import type { SchemaResult } from "@forge/toolkit/args";
 * import { z } from "zod";
 *
 * const port = z.number().int();
 * const result: SchemaResult<number> = await port["~standard"].validate(8080);
 * if (result.issues) throw new TypeError(result.issues[0].message);
 * console.log(result.value); // 8080
 * ```
 */
export type SchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<SchemaIssue> };

/**
 * The structural part of the Standard Schema interface (which zod 4,
 * Valibot and ArkType implement) that the toolkit uses.
 *
 * @example Accept any validator in a helper of your own
 * ```ts
 * import type { StandardSchema } from "@forge/toolkit/args";
 * import { z } from "zod";
 *
 * async function parse<T>(schema: StandardSchema<unknown, T>, value: unknown): Promise<T> {
 *   const result = await schema["~standard"].validate(value);
 *   if (result.issues) throw new TypeError(`Invalid value: ${result.issues[0].message}`);
 *   return result.value;
 * }
 * const limit = await parse(z.number().int(), 10); // 10
 * ```
 */
export interface StandardSchema<Input = unknown, Output = Input> {
  /** The Standard Schema properties. */
  readonly "~standard": {
    /** The interface version, 1. */
    readonly version: 1;
    /** The library that made the schema. */
    readonly vendor: string;
    /** Validates a value. */
    readonly validate: (
      value: unknown,
    ) => SchemaResult<Output> | Promise<SchemaResult<Output>>;
    /** Type carriers for inference; never present at run time. */
    readonly types?:
      | { readonly input: Input; readonly output: Output }
      | undefined;
    /** Standard JSON Schema: present on zod 4.2 and later. */
    readonly jsonSchema?: {
      /** The JSON Schema of what the schema accepts. */
      readonly input: (options: { readonly target: string }) => JsonSchema;
      /** The JSON Schema of what the schema produces. */
      readonly output: (options: { readonly target: string }) => JsonSchema;
    };
  };
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
    const describer = schema["~standard"].jsonSchema;
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
