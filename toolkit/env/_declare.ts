// What every kind does when it is declared: check the name, the options and
// the default, and freeze the variable.

import type { EnvOptions, EnvReadResult, EnvVar } from "./env_var.ts";

const NAME_RE = /^[^=\0]+$/;

export function checkName(name: unknown): string {
  if (typeof name !== "string" || !NAME_RE.test(name)) {
    throw new TypeError(
      `Invalid environment variable name: expected a non-empty string without "=" or NUL, got ${
        describeValue(name)
      }`,
    );
  }
  return name;
}

export function describeValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") {
    return String(value);
  }
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}

export function checkOptions(name: string, options: unknown): void {
  if (
    options !== undefined && (options === null || typeof options !== "object")
  ) {
    throw new TypeError(
      `Invalid options for ${name}: expected an object, got ${
        describeValue(options)
      }`,
    );
  }
}

export function orDefault<T>(
  raw: string | undefined,
  fallback: { value: T } | undefined,
  parse: (text: string) => T | undefined,
): EnvReadResult<T> {
  if (raw === undefined) {
    return fallback === undefined
      ? { ok: false, missing: true }
      : { ok: true, value: fallback.value };
  }
  const value = parse(raw);
  return value === undefined
    ? { ok: false, missing: false }
    : { ok: true, value };
}

export function makeVar<T>(
  name: string,
  expected: string,
  secret: boolean,
  read: (raw: string | undefined) => EnvReadResult<T>,
): EnvVar<T> {
  return Object.freeze({ name, expected, secret, read });
}

/**
 * Validates a declared default with `check`, which returns the value to use,
 * `"type"` for a value of the wrong type or `"range"` for one out of range.
 */
export function checkDefault<T>(
  name: string,
  expected: string,
  options: EnvOptions<unknown> | undefined,
  check: (value: unknown) => T | "type" | "range",
): { value: T } | undefined {
  if (options === undefined || options.default === undefined) return undefined;
  const result = check(options.default);
  if (result === "type" || result === "range") {
    const Ctor = result === "type" ? TypeError : RangeError;
    throw new Ctor(
      `Invalid default for ${name}: expected ${expected}, got ${
        describeValue(options.default)
      }`,
    );
  }
  return { value: result };
}

export function checkVar(where: string, value: unknown): EnvVar<unknown> {
  const v = value as Partial<EnvVar<unknown>> | null;
  if (
    v === null || typeof v !== "object" || typeof v.name !== "string" ||
    typeof v.expected !== "string" || typeof v.secret !== "boolean" ||
    typeof v.read !== "function"
  ) {
    throw new TypeError(
      `Cannot read environment: ${where} is not a variable declaration: expected env.string(), env.port() or another env kind, got ${
        describeValue(value)
      }`,
    );
  }
  checkName(v.name);
  return v as EnvVar<unknown>;
}
