// cd bench && deno bench -A configreload_bench.ts
//
// The cost of one look at a config file: SHA-256 of 1 MiB with
// crypto.subtle (throughput = 1 MiB / time per iteration), a reload() of an
// unchanged 1 MiB file (read and hash, nothing parsed), and a reload() of a
// typical small config whose bytes did not change (the work a touch, a
// sibling's event or a poll costs). Only the public entry is used, so the
// look at the file is timed inside reload().

import { watchConfig } from "@forge/toolkit/configreload";

const MIB = 1024 * 1024;
const dir = await Deno.makeTempDir();
// A 1 MiB JSON document (one long string) that hashes the same every time.
const big = new TextEncoder().encode(
  JSON.stringify({ blob: "a".repeat(MIB - '{"blob":""}'.length) }),
);
const bigPath = `${dir}/big.json`;
await Deno.writeFile(bigPath, big);
const bigWatcher = await watchConfig(bigPath, {
  pollMs: 0,
  fsEvents: false,
  reloadOnSignal: false,
});

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

Deno.bench("reload() of an unchanged 1 MiB file (realpath, open, read, hash)", {
  group: "hash",
}, async () => {
  await bigWatcher.reload();
});

Deno.bench("reload() of an unchanged 2 KiB config", async () => {
  await watcher.reload();
});

globalThis.addEventListener("unload", () => {
  watcher.close();
  bigWatcher.close();
  Deno.removeSync(dir, { recursive: true });
});
