/**
 * Tool arguments: schemas and decoding with messages a model can act on.
 *
 * - {@linkcode toJsonSchema} turns a zod 4 schema (or a JSON Schema) into
 *   the JSON Schema 2020-12 that `tools/list` shows.
 * - {@linkcode decodeArguments} checks raw arguments against a schema and
 *   reports every problem at once, each naming the argument, what was
 *   expected and what came.
 * - The readers take one argument from a raw record, for handlers that do
 *   without a schema: for each of `String`, `Number`, `Int`, `Boolean`,
 *   `StringArray` and `Enum`, `requireX()` throws an `ArgumentError` when
 *   the argument is absent and `optionalX()` gives `undefined`.
 *
 * Runs on Deno, Node (20 and later), Bun and Cloudflare Workers (workerd):
 * nothing here reaches for `Deno` at import or when called.
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
  formatProblems,
} from "./argument_error.ts";
export {
  decodeArguments,
  type DecodeOptions,
  type DecodeResult,
} from "./decode.ts";
export {
  type NumberOptions,
  optionalBoolean,
  optionalEnum,
  optionalInt,
  optionalNumber,
  optionalString,
  optionalStringArray,
  type RawArguments,
  requireBoolean,
  requireEnum,
  requireInt,
  requireNumber,
  requireString,
  requireStringArray,
} from "./readers.ts";
// StandardSchema, the interface these signatures take, is exported by
// `./validate`, its one home (validate/standard_schema.ts).
export {
  type Infer,
  isStandardSchema,
  JSON_SCHEMA_2020_12,
  type JsonSchema,
  toJsonSchema,
  type ToJsonSchemaOptions,
  type ToolSchema,
} from "../schema.ts";
