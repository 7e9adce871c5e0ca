// Internal: the gate's command line,
//   gate --policy FILE [--audit FILE] [--unprobed allow|ask|deny] -- COMMAND [ARGS...]

import type { Decision } from "../policy/mod.ts";

/** The usage text, printed for `--help`. */
export const USAGE =
  `Usage: deno run -A toolkit/gate/main.ts --policy FILE [--audit FILE] [--unprobed allow|ask|deny] -- COMMAND [ARGS...]

Runs the MCP server COMMAND behind a policy: each tools/call is probed for its
permission patterns and allowed, refused, or asked of the user.

Options:
  --policy FILE      the policy file (.json, .jsonc, .yaml, .yml or .toml), reloaded on change
  --audit FILE       append one JSON line per decided call to FILE
  --unprobed VALUE   the decision for tools that do not answer probes, when the
                     policy file does not say (default: ask)
  -h, --help         show this text`;

/** What the command line asks for. */
export type GateCommandLine =
  | { help: true }
  | {
    help: false;
    policy: string;
    audit: string | undefined;
    unprobed: Decision | undefined;
    command: string[];
  };

/** A command line that cannot be run; the message says what was wrong. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

const VALUE_FLAGS = ["--policy", "--audit", "--unprobed"] as const;

/** Reads the gate's arguments; throws {@linkcode UsageError}. */
export function parseCommandLine(args: readonly string[]): GateCommandLine {
  const values: Partial<Record<(typeof VALUE_FLAGS)[number], string>> = {};
  let i = 0;
  // `deno task gate -- --policy p -- srv` passes its own "--" through.
  if (args[0] === "--" && isGateOption(args[1])) i = 1;
  for (; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      i++;
      break;
    }
    if (arg === "-h" || arg === "--help") return { help: true };
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const flag = VALUE_FLAGS.find((f) => f === name);
    if (flag === undefined) {
      throw new UsageError(
        arg.startsWith("-")
          ? `Unknown option: ${arg}: expected --policy, --audit, --unprobed or --help`
          : `Unexpected argument: ${arg}: put the server command after "--"`,
      );
    }
    if (values[flag] !== undefined) {
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
      throw new UsageError(`${flag} needs a value: expected ${flag} FILE`);
    }
    values[flag] = value;
  }
  const command = args.slice(i);
  if (values["--policy"] === undefined) {
    throw new UsageError("Missing --policy: expected --policy FILE");
  }
  if (command.length === 0) {
    throw new UsageError(
      'Missing the server command: expected it after "--", as in -- deno run -A server.ts',
    );
  }
  const unprobed = values["--unprobed"];
  if (
    unprobed !== undefined && unprobed !== "allow" && unprobed !== "ask" &&
    unprobed !== "deny"
  ) {
    throw new UsageError(
      `Invalid --unprobed: ${
        JSON.stringify(unprobed)
      }: expected allow, ask or deny`,
    );
  }
  return {
    help: false,
    policy: values["--policy"],
    audit: values["--audit"],
    unprobed,
    command,
  };
}

function isGateOption(arg: string | undefined): boolean {
  if (arg === undefined) return false;
  const name = arg.split("=", 1)[0];
  return arg === "-h" || arg === "--help" ||
    VALUE_FLAGS.some((flag) => flag === name);
}
