// cd bench && deno run -A configreload.ts [--quick]
//
// Figures for configreload/, measured side by side in one run and printed
// as medians (and p99 where a tail matters):
//
// 1. Hashing: crypto.subtle SHA-256 of a 1 MiB buffer, and a reload() of an
//    unchanged 1 MiB file (a whole look: realpath, open, stat, read, hash;
//    the bytes did not change, so nothing is parsed).
// 2. Latency from a write to `current` changing, over 50 changes, for
//    several `debounceMs` values: what the debounce costs and what the rest
//    of the path (event delivery, read, hash, parse, schema) adds.
// 3. Wake-ups and CPU time of an idle watcher over 10 s, with the default
//    10 s safety-net poll and with the poll off: there must be no busy
//    polling, so the counts are the poll ticks and nothing else. Wake-ups
//    are seen from outside, through the globals the watcher calls: every
//    timer callback that fires (debounce, poll, grace) and every file it
//    opens (one per check), so the figures need nothing private.
//
// --quick shortens every part (for a smoke run; figures are then rough).

import process from "node:process";
import { watchConfig } from "@forge/toolkit/configreload";

const QUICK = Deno.args.includes("--quick");
const MIB = 1024 * 1024;

/** Timer callbacks fired and files opened, process-wide, since start. */
const SEEN = { timers: 0, opens: 0 };
const realSetTimeout = globalThis.setTimeout;
const realSetInterval = globalThis.setInterval;
const realOpen = Deno.open;

// Counting wrappers: the same timers and files, one increment more. Timer
// ids are the real ones, so clearTimeout and clearInterval keep working.
function counted(callback: unknown): unknown {
  if (typeof callback !== "function") return callback;
  return (...args: unknown[]) => {
    SEEN.timers++;
    return callback(...args);
  };
}
globalThis.setTimeout =
  ((callback: unknown, ...rest: unknown[]) =>
    realSetTimeout(
      counted(callback) as () => void,
      ...rest as [number],
    )) as typeof setTimeout;
globalThis.setInterval =
  ((callback: unknown, ...rest: unknown[]) =>
    realSetInterval(
      counted(callback) as () => void,
      ...rest as [number],
    )) as typeof setInterval;
(Deno as { open: typeof Deno.open }).open = (path, options) => {
  SEEN.opens++;
  return realOpen(path, options);
};

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}

// The real setTimeout, so the bench's own waits are not counted.
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => realSetTimeout(resolve, ms));
}

function fixed(value: number, digits = 2): string {
  return value.toFixed(digits);
}

// A 1 MiB JSON document (one long string), so the watcher can load it once;
// later reloads find the same bytes and stop after the hash.
function megabyteOfJson(): Uint8Array<ArrayBuffer> {
  const head = '{"blob":"';
  const tail = '"}';
  const bytes = new Uint8Array(MIB);
  bytes.set(new TextEncoder().encode(head));
  for (let i = head.length; i < MIB - tail.length; i++) {
    bytes[i] = 0x61 + ((i * 31 + 7) % 26);
  }
  bytes.set(new TextEncoder().encode(tail), MIB - tail.length);
  return bytes;
}

async function hashing(dir: string): Promise<void> {
  const bytes = megabyteOfJson();
  const path = `${dir}/big.json`;
  await Deno.writeFile(path, bytes);
  await using watcher = await watchConfig(path, {
    pollMs: 0,
    fsEvents: false,
    reloadOnSignal: false,
  });
  const runs = QUICK ? 20 : 200;
  const digest: number[] = [];
  const look: number[] = [];
  // Deno's file reads are several times slower for the first hundred or so
  // calls of a process; warm both paths up before timing.
  for (let i = 0; i < 150; i++) {
    await crypto.subtle.digest("SHA-256", bytes);
    await watcher.reload();
  }
  // Interleaved, so load on the machine hits both series alike.
  for (let i = 0; i < runs; i++) {
    let start = performance.now();
    await crypto.subtle.digest("SHA-256", bytes);
    digest.push(performance.now() - start);
    start = performance.now();
    await watcher.reload();
    look.push(performance.now() - start);
  }
  const digestMs = percentile(digest, 50);
  const lookMs = percentile(look, 50);
  console.log(`\n## Hashing 1 MiB (${runs} runs, medians)`);
  console.log(`| what | median | throughput |`);
  console.log(`|---|---|---|`);
  console.log(
    `| crypto.subtle SHA-256 of a 1 MiB buffer | ${fixed(digestMs, 3)} ms | ${
      fixed(1000 / digestMs, 0)
    } MiB/s |`,
  );
  console.log(
    `| reload() of an unchanged 1 MiB file (realpath+open+stat+read+hash) | ${
      fixed(lookMs, 3)
    } ms | ${fixed(1000 / lookMs, 0)} MiB/s |`,
  );
}

async function latency(dir: string): Promise<void> {
  const changes = QUICK ? 10 : 50;
  const rows: string[] = [];
  for (const debounceMs of [0, 50, 150]) {
    const path = `${dir}/latency_${debounceMs}.json`;
    await Deno.writeTextFile(path, JSON.stringify({ n: -1 }));
    await using watcher = await watchConfig<{ n: number }>(path, {
      debounceMs,
      pollMs: 0,
    });
    let arrived: (() => void) | undefined;
    watcher.subscribe((event) => {
      if (event.type === "change") arrived?.();
    });
    const samples: number[] = [];
    for (let i = -3; i < changes; i++) {
      const seen = new Promise<void>((resolve) => arrived = resolve);
      const start = performance.now();
      await Deno.writeTextFile(path, JSON.stringify({ n: i }));
      await seen;
      // The first three are warm-up.
      if (i >= 0) samples.push(performance.now() - start);
      // Quiet time, so each write is a burst of its own.
      await sleep(debounceMs + 30);
    }
    const p50 = percentile(samples, 50);
    const p99 = percentile(samples, 99);
    rows.push(
      `| ${debounceMs} ms | ${fixed(p50)} ms | ${fixed(p99)} ms | ${
        fixed(p50 - debounceMs)
      } ms |`,
    );
  }
  console.log(`\n## Write → current changed (${changes} changes each)`);
  console.log(`| debounceMs | p50 | p99 | p50 minus debounce |`);
  console.log(`|---|---|---|---|`);
  for (const row of rows) console.log(row);
}

async function idle(dir: string): Promise<void> {
  const windowMs = QUICK ? 2000 : 10_000;
  const rows: string[] = [];
  for (const pollMs of [10_000, 0]) {
    const path = `${dir}/idle_${pollMs}.json`;
    await Deno.writeTextFile(path, JSON.stringify({ idle: true }));
    await using _watcher = await watchConfig(path, { pollMs });
    // Start the window 1 s in, so a 10 s poll tick falls inside it.
    await sleep(1000);
    const timers = SEEN.timers;
    const opens = SEEN.opens;
    const cpu = process.cpuUsage();
    await sleep(windowMs);
    const used = process.cpuUsage(cpu);
    rows.push(
      `| ${pollMs === 0 ? "off" : `${pollMs} ms`} | ${SEEN.timers - timers} | ${
        SEEN.opens - opens
      } | ${fixed((used.user + used.system) / 1000, 1)} ms |`,
    );
  }
  console.log(`\n## Idle watcher over ${windowMs / 1000} s`);
  console.log(
    `| pollMs | timer wake-ups | file opens (checks) | process CPU time |`,
  );
  console.log(`|---|---|---|---|`);
  for (const row of rows) console.log(row);
}

const dir = await Deno.makeTempDir({ prefix: "configreload_bench_" });
try {
  console.log(
    `# configreload — Deno ${Deno.version.deno}, ${Deno.build.os}/${Deno.build.arch}, ${navigator.hardwareConcurrency} cores`,
  );
  await hashing(dir);
  await latency(dir);
  await idle(dir);
} finally {
  await Deno.remove(dir, { recursive: true });
}
