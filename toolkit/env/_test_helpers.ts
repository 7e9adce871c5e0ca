// Shared by the env tests.

import assert from "node:assert/strict";
import { EnvError } from "./env_error.ts";
import type { EnvVar } from "./env_var.ts";
import { readEnv } from "./read_env.ts";

/** Reads `spec` and returns the EnvError it must throw. */
export function problemsOf(
  spec: Record<string, EnvVar<unknown>>,
  source: Record<string, string>,
): EnvError {
  try {
    readEnv(spec, { source });
  } catch (err) {
    if (err instanceof EnvError) return err;
    throw err;
  }
  assert.fail("expected readEnv() to throw an EnvError");
}
