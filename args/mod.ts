/**
 * Tool arguments: schemas and decoding with messages a model can act on.
 *
 * - {@linkcode toJsonSchema} turns a zod 4 schema (or a JSON Schema) into
 *   the JSON Schema 2020-12 that `tools/list` shows.
 * - {@linkcode decodeArguments} checks raw arguments against a schema and
 *   reports every problem at once, each naming the argument, what was
 *   expected and what came.
 * - `requireString()`, `optionalInt()` and the other readers take one
 *   argument from a raw record, for handlers that do without a schema.
 *
 * @example Decode arguments, or tell the model what was wrong
 * ```ts
 * import { decodeArguments, formatProblems, toJsonSchema } from "@forge/toolkit/args";
 * import { z } from "zod";
 * import assert from "node:assert/strict";
 *
 * const input = z.object({ path: z.string() });
 * const result = await decodeArguments({ path: 3 }, toJsonSchema(input), { schema: input });
 * assert.equal(result.ok, false);
 * if (!result.ok) assert.match(formatProblems(result.problems), /^path: /m);
 * ```
 *
 * @module
 */

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
} from "./args.ts";
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
} from "./schema.ts";
