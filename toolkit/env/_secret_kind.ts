// env.secret(): read as a Secret, and never echoed, not even a bad default.

import type { EnvVar } from "./env_var.ts";
import type { EnvSecretOptions } from "./kind_options.ts";
import { Secret } from "./secret.ts";
import { checkName, checkOptions, makeVar } from "./_declare.ts";
import { checkWholeNumber } from "../_util/whole_number.ts";

export function declareSecret(
  name: string,
  options?: EnvSecretOptions,
): EnvVar<Secret> {
  checkName(name);
  checkOptions(name, options);
  const minLength = options?.minLength ?? 1;
  checkWholeNumber(`Invalid options for ${name}`, "minLength", minLength, {
    min: 1,
  });
  const expected = minLength === 1
    ? "a secret string"
    : `a secret of at least ${minLength} characters`;
  // A bad default is reported by type and length only: it is a secret too.
  if (options?.default !== undefined) {
    const value: unknown = options.default;
    if (typeof value !== "string") {
      throw new TypeError(
        `Invalid default for ${name}: expected a string, got ${typeof value}`,
      );
    }
    if (value.length < minLength) {
      throw new RangeError(
        `Invalid default for ${name}: expected ${expected}, got a value of ${value.length} characters`,
      );
    }
  }
  const fallback = options?.default;
  return makeVar(name, expected, true, (raw) => {
    if (raw === undefined) {
      return fallback === undefined
        ? { ok: false, missing: true }
        : { ok: true, value: new Secret(fallback) };
    }
    return raw.length >= minLength
      ? { ok: true, value: new Secret(raw) }
      : { ok: false, missing: false };
  });
}
