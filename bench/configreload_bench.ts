// deno bench -A bench/configreload_bench.ts
//
// The cost of one look at a config file: SHA-256 of 1 MiB with
// crypto.subtle (throughput = 1 MiB / time per iteration), reading and
// hashing a 1 MiB file, and a whole reload() of a typical small config whose
// bytes did not change (the work a touch, a sibling's event or a poll costs).

import { watchConfig } from "../configreload/mod.ts";
import { lookAtFile, sha256Hex } from "../configreload/_read_file.ts";

const MIB = 1024 * 1024;
const dir = await Deno.makeTempDir();
const big = new Uint8Array(MIB);
for (let i = 0; i < big.length; i++) big[i] = (i * 31 + 7) & 0xff;
const bigPath = `${dir}/big.json`;
await Deno.writeFile(bigPath, big);

const smallPath = `${dir}/small.json`;
const small = {
  server: { host: "127.0.0.1", port: 8080 },
  tools: Array.from(
    { length: 40 },
    (_, i) => ({ name: `tool_${i}`, enabled: i % 2 === 0 }),
  ),
};
await Deno.writeTextFile(smallPath, JSON.stringify(small, null, 2));
const watcher = await watchConfig(smallPath, { pollMs: 0, fsEvents: false });

Deno.bench(
  "crypto.subtle SHA-256 of 1 MiB",
  { group: "hash", baseline: true },
  async () => {
    await crypto.subtle.digest("SHA-256", big);
  },
);

Deno.bench(
  "sha256Hex() of 1 MiB (digest + hex)",
  { group: "hash" },
  async () => {
    await sha256Hex(big);
  },
);

Deno.bench("lookAtFile() of a 1 MiB file (realpath, open, read, hash)", {
  group: "hash",
}, async () => {
  await lookAtFile(bigPath, 2 * MIB);
});

Deno.bench("reload() of an unchanged 2 KiB config", async () => {
  await watcher.reload();
});

globalThis.addEventListener("unload", () => {
  watcher.close();
  Deno.removeSync(dir, { recursive: true });
});
