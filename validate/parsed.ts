// The internal contract between validate() and each format's parser.

import type { Diagnostic } from "./types.ts";

/** What a format parser returns: the value, or the diagnostics. */
export type Parsed =
  | { ok: true; value: unknown; diagnostics: Diagnostic[] }
  | { ok: false; diagnostics: Diagnostic[] };
