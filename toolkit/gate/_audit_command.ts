// Internal: `gate audit verify FILE`: exit 0 when the log's chain is
// intact, 1 naming the first line where it breaks, 2 for a bad command
// line or a file that cannot be read.

import { messageOf } from "./_log.ts";
import { verifyAudit } from "./_audit_verify.ts";

/** The usage of the audit subcommand. */
export const AUDIT_USAGE = "Usage: gate audit verify FILE";

/** Runs `audit <args>`; resolves with the exit status. */
export async function auditCommand(args: readonly string[]): Promise<number> {
  if (args[0] !== "verify" || args.length !== 2) {
    console.error(
      `forge gate: Expected audit verify FILE, got audit ${args.join(" ")}`,
    );
    return 2;
  }
  const path = args[1];
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (error) {
    console.error(
      `forge gate: Cannot read the audit log: ${path}: ${messageOf(error)}`,
    );
    return 2;
  }
  const verdict = await verifyAudit(bytes);
  if (verdict.ok) {
    console.log(`${path}: ${verdict.lines} lines, chain intact`);
    return 0;
  }
  console.error(
    `forge gate: ${path}: line ${verdict.line}: ${verdict.problem}`,
  );
  return 1;
}
