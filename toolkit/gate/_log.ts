// Internal: the gate's own lines: where they go by default, and how an
// error reads in them.

export { messageOf } from "../_util/errors.ts";

const ENCODER = new TextEncoder();

/** Writes `forge gate: <line>` to stderr, whole, on the spot. */
export function stderrLog(line: string): void {
  const bytes = ENCODER.encode(`forge gate: ${line}\n`);
  let written = 0;
  try {
    while (written < bytes.length) {
      written += Deno.stderr.writeSync(bytes.subarray(written));
    }
  } catch {
    // stderr is gone; nothing else can be told.
  }
}
