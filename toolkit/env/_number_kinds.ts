// env.int(), env.number() and env.port().

import type { EnvOptions, EnvVar } from "./env_var.ts";
import type { EnvNumberOptions } from "./kind_options.ts";
import {
  checkDefault,
  checkName,
  checkOptions,
  describeValue,
  makeVar,
  orDefault,
} from "./_declare.ts";

const INT_RE = /^[+-]?\d+$/;
const NUMBER_RE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const MAX_PORT = 65535;

function rangeText(min: number, max: number): string {
  if (min > -Infinity && max < Infinity) return ` from ${min} to ${max}`;
  if (min > -Infinity) return ` >= ${min}`;
  if (max < Infinity) return ` <= ${max}`;
  return "";
}

function checkBound(
  name: string,
  key: string,
  value: unknown,
): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || Number.isNaN(value)) {
    throw new TypeError(
      `Invalid options for ${name}: ${key} must be a number, got ${
        describeValue(value)
      }`,
    );
  }
  return value;
}

export function declareNumber(
  name: string,
  options: EnvNumberOptions | undefined,
  integer: boolean,
): EnvVar<number> {
  checkName(name);
  checkOptions(name, options);
  const min = checkBound(name, "min", options?.min) ?? -Infinity;
  const max = checkBound(name, "max", options?.max) ?? Infinity;
  if (min > max) {
    throw new RangeError(
      `Invalid options for ${name}: min must not exceed max, got min ${min} and max ${max}`,
    );
  }
  const expected = (integer ? "an integer" : "a number") +
    rangeText(min, max);
  const accept = (n: number): boolean =>
    (integer ? Number.isSafeInteger(n) : Number.isFinite(n)) && n >= min &&
    n <= max;
  const fallback = checkDefault(name, expected, options, (value) => {
    if (typeof value !== "number") return "type";
    return accept(value) ? value : "range";
  });
  const pattern = integer ? INT_RE : NUMBER_RE;
  return makeVar(
    name,
    expected,
    false,
    (raw) =>
      orDefault(raw, fallback, (text) => {
        const trimmed = text.trim();
        if (!pattern.test(trimmed)) return undefined;
        // `+ 0` turns -0 into 0, which is what a user who wrote "-0" means.
        const n = Number(trimmed) + 0;
        return accept(n) ? n : undefined;
      }),
  );
}

export function declarePort(
  name: string,
  options?: EnvOptions<number>,
): EnvVar<number> {
  checkName(name);
  checkOptions(name, options);
  const expected = `a port number from 1 to ${MAX_PORT}`;
  const accept = (n: number): boolean =>
    Number.isInteger(n) && n >= 1 && n <= MAX_PORT;
  const fallback = checkDefault(name, expected, options, (value) => {
    if (typeof value !== "number") return "type";
    return accept(value) ? value : "range";
  });
  return makeVar(
    name,
    expected,
    false,
    (raw) =>
      orDefault(raw, fallback, (text) => {
        const trimmed = text.trim();
        if (!/^\d+$/.test(trimmed)) return undefined;
        const n = Number(trimmed);
        return accept(n) ? n : undefined;
      }),
  );
}
