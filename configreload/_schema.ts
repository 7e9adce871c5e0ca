// Internal: runs a Standard Schema and turns its issues into plain
// `{ path, message }` records with string and number keys.

import type { ConfigIssue } from "./config_error.ts";
import type {
  StandardSchema,
  StandardSchemaIssue,
} from "../validate/standard_schema.ts";

/** The schema's verdict on a value. */
export type SchemaOutcome<T> =
  | { ok: true; value: T }
  | { ok: false; issues: ConfigIssue[]; cause?: unknown };

/** Throws `TypeError` when `schema` is not a Standard Schema. */
export function checkSchema(schema: unknown, context: string): void {
  const props = (schema as { "~standard"?: { validate?: unknown } } | null)
    ?.["~standard"];
  if (
    schema === null ||
    typeof schema !== "object" && typeof schema !== "function" ||
    typeof props?.validate !== "function"
  ) {
    throw new TypeError(
      `${context}: options.schema must be a Standard Schema such as a zod 4 schema (an object with "~standard".validate), got ${
        schema === null ? "null" : typeof schema
      }`,
    );
  }
}

/** Validates `value`; a schema that throws counts as refusing it. */
export async function runSchema<T>(
  schema: StandardSchema<unknown, T>,
  value: unknown,
): Promise<SchemaOutcome<T>> {
  try {
    const result = await schema["~standard"].validate(value);
    if (result.issues === undefined) return { ok: true, value: result.value };
    return { ok: false, issues: result.issues.map(toConfigIssue) };
  } catch (error) {
    return {
      ok: false,
      issues: [{
        path: [],
        message: `The schema threw: ${
          error instanceof Error ? error.message : String(error)
        }`,
      }],
      cause: error,
    };
  }
}

function toConfigIssue(issue: StandardSchemaIssue): ConfigIssue {
  const path = (issue.path ?? []).map((segment) => {
    const key = typeof segment === "object" && segment !== null
      ? segment.key
      : segment;
    return typeof key === "number" ? key : String(key);
  });
  return { path, message: String(issue.message) };
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `server.port`, `items[0].name`, `["a b"]`; empty for the root. */
export function issuePath(path: readonly (string | number)[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (IDENTIFIER.test(key)) out += out === "" ? key : `.${key}`;
    else out += `[${JSON.stringify(key)}]`;
  }
  return out;
}
