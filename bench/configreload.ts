// deno run -A bench/configreload.ts [--quick]
//
// Figures for configreload/, measured side by side in one run and printed
// as medians (and p99 where a tail matters):
//
// 1. Hashing: crypto.subtle SHA-256 of a 1 MiB buffer, and a whole look at
//    a 1 MiB file (realpath, open, stat, read, hash).
// 2. Latency from a write to `current` changing, over 50 changes, for
//    several `debounceMs` values: what the debounce costs and what the rest
//    of the path (event delivery, read, hash, parse, schema) adds.
// 3. Wake-ups and CPU time of an idle watcher over 10 s, with the default
//    10 s safety-net poll and with the poll off: there must be no busy
//    polling, so the counts are the poll ticks and nothing else.
//
// --quick shortens every part (for a smoke run; figures are then rough).

import process from "node:process";
import { watchConfig } from "../configreload/mod.ts";
import { lookAtFile } from "../configreload/_read_file.ts";
import { WATCH_STATS } from "../configreload/_stats.ts";

const QUICK = Deno.args.includes("--quick");
const MIB = 1024 * 1024;

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function fixed(value: number, digits = 2): string {
  return value.toFixed(digits);
}

async function hashing(dir: string): Promise<void> {
  const bytes = new Uint8Array(MIB);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31 + 7) & 0xff;
  const path = `${dir}/big.bin`;
  await Deno.writeFile(path, bytes);
  const runs = QUICK ? 20 : 200;
  const digest: number[] = [];
  const look: number[] = [];
  // Deno's file reads are several times slower for the first hundred or so
  // calls of a process; warm both paths up before timing.
  for (let i = 0; i < 150; i++) {
    await crypto.subtle.digest("SHA-256", bytes);
    await lookAtFile(path, 2 * MIB);
  }
  // Interleaved, so load on the machine hits both series alike.
  for (let i = 0; i < runs; i++) {
    let start = performance.now();
    await crypto.subtle.digest("SHA-256", bytes);
    digest.push(performance.now() - start);
    start = performance.now();
    await lookAtFile(path, 2 * MIB);
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
    `| look at a 1 MiB file (realpath+open+stat+read+hash) | ${
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
    const wakeups = WATCH_STATS.wakeups;
    const checks = WATCH_STATS.checks;
    const cpu = process.cpuUsage();
    await sleep(windowMs);
    const used = process.cpuUsage(cpu);
    rows.push(
      `| ${pollMs === 0 ? "off" : `${pollMs} ms`} | ${
        WATCH_STATS.wakeups - wakeups
      } | ${WATCH_STATS.checks - checks} | ${
        fixed((used.user + used.system) / 1000, 1)
      } ms |`,
    );
  }
  console.log(`\n## Idle watcher over ${windowMs / 1000} s`);
  console.log(`| pollMs | wake-ups | checks | process CPU time |`);
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
