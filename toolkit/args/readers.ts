/**
 * Readers for handlers that do without a schema: each takes one argument
 * from the raw record, or throws an {@linkcode ArgumentError} saying what
 * was expected and what came.
 *
 * @module
 */

import { ArgumentError } from "./argument_error.ts";
import { got, shown } from "./_issues.ts";

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
 * Reads an optional array of strings: `undefined` when absent.
 *
 * @example
 * ```ts
 * import { optionalStringArray } from "@forge/toolkit/args";
 *
 * const tags = optionalStringArray({}, "tags") ?? []; // []
 * ```
 */
export function optionalStringArray(
  args: RawArguments,
  name: string,
): string[] | undefined {
  return args?.[name] === undefined
    ? undefined
    : requireStringArray(args, name);
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

/**
 * Reads an optional string that must be one of `values` when present:
 * `undefined` when absent.
 *
 * @example
 * ```ts
 * import { optionalEnum } from "@forge/toolkit/args";
 *
 * const mode = optionalEnum({}, "mode", ["fast", "safe"] as const) ?? "fast"; // "fast"
 * ```
 */
export function optionalEnum<const V extends string>(
  args: RawArguments,
  name: string,
  values: readonly V[],
): V | undefined {
  return args?.[name] === undefined
    ? undefined
    : requireEnum(args, name, values);
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
