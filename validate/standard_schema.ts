// The Standard Schema v1 interface (standardschema.dev), written out so that
// no validator library's types appear in public signatures. zod 4, Valibot
// and ArkType schemas all match it. This is the package's one definition,
// in the bottom layer so that configreload/ (config schemas) and toolkit/
// (tool schemas, which also read the Standard JSON Schema extension
// `~standard.jsonSchema` on their own) share it.

/**
 * What a Standard Schema `validate` returns: the typed value, or issues.
 *
 * @example Narrowing a result
 * ```ts
 * import type { StandardSchemaResult } from "@forge/toolkit/validate";
 *
 * function valueOf(result: StandardSchemaResult<number>): number | undefined {
 *   return result.issues === undefined ? result.value : undefined;
 * }
 * console.log(valueOf({ value: 1 }));
 * ```
 */
export type StandardSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: readonly StandardSchemaIssue[] };

/**
 * One issue reported by a Standard Schema validator.
 *
 * @example An issue as zod 4 reports it
 * ```ts
 * import type { StandardSchemaIssue } from "@forge/toolkit/validate";
 *
 * const issue: StandardSchemaIssue = {
 *   message: "Invalid input: expected number, received string",
 *   path: ["port"],
 * };
 * console.log(issue.message);
 * ```
 */
export interface StandardSchemaIssue {
  /** What is wrong. */
  readonly message: string;
  /** Where: keys, or `{ key }` segments, from the root to the value. */
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[];
}

/**
 * Any validator that implements Standard Schema v1, such as a zod 4 schema:
 * `Input` is what it accepts, `Output` what it produces (for a config, the
 * type of a valid config; `watchConfig()` infers it from the schema you
 * pass).
 *
 * @example A hand-written schema for a port number
 * ```ts
 * import type { StandardSchema } from "@forge/toolkit/validate";
 *
 * const port: StandardSchema<unknown, number> = {
 *   "~standard": {
 *     version: 1,
 *     vendor: "example",
 *     validate: (value) =>
 *       typeof value === "number" && Number.isInteger(value)
 *         ? { value }
 *         : { issues: [{ message: "expected a whole number" }] },
 *   },
 * };
 * console.log(port["~standard"].vendor);
 * ```
 */
export interface StandardSchema<Input = unknown, Output = Input> {
  /** The Standard Schema properties. */
  readonly "~standard": {
    /** The version of the standard; always 1. */
    readonly version: 1;
    /** The library that made the schema. */
    readonly vendor: string;
    /** Checks a value; may return a promise. */
    readonly validate: (
      value: unknown,
    ) => StandardSchemaResult<Output> | Promise<StandardSchemaResult<Output>>;
    /** Type carriers for inference; never present at run time. */
    readonly types?:
      | { readonly input: Input; readonly output: Output }
      | undefined;
  };
}
