// How a problem is worded: a schema issue (zod's codes) turned into
// `path: expected X, got Y`, shared by the JSON Schema checker and the readers.

import { jsonType } from "../_util/json_type.ts";
import { editDistance } from "../_util/nearest_names.ts";
import type { ArgumentProblem } from "./argument_error.ts";
import type { JsonSchema, SchemaIssue } from "../schema.ts";

/** A path into the arguments: keys and array indexes. */
export type Path = ReadonlyArray<PropertyKey>;

/** Renders a path as `a.b[0]["odd key"]`; the empty path is `arguments`. */
export function formatPath(path: Path): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_$][\w$-]*$/.test(key)) {
      out += out === "" ? key : `.${key}`;
    } else out += `[${JSON.stringify(String(key))}]`;
  }
  return out === "" ? "arguments" : out;
}

function valueAt(root: unknown, path: Path): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** A short rendering of a value the model sent: strings quoted and cut. */
export function shown(value: unknown): string {
  if (typeof value === "string") {
    return JSON.stringify(
      value.length > 60 ? `${value.slice(0, 57)}...` : value,
    );
  }
  if (
    typeof value === "number" || typeof value === "boolean" || value === null
  ) {
    return String(value);
  }
  return jsonType(value);
}

/** "got number", or the value itself where the type alone would not help. */
export function got(value: unknown, expected?: string): string {
  const type = jsonType(value);
  if (expected === "integer" && type === "number") return `got ${value}`;
  return `got ${type === expected ? shown(value) : type}`;
}

function issuePath(issue: SchemaIssue): PropertyKey[] {
  return (issue.path ?? []).map((k) =>
    typeof k === "object" && k !== null ? k.key : k
  );
}

/** The problems one schema issue stands for, worded for a model. */
export function describeIssue(
  schemaIssue: SchemaIssue,
  input: unknown,
  json: JsonSchema,
): ArgumentProblem[] {
  // zod's issues carry `code`, `expected`, `values`, … beyond the standard fields.
  const issue = schemaIssue as SchemaIssue & Record<string, unknown>;
  const path = issuePath(issue);
  const value = valueAt(input, path);
  const at = (
    message: string,
  ): ArgumentProblem[] => [{ path: formatPath(path), message }];
  switch (issue.code) {
    case "invalid_type": {
      if (value === undefined) return at("required");
      const expected = issue.expected === "int"
        ? "integer"
        : String(issue.expected);
      return at(`expected ${expected}, ${got(value, expected)}`);
    }
    case "invalid_value": {
      if (value === undefined) return at("required");
      const values = Array.isArray(issue.values) ? issue.values : [];
      const wanted = values.length === 1
        ? JSON.stringify(values[0])
        : `one of ${values.map((v) => JSON.stringify(v)).join(", ")}`;
      return at(`expected ${wanted}, got ${shown(value)}`);
    }
    case "too_small":
    case "too_big":
      return at(`${describeBound(issue)}, got ${measure(value)}`);
    case "not_multiple_of":
      return at(`expected a multiple of ${issue.divisor}, got ${shown(value)}`);
    case "invalid_format":
      return at(
        issue.format === "regex" && typeof issue.pattern === "string"
          ? `expected a string matching ${issue.pattern}, got ${shown(value)}`
          : `expected ${issue.format} format, got ${shown(value)}`,
      );
    case "invalid_union":
      return at(describeUnion(issue, value));
    case "unrecognized_keys": {
      const keys = Array.isArray(issue.keys) ? issue.keys.map(String) : [];
      // The keys the schema declares, not those the call happened to send.
      const known = declaredKeys(json, path) ??
        knownKeys(valueAt(input, path), keys);
      return keys.map((key) => ({
        path: formatPath([...path, key]),
        message: unknownMessage(key, known),
      }));
    }
    default: {
      // Another library's wording of a mismatch ("Expected string but
      // received 1", "expected string, received number") says got, as ours.
      const message = issue.message.replace(/^Invalid input: /, "")
        .replace(
          /\b(expected .+?)(?:,| but) received\b/i,
          (_, expected: string) => `${expected}, got`,
        );
      return at(message.charAt(0).toLowerCase() + message.slice(1));
    }
  }
}

/** What a union wanted: its discriminators, its types, or only "a form". */
function describeUnion(
  issue: Record<string, unknown>,
  value: unknown,
): string {
  if (value === undefined) return "required";
  if (Array.isArray(issue.options)) {
    const wanted = issue.options.map((v) => JSON.stringify(v)).join(", ");
    return `expected one of ${wanted}, got ${shown(value)}`;
  }
  // When every branch only wanted another type, name those types.
  const branches = Array.isArray(issue.errors) ? issue.errors : [];
  const types = branches.map((branch) => {
    const only = Array.isArray(branch) && branch.length === 1
      ? branch[0]
      : undefined;
    return only?.code === "invalid_type" && only.path?.length === 0
      ? (only.expected === "int" ? "integer" : String(only.expected))
      : undefined;
  });
  if (types.length > 0 && types.every((t) => t !== undefined)) {
    return `expected ${[...new Set(types)].join(" or ")}, got ${
      jsonType(value)
    }`;
  }
  return `does not match any of the allowed forms, got ${shown(value)}`;
}

function describeBound(issue: Record<string, unknown>): string {
  const small = issue.code === "too_small";
  const limit = small ? issue.minimum : issue.maximum;
  const inclusive = issue.inclusive !== false;
  const unit = issue.origin === "string"
    ? " characters"
    : issue.origin === "array" || issue.origin === "set"
    ? " items"
    : "";
  if (unit !== "") {
    return `expected ${small ? "at least" : "at most"} ${limit}${unit}`;
  }
  const op = small ? (inclusive ? ">=" : ">") : (inclusive ? "<=" : "<");
  return `expected a number ${op} ${limit}`;
}

/** The count a length bound compares; the unit is already in "expected". */
function measure(value: unknown): string {
  if (typeof value === "string") return String(codePointLength(value));
  if (Array.isArray(value)) return String(value.length);
  return shown(value);
}

/** The property names the JSON Schema declares at `path`, if it says. */
function declaredKeys(json: JsonSchema, path: Path): string[] | undefined {
  let schema: JsonSchema | undefined = json;
  for (const key of path) {
    schema = typeof key === "number"
      ? schemaObject(schema?.items)
      : schemaObject(schemaObject(schema?.properties)?.[key as string]);
  }
  const properties = schemaObject(schema?.properties);
  return properties === undefined ? undefined : Object.keys(properties);
}

function knownKeys(object: unknown, unknown: string[]): string[] {
  if (object === null || typeof object !== "object") return [];
  return Object.keys(object).filter((k) => !unknown.includes(k));
}

/** What to say about an undeclared key: a near miss, or what is accepted. */
export function unknownMessage(key: string, known: readonly string[]): string {
  const near = closest(key, known);
  if (near !== undefined) {
    return `unknown argument; did you mean ${JSON.stringify(near)}?`;
  }
  if (known.length === 0) {
    return "unknown argument; this takes no arguments here";
  }
  return `unknown argument; expected one of ${
    known.map((k) => JSON.stringify(k)).join(", ")
  }`;
}

/** The known key nearest to `key` by edit distance, if it is near enough. */
function closest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = candidate.toLowerCase() === key.toLowerCase()
      ? 0
      : editDistance(key, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return bestDistance <= Math.max(1, Math.floor(key.length / 3))
    ? best
    : undefined;
}

/** `value` as a (sub)schema when it is an object, else `undefined`. */
export function schemaObject(value: unknown): JsonSchema | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as JsonSchema
    : undefined;
}

/** Characters as JSON Schema counts them (code points), without copying the string. */
export function codePointLength(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}
