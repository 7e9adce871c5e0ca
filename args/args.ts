/**
 * Argument decoding with messages a model can act on: one line per problem,
 * naming the argument, what was expected and what came.
 *
 * ```text
 * Invalid arguments for tool "greet":
 * name: expected string, got number
 * mode: expected one of "a", "b", got "c"
 * nme: unknown argument; did you mean "name"?
 * ```
 *
 * @module
 */

import { ToolError } from "../result/result.ts";
import { jsonType } from "../_util/json_type.ts";
import type {
  JsonSchema,
  SchemaIssue,
  SchemaResult,
  StandardSchema,
} from "./schema.ts";

/**
 * One problem with a tool's arguments.
 *
 * @example Collect every problem before answering
 * ```ts
 * import { ArgumentError, type ArgumentProblem, type RawArguments } from "@forge/toolkit/args";
 *
 * function checkRange(args: RawArguments): void {
 *   const problems: ArgumentProblem[] = [];
 *   for (const name of ["from", "to"]) {
 *     const message = `expected number, got ${typeof args[name]}`;
 *     if (typeof args[name] !== "number") problems.push({ path: name, message });
 *   }
 *   if (problems.length > 0) throw new ArgumentError(problems, { tool: "range" });
 * }
 * ```
 */
export interface ArgumentProblem {
  /** Where: `name`, `items[2].id`, or `arguments` for the whole object. */
  path: string;
  /** What was expected and what came: `expected string, got number`. */
  message: string;
}

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
 * A domain error for invalid arguments. It is a {@linkcode ToolError}, so a
 * handler that throws it (or lets an accessor throw it) answers `isError`
 * with one line per problem.
 *
 * @example
 * ```ts
 * import { ArgumentError } from "@forge/toolkit/args";
 *
 * function checkLimit(limit: number): void {
 *   if (!Number.isInteger(limit)) {
 *     throw new ArgumentError([{ path: "limit", message: `expected integer, got ${limit}` }]);
 *   }
 * }
 * ```
 */
export class ArgumentError extends ToolError {
  /** Every problem found, in order. */
  readonly problems: readonly ArgumentProblem[];

  /**
   * Creates the error; its message lists the problems.
   *
   * @param problems What was wrong, one entry per argument.
   * @param options `tool` names the tool in the first line.
   */
  constructor(
    problems: readonly ArgumentProblem[],
    options: ArgumentErrorOptions = {},
  ) {
    super(formatProblems(problems, options));
    this.name = "ArgumentError";
    this.problems = problems;
  }
}

/**
 * Options for {@linkcode ArgumentError} and {@linkcode formatProblems}.
 *
 * @example Name the tool in the heading
 * ```ts
 * import { type ArgumentErrorOptions, formatProblems } from "@forge/toolkit/args";
 *
 * const options: ArgumentErrorOptions = { tool: "search" };
 * formatProblems([{ path: "query", message: "required" }], options);
 * // 'Invalid arguments for tool "search":\nquery: required'
 * ```
 */
export interface ArgumentErrorOptions {
  /**
   * The tool whose arguments were wrong, named in the heading.
   *
   * @default {undefined}
   */
  tool?: string;
}

/**
 * Renders problems as the text of an `isError` result: a heading, then one
 * `path: message` line per problem.
 *
 * @example
 * ```ts
 * import { formatProblems } from "@forge/toolkit/args";
 *
 * formatProblems([{ path: "name", message: "required" }], { tool: "greet" });
 * // 'Invalid arguments for tool "greet":\nname: required'
 * ```
 */
export function formatProblems(
  problems: readonly ArgumentProblem[],
  options: ArgumentErrorOptions = {},
): string {
  const heading = options.tool === undefined
    ? "Invalid arguments:"
    : `Invalid arguments for tool ${JSON.stringify(options.tool)}:`;
  return [heading, ...problems.map((p) => `${p.path}: ${p.message}`)].join(
    "\n",
  );
}

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

type Path = ReadonlyArray<PropertyKey>;

function dedupe(problems: ArgumentProblem[]): ArgumentProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path}\0${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

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
function shown(value: unknown): string {
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
function got(value: unknown, expected?: string): string {
  const type = jsonType(value);
  if (expected === "integer" && type === "number") return `got ${value}`;
  return `got ${type === expected ? shown(value) : type}`;
}

function issuePath(issue: SchemaIssue): PropertyKey[] {
  return (issue.path ?? []).map((k) =>
    typeof k === "object" && k !== null ? k.key : k
  );
}

function describeIssue(
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
      const message = issue.message.replace(/^Invalid input: /, "");
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

function unknownMessage(key: string, known: readonly string[]): string {
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

/** Edit distance where swapping two neighbouring letters counts as one edit. */
function editDistance(a: string, b: string): number {
  const rows = Array.from(
    { length: a.length + 1 },
    (_, i) =>
      Array.from(
        { length: b.length + 1 },
        (_, j) => (i === 0 ? j : j === 0 ? i : 0),
      ),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(
        rows[i - 1][j] + 1,
        rows[i][j - 1] + 1,
        rows[i - 1][j - 1] + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
      }
    }
  }
  return rows[a.length][b.length];
}

function schemaObject(value: unknown): JsonSchema | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as JsonSchema
    : undefined;
}

/**
 * Refuses keys a zod object schema does not declare. zod's plain `z.object`
 * strips unknown keys silently, and its JSON Schema then has no
 * `additionalProperties`; `z.looseObject` says `additionalProperties: {}`.
 */
function checkUnknownKeys(
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
function checkJsonSchema(
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

/** Characters as JSON Schema counts them (code points), without copying the string. */
function codePointLength(text: string): number {
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

/**
 * Raw arguments as a handler without a schema receives them.
 *
 * @example Read arguments with the accessors
 * ```ts
 * import { text } from "@forge/toolkit";
 * import { optionalInt, type RawArguments, requireString } from "@forge/toolkit/args";
 *
 * function search(args: RawArguments) {
 *   const query = requireString(args, "query");
 *   const limit = optionalInt(args, "limit", { min: 1, max: 100 }) ?? 10;
 *   return text(`Top ${limit} results for ${query}`);
 * }
 * ```
 */
export type RawArguments = Readonly<Record<string, unknown>>;

/**
 * Options for the numeric accessors.
 *
 * @example Keep a page size within bounds
 * ```ts
 * import { type NumberOptions, requireInt } from "@forge/toolkit/args";
 *
 * const PAGE_SIZE: NumberOptions = { min: 1, max: 500 };
 * const size = requireInt({ size: 50 }, "size", PAGE_SIZE); // 50
 * // requireInt({ size: 0 }, "size", PAGE_SIZE) throws an ArgumentError
 * ```
 */
export interface NumberOptions {
  /**
   * The smallest value accepted.
   *
   * @default {-Infinity}
   */
  min?: number;
  /**
   * The largest value accepted.
   *
   * @default {Infinity}
   */
  max?: number;
}

function fail(name: string, message: string): never {
  throw new ArgumentError([{ path: name, message }]);
}

function present(args: RawArguments, name: string): unknown {
  const value = args?.[name];
  if (value === undefined) fail(name, "required");
  return value;
}

/**
 * Reads a required string argument, or throws an {@linkcode ArgumentError}
 * (a domain error) saying what came instead.
 *
 * @example
 * ```ts
 * import { requireString } from "@forge/toolkit/args";
 *
 * const path = requireString({ path: "a.txt" }, "path"); // "a.txt"
 * ```
 */
export function requireString(args: RawArguments, name: string): string {
  const value = present(args, name);
  return typeof value === "string"
    ? value
    : fail(name, `expected string, ${got(value)}`);
}

/**
 * Reads an optional string argument: `undefined` (or `fallback`) when absent.
 *
 * @example
 * ```ts
 * import { optionalString } from "@forge/toolkit/args";
 *
 * const mode = optionalString({}, "mode", "fast"); // "fast"
 * ```
 */
export function optionalString(
  args: RawArguments,
  name: string,
): string | undefined;
/** Reads an optional string argument, `fallback` when absent. */
export function optionalString(
  args: RawArguments,
  name: string,
  fallback: string,
): string;
export function optionalString(
  args: RawArguments,
  name: string,
  fallback?: string,
): string | undefined {
  return args?.[name] === undefined ? fallback : requireString(args, name);
}

/**
 * Reads a required finite number within optional bounds.
 *
 * @example
 * ```ts
 * import { requireNumber } from "@forge/toolkit/args";
 *
 * const ratio = requireNumber({ ratio: 0.5 }, "ratio", { min: 0, max: 1 }); // 0.5
 * ```
 */
export function requireNumber(
  args: RawArguments,
  name: string,
  options: NumberOptions = {},
): number {
  const value = present(args, name);
  if (typeof value !== "number") fail(name, `expected number, ${got(value)}`);
  if (!Number.isFinite(value)) {
    fail(name, `expected a finite number, got ${value}`);
  }
  return inBounds(name, value, options);
}

/**
 * Reads an optional finite number: `undefined` when absent.
 *
 * @example
 * ```ts
 * import { optionalNumber } from "@forge/toolkit/args";
 *
 * const ratio = optionalNumber({}, "ratio"); // undefined
 * ```
 */
export function optionalNumber(
  args: RawArguments,
  name: string,
  options: NumberOptions = {},
): number | undefined {
  return args?.[name] === undefined
    ? undefined
    : requireNumber(args, name, options);
}

/**
 * Reads a required integer within optional bounds.
 *
 * @example
 * ```ts
 * import { requireInt } from "@forge/toolkit/args";
 *
 * const limit = requireInt({ limit: 10 }, "limit", { min: 1, max: 100 }); // 10
 * ```
 */
export function requireInt(
  args: RawArguments,
  name: string,
  options: NumberOptions = {},
): number {
  const value = present(args, name);
  if (!Number.isSafeInteger(value)) {
    fail(name, `expected integer, ${got(value, "integer")}`);
  }
  return inBounds(name, value as number, options);
}

/**
 * Reads an optional integer: `undefined` when absent.
 *
 * @example
 * ```ts
 * import { optionalInt } from "@forge/toolkit/args";
 *
 * const limit = optionalInt({ limit: 5 }, "limit", { max: 100 }); // 5
 * ```
 */
export function optionalInt(
  args: RawArguments,
  name: string,
  options: NumberOptions = {},
): number | undefined {
  return args?.[name] === undefined
    ? undefined
    : requireInt(args, name, options);
}

/**
 * Reads a required boolean argument.
 *
 * @example
 * ```ts
 * import { requireBoolean } from "@forge/toolkit/args";
 *
 * const force = requireBoolean({ force: true }, "force"); // true
 * ```
 */
export function requireBoolean(args: RawArguments, name: string): boolean {
  const value = present(args, name);
  return typeof value === "boolean"
    ? value
    : fail(name, `expected boolean, ${got(value)}`);
}

/**
 * Reads an optional boolean argument: `undefined` (or `fallback`) when absent.
 *
 * @example
 * ```ts
 * import { optionalBoolean } from "@forge/toolkit/args";
 *
 * const force = optionalBoolean({}, "force", false); // false
 * ```
 */
export function optionalBoolean(
  args: RawArguments,
  name: string,
): boolean | undefined;
/** Reads an optional boolean argument, `fallback` when absent. */
export function optionalBoolean(
  args: RawArguments,
  name: string,
  fallback: boolean,
): boolean;
export function optionalBoolean(
  args: RawArguments,
  name: string,
  fallback?: boolean,
): boolean | undefined {
  return args?.[name] === undefined ? fallback : requireBoolean(args, name);
}

/**
 * Reads a required array of strings.
 *
 * @example
 * ```ts
 * import { requireStringArray } from "@forge/toolkit/args";
 *
 * const tags = requireStringArray({ tags: ["a", "b"] }, "tags"); // ["a", "b"]
 * ```
 */
export function requireStringArray(args: RawArguments, name: string): string[] {
  const value = present(args, name);
  if (!Array.isArray(value)) fail(name, `expected array, ${got(value)}`);
  const problems = value.flatMap((item, i) =>
    typeof item === "string"
      ? []
      : [{ path: `${name}[${i}]`, message: `expected string, ${got(item)}` }]
  );
  if (problems.length > 0) throw new ArgumentError(problems);
  return value as string[];
}

/**
 * Reads a required string that must be one of `values`.
 *
 * @example
 * ```ts
 * import { requireEnum } from "@forge/toolkit/args";
 *
 * const mode = requireEnum({ mode: "a" }, "mode", ["a", "b"] as const); // "a"
 * ```
 */
export function requireEnum<const V extends string>(
  args: RawArguments,
  name: string,
  values: readonly V[],
): V {
  const value = present(args, name);
  if (
    typeof value === "string" && (values as readonly string[]).includes(value)
  ) return value as V;
  const wanted = values.map((v) => JSON.stringify(v)).join(", ");
  return fail(name, `expected one of ${wanted}, got ${shown(value)}`);
}

function inBounds(name: string, value: number, options: NumberOptions): number {
  if (options.min !== undefined && value < options.min) {
    fail(name, `expected a number >= ${options.min}, got ${value}`);
  }
  if (options.max !== undefined && value > options.max) {
    fail(name, `expected a number <= ${options.max}, got ${value}`);
  }
  return value;
}
