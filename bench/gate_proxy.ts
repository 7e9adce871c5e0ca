// The gate under test, as a user runs it: `startGate()` from the public
// entry between this process's stdio and a server it spawns, with a policy
// file (loaded and watched, as `forge gate --policy` does).
//
//   deno run -A gate_proxy.ts <policy file> [--audit FILE] -- <server command...>
import { startGate } from "@forge/toolkit/gate";

const [policy, ...rest] = Deno.args;
const audit = rest[0] === "--audit" ? rest[1] : undefined;
const [separator, ...command] = audit === undefined ? rest : rest.slice(2);
if (policy === undefined || separator !== "--" || command.length === 0) {
  console.error(
    "Usage: deno run -A gate_proxy.ts <policy file> [--audit FILE] -- <server command...>",
  );
  Deno.exit(2);
}
const gate = await startGate(command, { policy, audit });
Deno.addSignalListener("SIGTERM", () => gate.close());
Deno.exit(await gate.finished);
