// The gate's command line: `deno task gate -- --policy policy.yaml -- <server>`.
// Usage and start-up errors exit 2; afterwards the exit status is the gate's
// `finished` (see gate.ts). Stdout carries JSON-RPC only.

import { parseCommandLine, USAGE, UsageError } from "./_cli.ts";
import { auditCommand } from "./audit/_audit_command.ts";
import { pinsCommand } from "./pins/_pins_command.ts";
import { casesCommand } from "./policy/_cases_command.ts";
import { replayCommand } from "./audit/_replay_command.ts";
import { sandboxCommand } from "./upstream/_sandbox_command.ts";
import { startGate } from "./gate.ts";
import { takeTypedIn, userPath } from "./_user_path.ts";

async function main(args: readonly string[]): Promise<number> {
  // `deno task gate -- audit verify FILE` passes its own "--" through.
  const rest = args[0] === "--" ? args.slice(1) : args;
  // Files named on the command line are the user's, relative to where the
  // command was typed (_user_path.ts); the server's command is its own.
  const typedIn = takeTypedIn();
  const given = (path: string) => userPath(path, typedIn);
  if (rest[0] === "audit") {
    return await auditCommand(rest.slice(1), { path: given });
  }
  if (rest[0] === "test") {
    return await casesCommand(rest.slice(1), { path: given });
  }
  if (rest[0] === "replay") {
    return await replayCommand(rest.slice(1), { path: given });
  }
  if (rest[0] === "pins") {
    const [action, file, ...more] = rest.slice(1);
    return await pinsCommand(
      file === undefined ? rest.slice(1) : [action, given(file), ...more],
    );
  }
  if (rest[0] === "sandbox") {
    return await sandboxCommand(rest.slice(1), { path: given });
  }
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
    const maybe = (path: string | undefined) =>
      path === undefined ? undefined : given(path);
    gate = await startGate(line.command, {
      policy: given(line.policy),
      audit: maybe(line.audit),
      auditAnchor: maybe(line.auditAnchor),
      unprobed: line.unprobed,
      pins: maybe(line.pins),
      newTools: line.newTools,
      url: line.url,
      headers: line.headers,
      ...(line.sandbox ? { sandbox: true } : {}),
      ...(line.http === undefined ? {} : { listen: line.http }),
      ...(line.redis === undefined ? {} : { redis: line.redis }),
      ...approverClient(),
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

/** The approvers' sign-in client, from the environment when it names one. */
function approverClient(): {
  approverClient?: { id: string; secret?: string };
} {
  const read = (name: string) =>
    Deno.permissions.querySync({ name: "env", variable: name }).state ===
        "granted"
      ? Deno.env.get(name)
      : undefined;
  const id = read("FORGE_GATE_APPROVER_CLIENT_ID");
  if (id === undefined || id === "") return {};
  const secret = read("FORGE_GATE_APPROVER_CLIENT_SECRET");
  return {
    approverClient: { id, ...(secret ? { secret } : {}) },
  };
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
