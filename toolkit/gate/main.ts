// The gate's command line: `deno task gate -- --policy policy.yaml -- <server>`.
// Usage and start-up errors exit 2; afterwards the exit status is the gate's
// `finished` (see gate.ts). Stdout carries JSON-RPC only.

import { parseCommandLine, USAGE, UsageError } from "./_cli.ts";
import { auditCommand } from "./_audit_command.ts";
import { pinsCommand } from "./_pins_command.ts";
import { startGate } from "./gate.ts";

async function main(args: readonly string[]): Promise<number> {
  // `deno task gate -- audit verify FILE` passes its own "--" through.
  const rest = args[0] === "--" ? args.slice(1) : args;
  if (rest[0] === "audit") return await auditCommand(rest.slice(1));
  if (rest[0] === "pins") return await pinsCommand(rest.slice(1));
  let line;
  try {
    line = parseCommandLine(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    // One line: the usage is for --help, not for every typo.
    console.error(`forge gate: ${error.message} (see --help)`);
    return 2;
  }
  if (line.help) {
    // Asked for: on stdout, where no JSON-RPC session is running.
    console.log(USAGE);
    return 0;
  }
  let gate;
  try {
    gate = await startGate(line.command, {
      policy: line.policy,
      audit: line.audit,
      auditAnchor: line.auditAnchor,
      unprobed: line.unprobed,
      pins: line.pins,
      newTools: line.newTools,
      url: line.url,
      headers: line.headers,
    });
  } catch (error) {
    console.error(
      `forge gate: ${error instanceof Error ? error.message : String(error)}`,
    );
    return 2;
  }
  const stop = () => gate.close();
  const signals: Deno.Signal[] = Deno.build.os === "windows"
    ? ["SIGINT"]
    : ["SIGTERM", "SIGINT"];
  for (const signal of signals) Deno.addSignalListener(signal, stop);
  return await gate.finished;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
