// Test helpers: the edge server started through serve.ts on one runtime.

import type { Target } from "./_runtimes.ts";
import { spawnUntil, type Started } from "./_spawn.ts";

export { type Target, targets } from "./_runtimes.ts";

const SERVE = new URL("serve.ts", import.meta.url).pathname;

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
