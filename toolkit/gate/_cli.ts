// Internal: the gate's command line,
//   gate --policy FILE [--audit FILE [--audit-anchor FILE]]
//        [--unprobed allow|ask|deny]
//        [--pins FILE] [--new-tools allow|ask|deny] [--sandbox]
//        [--http HOST:PORT [--redis URL]]
//        [-- COMMAND [ARGS...] | --url URL [--header 'Name: value']...]
//   (neither for a policy that names its servers)

import type { Decision } from "../policy/mod.ts";
import { parseListen } from "./policy/_listen.ts";

/** The usage text, printed for `--help`. */
export const USAGE =
  `Usage: deno run -A toolkit/gate/main.ts --policy FILE [options] -- COMMAND [ARGS...]
       deno run -A toolkit/gate/main.ts --policy FILE [options] --url URL [--header 'Name: value']...
       deno run -A toolkit/gate/main.ts --policy FILE [options]   (a policy with servers:)
       deno run -A toolkit/gate/main.ts sandbox --policy FILE -- COMMAND [ARGS...]
       deno run -A toolkit/gate/main.ts audit verify FILE [--anchor ANCHOR]
       deno run -A toolkit/gate/main.ts test CASES --policy FILE
       deno run -A toolkit/gate/main.ts replay AUDIT --policy FILE [--anchor ANCHOR]
       deno run -A toolkit/gate/main.ts pins review FILE [--redis URL]
       deno run -A toolkit/gate/main.ts pins accept FILE TOOL@DIGEST... [--redis URL]
       deno run -A toolkit/gate/main.ts pins accept FILE [TOOL[@DIGEST]...] [--redis URL] (-- COMMAND [ARGS...] | --url URL [--header 'Name: value']...)

Runs the MCP server COMMAND (or speaks to the one at URL, or runs every
server the policy's servers: names, as one) behind a policy: each
tools/call is probed for its permission patterns and allowed, refused, or
asked of the user.

test decides each case of CASES under the policy, no server started (exit 0
when every case holds, 1 on a miss, 2 for a bad file); replay lists the calls
of a verified audit log whose decision the policy would change (exit 0 when
none, 1 when some, 2 for a broken chain or a bad file).

Options:
  --policy FILE      the policy file (.json, .jsonc, .yaml, .yml or .toml), reloaded on change
  --audit FILE       append one chained JSON line per decided call to FILE
  --audit-anchor ANCHOR
                     keep the audit log's end in ANCHOR, a file apart from
                     the log, so that audit verify --anchor finds an edit of
                     its last line and lines cut off its end
  --unprobed VALUE   the decision for tools that do not answer probes, when the
                     policy file does not say (default: ask)
  --pins FILE        pin the tools' definitions in FILE; a changed tool is withheld
  --new-tools VALUE  allow, ask or deny a tool new since the pins (default: ask)
  --url URL          a Streamable HTTP server instead of a command
  --header LINE      an HTTP header for --url ('Authorization: Bearer …'), repeatable
  --http HOST:PORT   serve Streamable HTTP at http://HOST:PORT/mcp instead of
                     stdio, a gate (and a server) per session (the policy
                     file's listen: says so too); HOST must be loopback
  --redis URL        with --http: keep the approval page's approvals in Redis
                     (redis:// or rediss://), shared by the instances using it
  --sandbox          run COMMAND in a fence derived from the policy (bubblewrap,
                     Linux), as the policy file's sandbox: true does; the
                     sandbox subcommand prints that fence
  -h, --help         show this text

Environment:
  FORGE_GATE_TYPED_IN  the folder the command was typed in, which the gate
                     task of deno.json sets from INIT_CWD: the FILEs above
                     are relative to it, not to the working directory
  OTEL_DENO=true     trace each request the gate relays, with its decision, and
                     export the spans over OTLP (OTEL_EXPORTER_OTLP_ENDPOINT);
                     see docs/observability.md`;

/** What the command line asks for. */
export type GateCommandLine =
  | { help: true }
  | {
    help: false;
    policy: string;
    audit: string | undefined;
    auditAnchor: string | undefined;
    unprobed: Decision | undefined;
    pins: string | undefined;
    newTools: Decision | undefined;
    /** The server's command; empty with `url`. */
    command: string[];
    url: string | undefined;
    headers: [string, string][];
    /** `--sandbox`: fence the server (the policy file may say so too); absent without it. */
    sandbox?: true;
    /** `--http HOST:PORT`: serve Streamable HTTP there; absent without it. */
    http?: string;
    /** `--redis URL`: the approvals in Redis there; absent without it. */
    redis?: string;
  };

/** A command line that cannot be run; the message says what was wrong. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

const VALUE_FLAGS = [
  "--policy",
  "--audit",
  "--audit-anchor",
  "--unprobed",
  "--pins",
  "--new-tools",
  "--url",
  "--header",
  "--http",
  "--redis",
] as const;
type Flag = (typeof VALUE_FLAGS)[number];

/** Reads the gate's arguments; throws {@linkcode UsageError}. */
export function parseCommandLine(args: readonly string[]): GateCommandLine {
  const values: Partial<Record<Flag, string>> = {};
  const headers: [string, string][] = [];
  let i = 0;
  // `deno task gate -- --policy p -- srv` passes its own "--" through.
  if (args[0] === "--" && isGateOption(args[1])) i = 1;
  let sawSeparator = false;
  let sandbox = false;
  for (; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      i++;
      sawSeparator = true;
      break;
    }
    if (arg === "-h" || arg === "--help") return { help: true };
    if (arg === "--sandbox") {
      sandbox = true;
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const flag = VALUE_FLAGS.find((f) => f === name);
    if (flag === undefined) {
      throw new UsageError(
        arg.startsWith("-")
          ? `Unknown option: ${arg}: expected ${
            VALUE_FLAGS.join(", ")
          }, --sandbox or --help`
          : `Unexpected argument: ${arg}: put the server command after "--"`,
      );
    }
    if (values[flag] !== undefined && flag !== "--header") {
      throw new UsageError(`${flag} given twice: expected it once`);
    }
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      value = args[i + 1];
      if (value === "--") value = undefined;
      else i++;
    }
    if (value === undefined || value === "") {
      throw new UsageError(
        `${flag} needs a value: expected ${flag} ${placeholder(flag)}`,
      );
    }
    if (flag === "--header") headers.push(headerOf(value));
    values[flag] = value;
  }
  const command = sawSeparator ? args.slice(i) : [];
  const url = values["--url"];
  if (values["--policy"] === undefined) {
    throw new UsageError("Missing --policy: expected --policy FILE");
  }
  // No command and no URL: the policy must name its servers (servers:),
  // which only startGate() can tell once it has read the file.
  checkServerChoice(command, url, headers);
  if (sandbox && url !== undefined) {
    throw new UsageError(
      "--sandbox with --url: a remote server cannot be fenced by the gate: the fence is for a server it spawns",
    );
  }
  const http = values["--http"];
  if (http !== undefined && parseListen(http) === undefined) {
    throw new UsageError(
      `Invalid --http: ${
        JSON.stringify(http)
      }: expected HOST:PORT (such as 127.0.0.1:8080; port 0 picks a free one)`,
    );
  }
  const redis = values["--redis"];
  if (redis !== undefined && !/^rediss?:\/\/./.test(redis)) {
    throw new UsageError(
      `Invalid --redis: ${
        JSON.stringify(redis)
      }: expected a redis:// or rediss:// URL`,
    );
  }
  if (
    values["--audit-anchor"] !== undefined && values["--audit"] === undefined
  ) {
    throw new UsageError(
      "--audit-anchor needs --audit: the anchor is the audit log's",
    );
  }
  return {
    help: false,
    policy: values["--policy"],
    audit: values["--audit"],
    auditAnchor: values["--audit-anchor"],
    unprobed: decisionOf(values["--unprobed"], "--unprobed"),
    pins: values["--pins"],
    newTools: decisionOf(values["--new-tools"], "--new-tools"),
    command,
    url,
    headers,
    ...(sandbox ? { sandbox: true as const } : {}),
    ...(http === undefined ? {} : { http }),
    ...(redis === undefined ? {} : { redis }),
  };
}

/**
 * Checks how a server is named, for the gate and for `pins accept`: a
 * command after `--` or `--url URL`, not both; an http(s) URL; `--header`
 * only with `--url`.
 *
 * @throws {UsageError} Saying what was wrong and what was expected.
 */
export function checkServerChoice(
  command: readonly string[],
  url: string | undefined,
  headers: readonly unknown[],
): void {
  if (url !== undefined && command.length > 0) {
    throw new UsageError(
      "Both --url and a server command: expected one of them (--url URL, or -- COMMAND)",
    );
  }
  if (url !== undefined && !/^https?:\/\//.test(url)) {
    throw new UsageError(
      `Invalid --url: ${url}: expected an http:// or https:// URL`,
    );
  }
  if (headers.length > 0 && url === undefined) {
    throw new UsageError(
      "--header needs --url: headers are for an HTTP server",
    );
  }
}

function placeholder(flag: Flag): string {
  if (flag === "--unprobed" || flag === "--new-tools") return "allow|ask|deny";
  if (flag === "--url") return "URL";
  if (flag === "--header") return "'Name: value'";
  if (flag === "--http") return "HOST:PORT";
  return "FILE";
}

function decisionOf(
  value: string | undefined,
  flag: Flag,
): Decision | undefined {
  if (
    value !== undefined && value !== "allow" && value !== "ask" &&
    value !== "deny"
  ) {
    throw new UsageError(
      `Invalid ${flag}: ${JSON.stringify(value)}: expected allow, ask or deny`,
    );
  }
  return value;
}

/** `--header`'s value as a name and a value; a `UsageError` when malformed. */
export function headerOf(line: string): [string, string] {
  const colon = line.indexOf(":");
  const name = colon === -1 ? "" : line.slice(0, colon).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
    throw new UsageError(
      `Invalid --header: ${JSON.stringify(line)}: expected 'Name: value'`,
    );
  }
  return [name, line.slice(colon + 1).trim()];
}

function isGateOption(arg: string | undefined): boolean {
  if (arg === undefined) return false;
  const name = arg.split("=", 1)[0];
  return arg === "-h" || arg === "--help" || arg === "--sandbox" ||
    VALUE_FLAGS.some((flag) => flag === name);
}
