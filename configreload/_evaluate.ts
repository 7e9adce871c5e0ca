// Internal: what a check does with bytes it has read: parse them, then run
// the schema, and say which value they make or which ConfigError refuses
// them. Nothing here throws; a parser or schema that throws refuses the bytes.

import type { ConfigError } from "./config_error.ts";
import type { StandardSchema } from "../validate/standard_schema.ts";
import { schemaError, syntaxError } from "./_errors.ts";
import type { ParseOutcome, Parser } from "./_parser.ts";
import type { FileLook } from "./_read_file.ts";
import { runSchema } from "./_schema.ts";

/** The value some bytes make, or why they were refused. */
export type Evaluation<T> =
  | { ok: true; value: T }
  | { ok: false; error: ConfigError };

/** How to read the bytes and whom to name in errors. */
export interface EvaluateOptions<T> {
  /** The path as the user gave it, for messages. */
  path: string;
  /** `Cannot load config` or `Cannot reload config`. */
  prefix: string;
  /** Turns the bytes into a value. */
  parser: Parser;
  /** What the value must pass, if anything. */
  schema: StandardSchema<unknown, T> | undefined;
}

/** Parses and validates the bytes of `look`. */
export async function evaluate<T>(
  look: Extract<FileLook, { kind: "ok" }>,
  options: EvaluateOptions<T>,
): Promise<Evaluation<T>> {
  const { path, prefix, schema } = options;
  let parsed: ParseOutcome;
  try {
    parsed = await options.parser(look.bytes);
  } catch (cause) {
    // A parser bug must not take the watcher down; refuse the bytes.
    parsed = { ok: false as const, diagnostics: [], cause };
  }
  if (!parsed.ok) {
    return {
      ok: false,
      error: syntaxError(
        prefix,
        path,
        parsed.diagnostics,
        look.bytes,
        look.hash,
        parsed.cause,
      ),
    };
  }
  if (schema === undefined) return { ok: true, value: parsed.value as T };
  const checked = await runSchema(schema, parsed.value);
  if (checked.ok) return { ok: true, value: checked.value };
  return {
    ok: false,
    error: schemaError(prefix, path, checked.issues, look.hash, checked.cause),
  };
}
