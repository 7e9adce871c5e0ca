// The gate under test, as a user runs it: `startGate()` from the public
// entry between this process's stdio and a server it spawns, with a policy
// file (loaded and watched, as `forge gate --policy` does).
//
//   deno run -A gate_proxy.ts <policy file> -- <server command...>
import { startGate } from "@forge/toolkit/gate";

const [policy, separator, ...command] = Deno.args;
if (policy === undefined || separator !== "--" || command.length === 0) {
  console.error(
    "Usage: deno run -A gate_proxy.ts <policy file> -- <server command...>",
  );
  Deno.exit(2);
}
const gate = await startGate(command, { policy });
Deno.addSignalListener("SIGTERM", () => gate.close());
Deno.exit(await gate.finished);
