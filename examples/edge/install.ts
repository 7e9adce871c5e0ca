/**
 * Installs the runtimes the edge server is tested on that are not Deno:
 * Bun, workerd and Node's current LTS, from npm, at the versions
 * `_runtimes.ts` pins, into its cache directory (`$FORGE_EDGE_RUNTIMES`,
 * else `$DENO_DIR/forge-edge-runtimes`). Needs `npm`.
 *
 * ```sh
 * deno run -A examples/edge/install.ts
 * ```
 *
 * @module
 */

import { cacheDir, NPM_PACKAGES } from "./_runtimes.ts";

if (import.meta.main) {
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
