// A JSON Schema check for tools declared with a raw schema, and the
// unknown-key check zod's plain objects need; wording comes from _issues.ts.

import { jsonType } from "../_util/json_type.ts";
import type { ArgumentProblem } from "./argument_error.ts";
import {
  codePointLength,
  formatPath,
  got,
  schemaObject,
  shown,
  unknownMessage,
} from "./_issues.ts";
import type { JsonSchema } from "../schema.ts";

/**
 * Refuses keys a zod object schema does not declare. zod's plain `z.object`
 * strips unknown keys silently, and its JSON Schema then has no
 * `additionalProperties`; `z.looseObject` says `additionalProperties: {}`.
 */
export function checkUnknownKeys(
  schema: JsonSchema,
  value: unknown,
  path: PropertyKey[],
  problems: ArgumentProblem[],
): void {
  // On every call's path: the common case (known keys, scalar values)
  // allocates nothing; `path` is extended in place and restored.
  if (value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    const items = schemaObject(schema.items);
    if (items === undefined) return;
    for (let i = 0; i < value.length; i++) {
      if (value[i] === null || typeof value[i] !== "object") continue;
      path.push(i);
      checkUnknownKeys(items, value[i], path, problems);
      path.pop();
    }
    return;
  }
  const properties = schemaObject(schema.properties);
  if (properties === undefined) return;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const childSchema = schemaObject(properties[key]);
    const child = (value as Record<string, unknown>)[key];
    if (childSchema !== undefined) {
      if (child === null || typeof child !== "object") continue;
      path.push(key);
      checkUnknownKeys(childSchema, child, path, problems);
      path.pop();
    } else if (schema.additionalProperties === undefined) {
      // `false` is reported by the validator itself; anything else allows the key.
      problems.push({
        path: formatPath([...path, key]),
        message: unknownMessage(key, Object.keys(properties)),
      });
    }
  }
}

const JSON_TYPES = [
  "string",
  "number",
  "integer",
  "boolean",
  "object",
  "array",
  "null",
];

function hasType(value: unknown, type: string): boolean {
  if (type === "integer") return Number.isInteger(value);
  return jsonType(value) === type;
}

/**
 * A JSON Schema check for tools declared with a raw schema: type, enum,
 * const, properties, required, additionalProperties, items, the numeric,
 * length and count bounds, pattern, anyOf, oneOf and allOf. Other keywords
 * (`$ref`, `format`, …) are not checked.
 */
export function checkJsonSchema(
  schema: JsonSchema,
  value: unknown,
  path: PropertyKey[],
  problems: ArgumentProblem[],
): void {
  const at = (message: string) =>
    problems.push({ path: formatPath(path), message });
  const types = Array.isArray(schema.type)
    ? schema.type.map(String)
    : typeof schema.type === "string"
    ? [schema.type]
    : undefined;
  if (types !== undefined && !types.some((t) => hasType(value, t))) {
    const expected = types.filter((t) => JSON_TYPES.includes(t)).join(" or ");
    at(
      `expected ${expected}, ${
        got(value, types.length === 1 ? types[0] : undefined)
      }`,
    );
    return;
  }
  if (
    Array.isArray(schema.enum) && !schema.enum.some((v) => deepEqual(v, value))
  ) {
    const values = schema.enum.map((v) => JSON.stringify(v)).join(", ");
    at(`expected one of ${values}, got ${shown(value)}`);
    return;
  }
  if ("const" in schema && !deepEqual(schema.const, value)) {
    at(`expected ${JSON.stringify(schema.const)}, got ${shown(value)}`);
    return;
  }
  for (const keyword of ["anyOf", "oneOf"] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches)) continue;
    const passing = branches.filter((branch) => {
      const sub: ArgumentProblem[] = [];
      const branchSchema = schemaObject(branch);
      if (branchSchema !== undefined) {
        checkJsonSchema(branchSchema, value, path, sub);
      }
      return sub.length === 0;
    }).length;
    if (passing === 0) {
      at(`does not match any of the allowed forms, got ${shown(value)}`);
    } else if (keyword === "oneOf" && passing > 1) {
      at(`matches ${passing} of the forms where exactly one is allowed`);
    }
  }
  if (Array.isArray(schema.allOf)) {
    for (const branch of schema.allOf) {
      const branchSchema = schemaObject(branch);
      if (branchSchema !== undefined) {
        checkJsonSchema(branchSchema, value, path, problems);
      }
    }
  }
  if (typeof value === "number") checkNumber(schema, value, at);
  else if (typeof value === "string") checkString(schema, value, at);
  else if (Array.isArray(value)) {
    checkCount(schema, value.length, "items", at);
    const items = schemaObject(schema.items);
    if (items !== undefined) {
      value.forEach((item, i) =>
        checkJsonSchema(items, item, [...path, i], problems)
      );
    }
  } else if (value !== null && typeof value === "object") {
    checkObject(schema, value as Record<string, unknown>, path, problems);
  }
}

function checkNumber(
  schema: JsonSchema,
  value: number,
  at: (m: string) => void,
): void {
  const bounds: [string, string, (limit: number) => boolean][] = [
    ["minimum", ">=", (l) => value >= l],
    ["exclusiveMinimum", ">", (l) => value > l],
    ["maximum", "<=", (l) => value <= l],
    ["exclusiveMaximum", "<", (l) => value < l],
  ];
  for (const [keyword, op, ok] of bounds) {
    const limit = schema[keyword];
    if (typeof limit === "number" && !ok(limit)) {
      at(`expected a number ${op} ${limit}, got ${value}`);
    }
  }
  if (
    typeof schema.multipleOf === "number" &&
    !Number.isInteger(value / schema.multipleOf)
  ) {
    at(`expected a multiple of ${schema.multipleOf}, got ${value}`);
  }
}

function checkString(
  schema: JsonSchema,
  value: string,
  at: (m: string) => void,
): void {
  if (schema.minLength !== undefined || schema.maxLength !== undefined) {
    checkCount(schema, codePointLength(value), "characters", at, "Length");
  }
  if (typeof schema.pattern === "string") {
    const pattern = compiledPattern(schema, schema.pattern);
    // An invalid pattern in the tool's own schema is not the caller's fault.
    if (pattern !== null && !pattern.test(value)) {
      at(`expected a string matching /${schema.pattern}/, got ${shown(value)}`);
    }
  }
}

/** A tool's schema lives as long as the tool, so its `pattern` is compiled once. */
const PATTERNS = new WeakMap<JsonSchema, RegExp | null>();

function compiledPattern(schema: JsonSchema, source: string): RegExp | null {
  let pattern = PATTERNS.get(schema);
  if (pattern === undefined) {
    try {
      pattern = new RegExp(source, "u");
    } catch {
      pattern = null;
    }
    PATTERNS.set(schema, pattern);
  }
  return pattern;
}

function checkCount(
  schema: JsonSchema,
  count: number,
  unit: string,
  at: (m: string) => void,
  suffix = "Items",
): void {
  const min = schema[`min${suffix}`];
  const max = schema[`max${suffix}`];
  if (typeof min === "number" && count < min) {
    at(`expected at least ${min} ${unit}, got ${count}`);
  }
  if (typeof max === "number" && count > max) {
    at(`expected at most ${max} ${unit}, got ${count}`);
  }
}

function checkObject(
  schema: JsonSchema,
  value: Record<string, unknown>,
  path: PropertyKey[],
  problems: ArgumentProblem[],
): void {
  const properties = schemaObject(schema.properties) ?? {};
  if (Array.isArray(schema.required)) {
    for (const key of schema.required) {
      if (typeof key === "string" && value[key] === undefined) {
        problems.push({
          path: formatPath([...path, key]),
          message: "required",
        });
      }
    }
  }
  const additional = schema.additionalProperties;
  const known = Object.keys(properties);
  for (const [key, child] of Object.entries(value)) {
    const childSchema = schemaObject(properties[key]);
    if (childSchema !== undefined) {
      checkJsonSchema(childSchema, child, [...path, key], problems);
    } else if (additional === false) {
      problems.push({
        path: formatPath([...path, key]),
        message: unknownMessage(key, known),
      });
    } else if (schemaObject(additional) !== undefined) {
      checkJsonSchema(
        additional as JsonSchema,
        child,
        [...path, key],
        problems,
      );
    }
  }
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (
    typeof a !== "object" || typeof b !== "object" || a === null || b === null
  ) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length &&
    ka.every((k) =>
      deepEqual(
        (a as Record<string, unknown>)[k],
        (b as Record<string, unknown>)[k],
      )
    );
}
