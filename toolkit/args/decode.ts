/**
 * Argument decoding: a call's arguments checked against the tool's schema,
 * every problem reported at once as an `ArgumentProblem`.
 *
 * @module
 */

import { jsonType } from "../_util/json_type.ts";
import type { ArgumentProblem } from "./argument_error.ts";
import { describeIssue } from "./_issues.ts";
import { checkJsonSchema, checkUnknownKeys } from "./_json_schema_check.ts";
import type { JsonSchema, SchemaResult, StandardSchema } from "../schema.ts";

/**
 * The outcome of {@linkcode decodeArguments}.
 *
 * @example Answer a domain error or go on with the typed value
 * ```ts
 * import { decodeArguments, type DecodeResult, formatProblems } from "@forge/toolkit/args";
 * import { error, text } from "@forge/toolkit";
 *
 * const input = { type: "object", properties: { id: { type: "integer" } }, required: ["id"] };
 * const decoded: DecodeResult<{ id: number }> = await decodeArguments({ id: "7" }, input);
 * const answer = decoded.ok
 *   ? text(`Item ${decoded.value.id}`)
 *   : error(formatProblems(decoded.problems));
 * // answer: isError, text "Invalid arguments:\nid: expected integer, got string"
 * ```
 */
export type DecodeResult<T> =
  | { ok: true; value: T }
  | { ok: false; problems: ArgumentProblem[] };

/**
 * Checks a call's arguments: with the tool's Standard Schema (zod) when it has
 * one, else against its raw JSON Schema. Unknown keys are refused, with a
 * "did you mean" for a near miss: with zod, every key an object does not
 * declare (a plain `z.object` would otherwise drop it silently) unless it is
 * a `z.looseObject`; with a raw schema, as JSON Schema says, only where
 * `additionalProperties` is `false`.
 *
 * `json` is the tool's input JSON Schema as {@linkcode toJsonSchema} made it.
 *
 * @example
 * ```ts
 * import { decodeArguments, toJsonSchema } from "@forge/toolkit/args";
 * import { z } from "zod";
 *
 * const input = z.object({ name: z.string() });
 * const result = await decodeArguments({ nme: "Ada" }, toJsonSchema(input), { schema: input });
 * // { ok: false, problems: [{ path: "name", message: "required" },
 * //   { path: "nme", message: 'unknown argument; did you mean "name"?' }] }
 * ```
 */
export async function decodeArguments<T = Record<string, unknown>>(
  args: unknown,
  json: JsonSchema,
  options: DecodeOptions<T> = {},
): Promise<DecodeResult<T>> {
  return await decode(args, json, options.schema);
}

/**
 * {@linkcode decodeArguments} without a promise when the validator answers
 * synchronously (zod does): the server's per-call path.
 *
 * @example Decode on the hot path, awaiting only when the validator is async
 * ```ts
 * import { decode } from "./decode.ts";
 *
 * const json = { type: "object", properties: { n: { type: "integer" } } };
 * const result = await decode({ n: 1 }, json, undefined); // { ok: true, value: { n: 1 } }
 * ```
 */
export function decode<T>(
  args: unknown,
  json: JsonSchema,
  schema: StandardSchema<unknown, T> | undefined,
): DecodeResult<T> | Promise<DecodeResult<T>> {
  const input = args === undefined ? {} : args;
  const problems: ArgumentProblem[] = [];
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return {
      ok: false,
      problems: [{
        path: "arguments",
        message: `expected object, got ${jsonType(input)}`,
      }],
    };
  }
  if (schema === undefined) {
    checkJsonSchema(json, input, [], problems);
    return problems.length === 0
      ? { ok: true, value: input as T }
      : { ok: false, problems };
  }
  const result = schema["~standard"].validate(input);
  return result instanceof Promise
    ? result.then((settled) => decoded(settled, input, json, problems))
    : decoded(result, input, json, problems);
}

function decoded<T>(
  result: SchemaResult<T>,
  input: object,
  json: JsonSchema,
  problems: ArgumentProblem[],
): DecodeResult<T> {
  if (result.issues !== undefined) {
    for (const issue of result.issues) {
      problems.push(...describeIssue(issue, input, json));
    }
  }
  checkUnknownKeys(json, input, [], problems);
  if (problems.length > 0) return { ok: false, problems: dedupe(problems) };
  return { ok: true, value: (result as { value: T }).value };
}

/**
 * Options for {@linkcode decodeArguments}.
 *
 * @example Decode with a zod schema for a typed value
 * ```ts
 * import { decodeArguments, type DecodeOptions, toJsonSchema } from "@forge/toolkit/args";
 * import { z } from "zod";
 *
 * const input = z.object({ limit: z.number().int().default(10) });
 * const options: DecodeOptions<z.infer<typeof input>> = { schema: input };
 * const decoded = await decodeArguments({}, toJsonSchema(input), options);
 * if (decoded.ok) console.log(decoded.value.limit); // 10
 * ```
 */
export interface DecodeOptions<T> {
  /**
   * The validator that produces the handler's typed value; without one the
   * raw JSON Schema is checked and the arguments pass through as they came.
   *
   * @default {undefined}
   */
  schema?: StandardSchema<unknown, T>;
}

function dedupe(problems: ArgumentProblem[]): ArgumentProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path}\0${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
