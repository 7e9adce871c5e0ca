// Internal: `gate sandbox --policy FILE [-- COMMAND [ARGS...]]` prints the
// fence the server COMMAND would run in: its mounts, network and
// environment, the rules that made no mount, the digest the audit records,
// and the bubblewrap command line. Exit 0, or 2 for a bad command line or
// policy file. It prints the fence whether or not the policy file says
// `sandbox: true`, and does not need bubblewrap.

import { formatForPath } from "../../../validate/mod.ts";
import { deriveFence, describeFence } from "./_fence.ts";
import { messageOf } from "../_log.ts";
import { parsePolicyText } from "../policy/_policy_source.ts";
import { bwrapArgs } from "./_sandbox.ts";

/** The usage of the sandbox subcommand. */
export const SANDBOX_USAGE =
  "Usage: gate sandbox --policy FILE [-- COMMAND [ARGS...]]";

/**
 * Runs `sandbox <args>`; resolves with the exit status. `options.path`
 * makes the policy file's name the path to open.
 */
export async function sandboxCommand(
  args: readonly string[],
  options: { path?: (given: string) => string } = {},
): Promise<number> {
  const separator = args.indexOf("--");
  const own = separator === -1 ? args : args.slice(0, separator);
  const command = separator === -1 ? [] : args.slice(separator + 1);
  let policy: string | undefined;
  if (own.length === 2 && own[0] === "--policy") policy = own[1];
  else if (own.length === 1 && own[0].startsWith("--policy=")) {
    policy = own[0].slice("--policy=".length);
  }
  if (policy === undefined || policy === "") {
    console.error(
      `forge gate: Expected sandbox --policy FILE [-- COMMAND], got sandbox ${
        args.join(" ")
      }`,
    );
    return 2;
  }
  const path = (options.path ?? ((given: string) => given))(policy);
  const format = formatForPath(path);
  let file;
  try {
    if (format === undefined) {
      throw new Error(
        "cannot tell the format from the file name (expected .json, .jsonc, .yaml, .yml or .toml)",
      );
    }
    file = parsePolicyText(await Deno.readTextFile(path), format);
  } catch (error) {
    const at = error as { line?: number; column?: number };
    const place = at.line === undefined ? "" : `:${at.line}:${at.column}`;
    console.error(
      `forge gate: Cannot load the policy: ${path}${place}: ${
        messageOf(error)
      }`,
    );
    return 2;
  }
  const fence = await deriveFence({
    rules: file.rules,
    roots: file.roots ?? [],
    command,
    env: file.sandbox?.env ?? [],
  });
  const lines = [
    `fence for ${command.length === 0 ? "a server" : command.join(" ")}${
      file.sandbox === undefined
        ? " (the policy does not say sandbox: true; --sandbox turns it on)"
        : ""
    }:`,
    ...describeFence(fence),
    `bwrap ${bwrapArgs(fence, command).map(quote).join(" ")}`,
  ];
  console.log(lines.join("\n"));
  return 0;
}

/** A word as a shell reads it back. */
function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word)
    ? word
    : `'${word.replaceAll("'", `'\\''`)}'`;
}
