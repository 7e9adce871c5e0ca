// Test helpers: the edge server started through serve.ts on one runtime,
// and the runtimes the tests start it on (ignored, with the install line in
// the test's name, when one is missing).

import {
  cachedBinary,
  INSTALL_LINE,
  onPath,
  type Runtime,
} from "./_runtimes.ts";
import { spawnUntil, type Started } from "./_spawn.ts";

const SERVE = new URL("serve.ts", import.meta.url).pathname;

/** A runtime to test on: its name in test names, and its binary if any. */
export interface Target {
  readonly label: string;
  readonly runtime: Runtime;
  /** The binary to pass as `--bin`; undefined for the default. */
  readonly bin?: string;
  /** Why it is skipped (the install line), when it is. */
  readonly missing?: string;
}

function target(
  label: string,
  runtime: Runtime,
  bin: string | undefined,
): Target {
  return bin === undefined
    ? { label, runtime, missing: ` (${label} not installed: ${INSTALL_LINE})` }
    : { label, runtime, bin };
}

/** Deno, the machine's Node, Node's current LTS, Bun and workerd. */
export function targets(): Target[] {
  return [
    { label: "Deno", runtime: "deno" },
    target("Node (the machine's)", "node", onPath("node")),
    target("Node (current LTS, npm)", "node", cachedBinary("node")),
    target("Bun", "bun", cachedBinary("bun") ?? onPath("bun")),
    target("workerd", "workerd", cachedBinary("workerd") ?? onPath("workerd")),
  ];
}

/** The edge server running on `target`, at `url`. */
export interface EdgeProcess extends Started {
  readonly url: string;
}

/** Starts the edge server through serve.ts on `target`, on a free port. */
export async function startEdge(
  target: Target,
  env: Record<string, string> = {},
): Promise<EdgeProcess> {
  const args = ["run", "-A", SERVE, "--runtime", target.runtime, "--port", "0"];
  if (target.bin !== undefined) args.push("--bin", target.bin);
  const { started, value: url } = await spawnUntil(
    Deno.execPath(),
    args,
    (line) => /^listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/.exec(line)?.[1],
    { env },
  );
  return { ...started, url };
}
