// Internal: `gate audit verify FILE [--anchor ANCHOR]`: exit 0 when the
// log's chain is intact (and its end is the anchor's), 1 naming the first
// line where it breaks, 2 for a bad command line or a file that cannot be
// read.

import { messageOf } from "../_log.ts";
import { verifyAudit } from "./_audit_verify.ts";
import { type AuditAnchor, readAnchor } from "./_audit_anchor.ts";

/** The usage of the audit subcommand. */
export const AUDIT_USAGE = "Usage: gate audit verify FILE [--anchor ANCHOR]";

/**
 * Runs `audit <args>`; resolves with the exit status. `options.path` makes
 * a file named on the command line the path to open.
 */
export async function auditCommand(
  args: readonly string[],
  options: { path?: (given: string) => string } = {},
): Promise<number> {
  const parsed = verifyArgs(args);
  if (parsed === undefined) {
    console.error(
      `forge gate: Expected audit verify FILE [--anchor ANCHOR], got audit ${
        args.join(" ")
      }`,
    );
    return 2;
  }
  const { path, anchorPath } = parsed;
  const open = options.path ?? ((given: string) => given);
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(open(path));
  } catch (error) {
    console.error(
      `forge gate: Cannot read the audit log: ${path}: ${messageOf(error)}`,
    );
    return 2;
  }
  let anchor: AuditAnchor | undefined;
  if (anchorPath !== undefined) {
    try {
      anchor = await readAnchor(open(anchorPath));
      if (anchor === undefined) throw new Error("no such file");
    } catch (error) {
      console.error(
        `forge gate: Cannot read the anchor: ${anchorPath}: ${
          messageOf(error)
        }`,
      );
      return 2;
    }
  }
  const verdict = await verifyAudit(bytes, anchor);
  if (verdict.ok) {
    console.log(
      `${path}: ${verdict.lines} lines, chain intact${
        anchor === undefined ? "" : ", its end matches the anchor"
      }`,
    );
    return 0;
  }
  console.error(
    `forge gate: ${path}: line ${verdict.line}: ${verdict.problem}`,
  );
  return 1;
}

/** `verify FILE`, with `--anchor ANCHOR` before or after it. */
function verifyArgs(
  args: readonly string[],
): { path: string; anchorPath: string | undefined } | undefined {
  if (args[0] !== "verify") return undefined;
  let path: string | undefined;
  let anchorPath: string | undefined;
  for (let i = 1; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--anchor" || arg.startsWith("--anchor=")) {
      if (anchorPath !== undefined) return undefined;
      anchorPath = arg === "--anchor" ? args[++i] : arg.slice(9);
      if (anchorPath === undefined || anchorPath === "") return undefined;
    } else if (path === undefined && !arg.startsWith("-")) path = arg;
    else return undefined;
  }
  return path === undefined ? undefined : { path, anchorPath };
}
