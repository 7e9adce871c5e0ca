/**
 * What each HTTP transport the toolkit could run on costs: the SDK v1
 * transport as `@forge/toolkit/http` uses it today (2025-11-25 sessions),
 * the toolkit's own 2026-07-28 path, the SDK v2 package's transports
 * (`@modelcontextprotocol/server`) with the toolkit's server behind them,
 * and v2 on its own. Three figures per variant, each a median:
 *
 * - **start-up**: a cold `deno run` of `transports/<variant>.ts`, which
 *   imports its modules, builds the server, answers one `tools/call`
 *   in process and prints when; runs interleaved, one warm-up each so
 *   Deno's transpile cache is not counted;
 * - **per call**: one checked `tools/call` in process (no socket), the
 *   variants interleaved round by round;
 * - **dependencies**: the npm packages in the variant's module graph
 *   (`deno info --json`, closed over their dependencies) and their bytes
 *   on disk in DENO_DIR, beside the toolkit's own modules in the graph.
 *
 * ```sh
 * cd bench
 * deno run -A http_transports.ts                  # all three tables
 * deno run -A http_transports.ts --runs 31 --rounds 60
 * deno run -A http_transports.ts --only deps      # or startup, calls
 * ```
 *
 * @module
 */

import { median, rotate } from "./_stats.ts";
import { BENCH_CONFIG, BENCH_DIR } from "./_servers.ts";
import type { Caller } from "./transports/_requests.ts";
import { open as openFloor } from "./transports/floor.ts";
import { open as openV1Sessions } from "./transports/v1_sessions.ts";
import { open as openToolkit2026 } from "./transports/toolkit_2026.ts";
import { open as openV2Sessions } from "./transports/v2_sessions.ts";
import { open as openV22026 } from "./transports/v2_2026.ts";
import { open as openV2Native } from "./transports/v2_native.ts";

/** One transport variant. */
export interface Variant {
  /** Its file under `transports/`, without `.ts`. */
  id: string;
  /** The row's label. */
  label: string;
  /** Opens it in this process; import-only variants have none. */
  open?: () => Promise<Caller>;
}

/**
 * The variants: Deno alone and the floor (the toolkit's server, no HTTP
 * module) first, then the transports, then each SDK's module alone.
 */
export const VARIANTS: readonly Variant[] = [
  { id: "empty", label: "Deno alone (empty script)" },
  { id: "floor", label: "floor: no HTTP (in-memory client)", open: openFloor },
  {
    id: "v1_sessions",
    label: "SDK v1 transport, 2025 session (today)",
    open: openV1Sessions,
  },
  {
    id: "toolkit_2026",
    label: "toolkit's own _stateless.ts, 2026 (today)",
    open: openToolkit2026,
  },
  {
    id: "v2_sessions",
    label: "SDK v2 transport + toolkit, 2025 session",
    open: openV2Sessions,
  },
  {
    id: "v2_2026",
    label: "SDK v2 per-request + toolkit, 2026",
    open: openV22026,
  },
  {
    id: "v2_native",
    label: "SDK v2 createMcpHandler + McpServer, 2026",
    open: openV2Native,
  },
  { id: "v1_import", label: "SDK v1 transport module alone, import only" },
  { id: "v2_import", label: "SDK v2 package alone, import only" },
];

/** A cold start's figures, in milliseconds. */
export interface ColdStart {
  /** From the process's time origin to the end of its imports. */
  importedMs: number;
  /** To the first answer. */
  firstAnswerMs: number;
  /** Spawn to exit, as the parent saw it. */
  wallMs: number;
}

/** Runs `transports/<id>.ts` once as a cold process. */
export async function coldStart(id: string): Promise<ColdStart> {
  const started = performance.now();
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      BENCH_CONFIG,
      `${BENCH_DIR}/transports/${id}.ts`,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const wallMs = performance.now() - started;
  const stdout = new TextDecoder().decode(output.stdout).trim();
  if (!output.success) {
    throw new Error(
      `Cold start of ${id} failed (${output.code}): ${
        new TextDecoder().decode(output.stderr)
      }`,
    );
  }
  const figures = JSON.parse(stdout.split("\n").at(-1)!);
  return { ...figures, wallMs };
}

/** The npm packages a module graph pulls in, and the toolkit's own modules. */
export interface GraphSize {
  /** npm packages, each `name@version`, closed over their dependencies. */
  packages: string[];
  /** Their bytes on disk (the unpacked packages in DENO_DIR). */
  packageBytes: number;
  /** Local modules (the toolkit's and the bench's own files). */
  localModules: number;
  /** Their bytes of source. */
  localBytes: number;
}

interface DenoInfo {
  modules: {
    kind: string;
    specifier: string;
    size?: number;
    npmPackage?: string;
  }[];
  npmPackages: Record<
    string,
    {
      name: string;
      version: string;
      dependencies: string[];
      localPath?: string;
    }
  >;
}

/**
 * Sums a `deno info --json` graph: the npm packages its modules import,
 * with every package those depend on, and the local modules. `bytesOf`
 * gives a package's bytes on disk from its `localPath`.
 */
export async function graphSize(
  info: DenoInfo,
  bytesOf: (localPath: string) => Promise<number>,
): Promise<GraphSize> {
  const seen = new Set<string>();
  const pending = info.modules.flatMap((module) =>
    module.kind === "npm" && module.npmPackage !== undefined
      ? [module.npmPackage]
      : []
  );
  while (pending.length > 0) {
    const key = pending.pop()!;
    if (seen.has(key)) continue;
    seen.add(key);
    const entry = info.npmPackages[key];
    if (entry === undefined) {
      throw new Error(`deno info names npm package ${key} but not its entry`);
    }
    pending.push(...entry.dependencies);
  }
  let packageBytes = 0;
  const packages: string[] = [];
  for (const key of seen) {
    const entry = info.npmPackages[key];
    packages.push(`${entry.name}@${entry.version}`);
    if (entry.localPath !== undefined) {
      packageBytes += await bytesOf(entry.localPath);
    }
  }
  const local = info.modules.filter((module) =>
    module.specifier.startsWith("file:")
  );
  return {
    packages: packages.sort(),
    packageBytes,
    localModules: local.length,
    localBytes: local.reduce((sum, module) => sum + (module.size ?? 0), 0),
  };
}

/** The bytes of every file under `dir`. */
export async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) total += await directoryBytes(path);
    else if (entry.isFile) total += (await Deno.stat(path)).size;
  }
  return total;
}

/** The graph of `transports/<id>.ts`, as this bench's config resolves it. */
export async function variantGraph(id: string): Promise<GraphSize> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "info",
      "--json",
      "--config",
      BENCH_CONFIG,
      `${BENCH_DIR}/transports/${id}.ts`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(
      `deno info of ${id} failed: ${new TextDecoder().decode(output.stderr)}`,
    );
  }
  const info = JSON.parse(new TextDecoder().decode(output.stdout));
  return await graphSize(info, directoryBytes);
}

function ms(value: number): string {
  return `${value.toFixed(1)} ms`;
}

function table(head: string[], rows: string[][]): string {
  const widths = head.map((cell, i) =>
    Math.max(cell.length, ...rows.map((row) => row[i].length))
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(" | ")} |`;
  return [
    line(head),
    `| ${widths.map((width) => "-".repeat(width)).join(" | ")} |`,
    ...rows.map(line),
  ].join("\n");
}

async function startupTable(runs: number): Promise<void> {
  const samples = new Map<string, ColdStart[]>(
    VARIANTS.map((variant) => [variant.id, []]),
  );
  // Warm-up: the first run of a file transpiles it into DENO_DIR.
  for (const variant of VARIANTS) await coldStart(variant.id);
  for (let run = 0; run < runs; run++) {
    for (const variant of rotate(VARIANTS, run)) {
      samples.get(variant.id)!.push(await coldStart(variant.id));
    }
  }
  const floor = median(samples.get("floor")!.map((s) => s.firstAnswerMs));
  console.log(
    `\nStart-up, medians of ${runs} cold processes each (ms since the process's time origin):\n`,
  );
  console.log(table(
    ["variant", "imports done", "first answer", "vs. floor", "spawn to exit"],
    VARIANTS.map((variant) => {
      const runs = samples.get(variant.id)!;
      const first = median(runs.map((s) => s.firstAnswerMs));
      const answers = variant.open !== undefined;
      return [
        variant.label,
        ms(median(runs.map((s) => s.importedMs))),
        answers ? ms(first) : "—",
        answers ? `+${(first - floor).toFixed(1)} ms` : "—",
        ms(median(runs.map((s) => s.wallMs))),
      ];
    }),
  ));
}

async function callTable(rounds: number, perRound: number): Promise<void> {
  const callers = new Map<string, Caller>();
  const timed = VARIANTS.filter((variant) => variant.open !== undefined);
  for (const variant of timed) {
    const caller = await variant.open!();
    // Warm-up: JIT and the first session's one-off work.
    for (let i = 0; i < 200; i++) await caller.call();
    callers.set(variant.id, caller);
  }
  const samples = new Map<string, number[]>(
    timed.map((variant) => [variant.id, []]),
  );
  for (let round = 0; round < rounds; round++) {
    for (const variant of rotate(timed, round)) {
      const caller = callers.get(variant.id)!;
      const values = samples.get(variant.id)!;
      for (let i = 0; i < perRound; i++) {
        const started = performance.now();
        await caller.call();
        values.push(performance.now() - started);
      }
    }
  }
  const base = median(samples.get("v1_sessions")!);
  console.log(
    `\nPer call, in process: medians of ${
      rounds * perRound
    } tools/call each, interleaved:\n`,
  );
  console.log(table(
    ["variant", "median", "vs. SDK v1 today"],
    timed.map((variant) => {
      const value = median(samples.get(variant.id)!);
      return [
        variant.label,
        `${(value * 1000).toFixed(0)} µs`,
        `${(value / base).toFixed(2)}×`,
      ];
    }),
  ));
}

async function dependencyTable(): Promise<void> {
  console.log(
    "\nDependencies: npm packages in each graph (deno info --json, closed over their dependencies), bytes on disk:\n",
  );
  const rows: string[][] = [];
  const lists: string[] = [];
  for (const variant of VARIANTS) {
    const size = await variantGraph(variant.id);
    rows.push([
      variant.label,
      String(size.packages.length),
      `${(size.packageBytes / 1024 / 1024).toFixed(1)} MiB`,
      `${size.localModules} (${(size.localBytes / 1024).toFixed(0)} KiB)`,
    ]);
    const shown = size.packages.length <= 12
      ? size.packages.join(", ") || "none"
      : `${size.packages.slice(0, 12).join(", ")} and ${
        size.packages.length - 12
      } more`;
    lists.push(`  ${variant.id}: ${shown}`);
  }
  console.log(table(
    ["variant", "npm packages", "their bytes", "local modules"],
    rows,
  ));
  console.log(`\nPackages:\n${lists.join("\n")}`);
}

function flag(args: readonly string[], name: string, fallback: number): number {
  const index = args.indexOf(name);
  if (index === -1) return fallback;
  const value = Number(args[index + 1]);
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(
      `Invalid ${name}: expected a whole number >= 1, got ${
        JSON.stringify(args[index + 1])
      }`,
    );
  }
  return value;
}

if (import.meta.main) {
  const args = Deno.args;
  const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : "";
  if (!["", "startup", "calls", "deps"].includes(only)) {
    console.error(
      `Invalid --only: expected startup, calls or deps, got ${
        JSON.stringify(only)
      }`,
    );
    Deno.exit(2);
  }
  console.log(
    `${Deno.version.deno}, ${navigator.hardwareConcurrency} cores, load ${
      Deno.loadavg().map((load) => load.toFixed(2)).join(" ")
    }`,
  );
  if (only === "" || only === "deps") await dependencyTable();
  if (only === "" || only === "startup") {
    await startupTable(flag(args, "--runs", 15));
  }
  if (only === "" || only === "calls") {
    await callTable(flag(args, "--rounds", 40), 50);
  }
}
