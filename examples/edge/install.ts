/**
 * Installs the runtimes the edge server is tested on that are not Deno:
 * Bun, workerd and Node's current LTS, from npm, at the versions
 * `_runtimes.ts` pins, into its cache directory (`$FORGE_EDGE_RUNTIMES`,
 * else `$DENO_DIR/forge-edge-runtimes`). Needs `npm`.
 *
 * ```sh
 * deno run -A examples/edge/install.ts
 * deno run -A examples/edge/install.ts --list   # the runtimes found, as JSON
 * ```
 *
 * @module
 */

import { cacheDir, NPM_PACKAGES, targets } from "./_runtimes.ts";

if (import.meta.main && Deno.args[0] === "--list") {
  // For the benchmark, which runs serve.ts and must not import from here.
  console.log(JSON.stringify(targets()));
} else if (import.meta.main) {
  const dir = cacheDir();
  await Deno.mkdir(dir, { recursive: true });
  const { code } = await new Deno.Command("npm", {
    args: [
      "install",
      "--no-audit",
      "--no-fund",
      "--prefix",
      dir,
      ...NPM_PACKAGES,
    ],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) Deno.exit(code);
  console.error(`installed ${NPM_PACKAGES.join(", ")} in ${dir}`);
}
