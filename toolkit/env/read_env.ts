// readEnv(): every declared variable read at once, every problem in one
// EnvError.

import type { EnvConfig, EnvVar } from "./env_var.ts";
import { EnvError, type EnvProblem } from "./env_error.ts";
import { checkVar, describeValue } from "./_declare.ts";

const MAX_ECHO = 60;

/**
 * Where variables are read from: a plain record or a lookup function.
 *
 * @example Read every variable under a prefix
 * ```ts
 * import { env, type EnvSource, readEnv } from "@forge/toolkit/env";
 *
 * const vars: Record<string, string> = { NOTES_PORT: "9000" }; // stands in for Deno.env
 * const prefixed: EnvSource = (name) => vars[`NOTES_${name}`];
 * const config = readEnv({ port: env.port("PORT") }, { source: prefixed });
 * config.port; // 9000
 * ```
 */
export type EnvSource =
  | Readonly<Record<string, string | undefined>>
  | ((name: string) => string | undefined);

/**
 * Options for {@linkcode readEnv}.
 *
 * @example Test a config without touching the process environment
 * ```ts
 * import { env, readEnv, type ReadEnvOptions } from "@forge/toolkit/env";
 * import assert from "node:assert/strict";
 *
 * const spec = { workers: env.int("WORKERS", { default: 4 }) };
 * const options: ReadEnvOptions = { source: { WORKERS: "8" } };
 * assert.equal(readEnv(spec, options).workers, 8);
 * ```
 */
export interface ReadEnvOptions {
  /**
   * Where to read variables from. Pass a record or a function in tests so
   * they do not depend on, or change, the process environment.
   *
   * @default {Deno.env.get}
   */
  source?: EnvSource;
}

function isPermissionError(err: unknown): boolean {
  return err instanceof Deno.errors.NotCapable ||
    err instanceof Deno.errors.PermissionDenied;
}

function toLookup(source: EnvSource | undefined): (name: string) => unknown {
  if (source === undefined) return (name) => Deno.env.get(name);
  if (typeof source === "function") return source;
  if (source === null || typeof source !== "object") {
    throw new TypeError(
      `Cannot read environment: source must be a record or a function, got ${
        describeValue(source)
      }`,
    );
  }
  // Own keys only: a variable named "constructor" must not find Object's.
  return (name) => Object.hasOwn(source, name) ? source[name] : undefined;
}

function echo(raw: string, secret: boolean): string {
  if (secret) return `a value of ${raw.length} characters`;
  if (raw.length <= MAX_ECHO) return JSON.stringify(raw);
  return `${
    JSON.stringify(raw.slice(0, MAX_ECHO) + "…")
  } (${raw.length} characters)`;
}

/**
 * Reads every variable in `spec` and returns a frozen config object with the
 * same keys, typed from the declarations. Throws one {@linkcode EnvError}
 * listing every missing or invalid variable, or naming the `--allow-env`
 * flag to add when reading is not permitted.
 *
 * @example Read a config, with a record as the source
 * ```ts
 * import { env, readEnv } from "@forge/toolkit/env";
 *
 * const config = readEnv({
 *   port: env.port("PORT", { default: 8080 }),
 *   hosts: env.list("HOSTS", { default: [] }),
 * }, { source: { HOSTS: "a.example, b.example" } });
 * config.port; // 8080
 * config.hosts; // ["a.example", "b.example"]
 * ```
 */
export function readEnv<S extends Record<string, EnvVar<unknown>>>(
  spec: S,
  options: ReadEnvOptions = {},
): EnvConfig<S> {
  if (spec === null || typeof spec !== "object" || Array.isArray(spec)) {
    throw new TypeError(
      `Cannot read environment: spec must be an object of env declarations, got ${
        describeValue(spec)
      }`,
    );
  }
  const entries = Object.entries(spec).map(([key, value]) =>
    [key, checkVar(`spec key ${JSON.stringify(key)}`, value)] as const
  );
  const lookup = toLookup(options?.source);
  const names = [...new Set(entries.map(([, v]) => v.name))];

  const raws = new Map<string, string | undefined>();
  const denied: string[] = [];
  let deniedCause: unknown;
  for (const name of names) {
    let raw: unknown;
    try {
      raw = lookup(name);
    } catch (err) {
      if (!isPermissionError(err)) throw err;
      denied.push(name);
      deniedCause ??= err;
      continue;
    }
    if (raw !== undefined && typeof raw !== "string") {
      throw new TypeError(
        `Cannot read environment: source gave ${
          describeValue(raw)
        } for ${name}: expected a string or undefined`,
      );
    }
    raws.set(name, raw);
  }
  if (denied.length > 0) {
    // The flag lists every declared name: all are needed, not only the first
    // one that failed, so the suggested command works on the first try.
    throw new EnvError(
      `Cannot read environment: permission denied: run with --allow-env=${
        names.join(",")
      }`,
      denied.map((name) => ({
        name,
        reason: "denied",
        expected: `read permission (--allow-env=${name})`,
        message: `${name}: permission denied`,
      })),
      { cause: deniedCause },
    );
  }

  const config: Record<string, unknown> = {};
  const problems: EnvProblem[] = [];
  for (const [key, variable] of entries) {
    const raw = raws.get(variable.name);
    const result = variable.read(raw === "" ? undefined : raw);
    if (result.ok) {
      // Assigning "__proto__" would set the prototype; define it instead.
      if (key === "__proto__") {
        Object.defineProperty(config, key, {
          value: result.value,
          enumerable: true,
        });
      } else {
        config[key] = result.value;
      }
      continue;
    }
    const { name, expected } = variable;
    if (raw === undefined || raw === "" || result.missing) {
      const state = raw === "" ? "empty" : "not set";
      problems.push({
        name,
        reason: "missing",
        expected,
        message: `${name}: required but ${state}: expected ${expected}`,
      });
    } else {
      problems.push({
        name,
        reason: "invalid",
        expected,
        message: `${name}: expected ${expected}, got ${
          echo(raw, variable.secret)
        }`,
      });
    }
  }
  if (problems.length > 0) {
    const count = problems.length === 1
      ? "1 problem"
      : `${problems.length} problems`;
    throw new EnvError(
      [
        `Invalid environment: ${count}`,
        ...problems.map((p) => `  ${p.message}`),
      ].join(
        "\n",
      ),
      problems,
    );
  }
  return Object.freeze(config) as EnvConfig<S>;
}
