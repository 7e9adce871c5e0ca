// Internal: `gate replay AUDIT --policy FILE [--anchor ANCHOR]`: verifies
// the log's chain (refusing a broken one), then decides each call it holds
// again under the policy FILE, by the patterns the log recorded, and lists
// the calls whose decision would change, and those the log cannot
// re-decide. A line of a gate of many servers (`server`) is decided by
// that server's view of the policy; a server the policy no longer has is a
// change (the gate would not route the call). A line that names its
// `caller` (a gate with `auth:`) is decided by that caller's view, the
// principals its claims match, and its flows by that caller's calls.
// Exit 0 when no decision changes, 1 when one does, 2 for a bad command
// line, a file that cannot be read, a broken chain or a wrong policy.

import { isRecord } from "../../_util/json_type.ts";
import { type AuditAnchor, readAnchor } from "./_audit_anchor.ts";
import { sha256HexSync } from "../../_util/sha256_hex_sync.ts";
import { verifyAudit } from "./_audit_verify.ts";
import { messageOf } from "../_log.ts";
import {
  decidedBy,
  loadPolicy,
  type OfflineCall,
  OfflineSession,
  serverNames,
} from "../policy/_offline.ts";
import type { PolicyInForce } from "../policy/_policy_source.ts";
import { claimsOfRecord } from "../policy/_claims.ts";
import { claimNames } from "../policy/_principals.ts";

/** The usage of the replay subcommand. */
export const REPLAY_USAGE =
  "Usage: gate replay AUDIT --policy FILE [--anchor ANCHOR]";

const NEWLINE = 0x0a;
const REDACTED = "[redacted sha256:";
/** Rules that decide by the tool's name, not by what it touches. */
const BY_NAME = /^(unprobed$|tools\.|presets\.|annotations\.)/;
/** The outcomes of a call that ran. */
const RAN: readonly string[] = ["forwarded", "approved"];

/**
 * Runs `replay <args>`; resolves with the exit status. `options.path`
 * makes a file named on the command line the path to open.
 */
export async function replayCommand(
  args: readonly string[],
  options: { path?: (given: string) => string } = {},
): Promise<number> {
  const parsed = replayArgs(args);
  if (parsed === undefined) {
    console.error(
      `forge gate: Expected replay AUDIT --policy FILE [--anchor ANCHOR], got replay ${
        args.join(" ")
      }`,
    );
    return 2;
  }
  const open = options.path ?? ((given: string) => given);
  const { log } = parsed;
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(open(log));
  } catch (error) {
    console.error(
      `forge gate: Cannot read the audit log: ${log}: ${messageOf(error)}`,
    );
    return 2;
  }
  let anchor: AuditAnchor | undefined;
  if (parsed.anchor !== undefined) {
    try {
      anchor = await readAnchor(open(parsed.anchor));
      if (anchor === undefined) throw new Error("no such file");
    } catch (error) {
      console.error(
        `forge gate: Cannot read the anchor: ${parsed.anchor}: ${
          messageOf(error)
        }`,
      );
      return 2;
    }
  }
  // Only a log whose chain holds says what was decided.
  const verdict = await verifyAudit(bytes, anchor);
  if (!verdict.ok) {
    console.error(
      `forge gate: Cannot replay ${log}: line ${verdict.line}: ${verdict.problem}`,
    );
    return 2;
  }
  const inForce = await loadPolicy(open(parsed.policy), parsed.policy);
  if ("problem" in inForce) {
    console.error(`forge gate: Cannot load the policy: ${inForce.problem}`);
    return 2;
  }
  const counts = await replay(bytes, inForce, log);
  console.log(
    `${log}: ${counts.calls} ${
      counts.calls === 1 ? "call" : "calls"
    }, ${counts.changed} would change${
      counts.unknown === 0 ? "" : `, ${counts.unknown} cannot be re-decided`
    }`,
  );
  return counts.changed === 0 ? 0 : 1;
}

/** Decides each call of the log again; prints each change and each call it cannot. */
async function replay(
  bytes: Uint8Array,
  inForce: PolicyInForce,
  log: string,
): Promise<{ calls: number; changed: number; unknown: number }> {
  const decoder = new TextDecoder();
  // The log does not mark where one gate's session ends: for flows, each
  // caller's calls are one session (the strict side; every call of a
  // gate without auth: is one caller's), and a change by a flow names the
  // line that set it off.
  const sessions = new Map<string, OfflineSession>();
  const sessionOf = (caller: Record<string, unknown> | undefined) => {
    const key = JSON.stringify(caller ?? null);
    let session = sessions.get(key);
    if (session === undefined) {
      session = new OfflineSession(inForce, {
        ...(caller === undefined ? {} : { claims: claimsOfRecord(caller) }),
      });
      sessions.set(key, session);
    }
    return session;
  };
  const counts = { calls: 0, changed: 0, unknown: 0 };
  const servers = serverNames(inForce);
  // The claims the new policy's principals match callers on, besides sub,
  // groups and scope (which a line always holds when the token had them).
  const named = [...claimNames(inForce.file?.principals)].filter((name) =>
    !["sub", "groups", "scope"].includes(name)
  );
  let start = 0;
  for (let number = 1; start < bytes.length; number++) {
    let end = bytes.indexOf(NEWLINE, start);
    if (end === -1) end = bytes.length;
    const raw = bytes.subarray(start, end);
    start = end + 1;
    const line: unknown = JSON.parse(decoder.decode(raw));
    if (!isCallLine(line)) continue;
    counts.calls++;
    const { server, tool, patterns, decision, rule, outcome, caller } = line;
    const said = `${log}:${number}: ${tool}${
      server === undefined ? "" : ` on server "${server}"`
    }${
      typeof caller?.sub === "string" ? ` by ${JSON.stringify(caller.sub)}` : ""
    } ${JSON.stringify(patterns)}`;
    const cannot = (why: string) => {
      counts.unknown++;
      console.log(`${said}: cannot be re-decided: ${why}`);
    };
    if (servers === undefined && server !== undefined) {
      cannot(
        "the log is of a gate of many servers, and the policy names no servers",
      );
      continue;
    }
    if (servers !== undefined && server === undefined) {
      cannot(
        `the line names no server (a gate of one server), and the policy names servers (${
          servers.join(", ")
        })`,
      );
      continue;
    }
    if (servers !== undefined && !servers.includes(server!)) {
      // The policy has no such server: the call would not reach one.
      counts.changed++;
      console.log(
        `${said}: was ${decision} (${
          rule ?? "no rule"
        }), would not be routed: the policy has no server "${server}" (its servers are ${
          servers.join(", ")
        })`,
      );
      continue;
    }
    const unheld = line.caller === undefined
      ? []
      : named.filter((name) => !Object.hasOwn(line.caller!, name));
    if (unheld.length > 0) {
      cannot(
        `the policy matches callers on the claim ${
          unheld.join(", ")
        }, which the line does not hold (no principal matched on it when the call was made)`,
      );
      continue;
    }
    const session = sessionOf(line.caller);
    const call = callOf(line, session.policyFor(server));
    if (typeof call === "string") {
      cannot(call);
      continue;
    }
    const decided = await session.decide(call);
    // The session's history is what ran, as the log says.
    if (RAN.includes(outcome)) session.ran(decided.call, sha256HexSync(raw));
    if (decided.decision === decision) continue;
    counts.changed++;
    console.log(
      `${said}: was ${decision} (${
        rule ?? "no rule"
      }), would be ${decided.decision} by ${decidedBy(decided)}`,
    );
  }
  return counts;
}

/** An audit line of a call the policy decided. */
interface CallLine {
  server?: string;
  tool: string;
  patterns: string[];
  decision: "allow" | "ask" | "deny";
  outcome: string;
  rule: string | null;
  unlisted?: true;
  caller?: Record<string, unknown>;
}

function isCallLine(line: unknown): line is CallLine {
  // Tool events, malformed calls, refused probes, cancellations before a
  // decision and calls the pins withheld were not the policy's decisions.
  return isRecord(line) && line.event === undefined &&
    typeof line.tool === "string" && Array.isArray(line.patterns) &&
    (line.decision === "allow" || line.decision === "ask" ||
      line.decision === "deny") &&
    line.outcome !== "withheld" &&
    (line.server === undefined || typeof line.server === "string") &&
    (line.caller === undefined || isRecord(line.caller));
}

/**
 * The call an audit line stands for, or why it cannot be decided again;
 * `inForce` is the policy of the line's server.
 */
function callOf(line: CallLine, inForce: PolicyInForce): OfflineCall | string {
  const { tool, patterns, rule } = line;
  if (patterns.some((p) => p.includes(REDACTED))) {
    return "its exec or custom patterns are recorded as digests (record: patterns keeps them whole)";
  }
  if (rule === "newTools") {
    return "the pins decided it (a tool new since they were taken)";
  }
  const { server } = line;
  const on = server === undefined ? {} : { server };
  if (patterns.length > 0 || (rule === null || !BY_NAME.test(rule))) {
    return { ...on, tool, patterns };
  }
  // Decided by its name: the new policy's entry, annotations or unprobed.
  const entry = inForce.mapping.entry(tool);
  if (entry !== undefined && typeof entry.entry !== "string") {
    return `${entry.source} decides it by its arguments, which the log does not hold`;
  }
  let annotations: Record<string, unknown> | undefined;
  if (rule === "annotations.readOnly") annotations = { readOnlyHint: true };
  else if (rule === "annotations.destructive") annotations = {};
  else if (
    entry === undefined && !line.unlisted &&
    Object.keys(inForce.mapping.annotations).length > 0
  ) {
    return "the policy decides by the tool's annotations, which the log does not hold";
  }
  return { ...on, tool, listed: !line.unlisted, annotations };
}

/** `AUDIT --policy FILE [--anchor ANCHOR]`, in any order. */
function replayArgs(
  args: readonly string[],
): { log: string; policy: string; anchor: string | undefined } | undefined {
  let log: string | undefined;
  const values: Record<string, string | undefined> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const flag = ["--policy", "--anchor"].find((f) =>
      arg === f || arg.startsWith(`${f}=`)
    );
    if (flag !== undefined) {
      if (values[flag] !== undefined) return undefined;
      const value = arg === flag ? args[++i] : arg.slice(flag.length + 1);
      if (value === undefined || value === "") return undefined;
      values[flag] = value;
    } else if (log === undefined && !arg.startsWith("-")) log = arg;
    else return undefined;
  }
  const policy = values["--policy"];
  return log === undefined || policy === undefined
    ? undefined
    : { log, policy, anchor: values["--anchor"] };
}
