/**
 * The stdio harness: the same `echo` tool served by the toolkit, the bare
 * SDK, fastmcp, tmcp and a hand-written loop, under Deno and Node, measured
 * side by side by one raw JSON-RPC client, in alternating rounds.
 *
 * ```sh
 * deno task bench            # the full run, about 4 minutes
 * deno task bench --quick    # a smoke run, about a minute
 * deno task bench --help     # every option
 * ```
 *
 * Prints the machine, the table (medians; ratios against the raw Deno loop
 * of the same run in parentheses), the issue's targets checked against the
 * toolkit's figures, and a CPU profile of the toolkit's call path next to
 * the bare SDK's and the raw loop's.
 *
 * @module
 */

import { coldStart, runSession, type SessionPlan } from "./_measure.ts";
import { profileServer, renderProfile } from "./_profile_server.ts";
import {
  checkTargets,
  renderStartup,
  renderTable,
  renderTargets,
  type ServerRecord,
  type StartupRow,
  summarize,
} from "./_report.ts";
import {
  checkoutServer,
  importCostCatalogue,
  NODE_DIR,
  serverCatalogue,
  type ServerSpec,
} from "./_servers.ts";
import { median, rotate } from "./_stats.ts";

/** What one run does. */
export interface HarnessOptions {
  /** Alternating rounds: every server gets one session per round. */
  rounds: number;
  /** Extra cold starts per server per round, besides each session's own. */
  coldStarts: number;
  /** Alternating rounds of the start-up probes (0 skips them). */
  importRounds: number;
  /** The work of one session. */
  plan: SessionPlan;
  /** Only these server ids (all when undefined). */
  only: string[] | undefined;
  /** Other checkouts whose toolkit echo server runs beside this tree's. */
  compare: string[];
  /** Also write the figures as JSON here. */
  json: string | undefined;
  /** Profile the Deno servers' call paths after the table. */
  profile: boolean;
  /** Whether this is the `--quick` smoke run. */
  quick: boolean;
}

const FULL: Omit<HarnessOptions, "only" | "json" | "compare"> = {
  rounds: 5,
  coldStarts: 3,
  importRounds: 10,
  profile: true,
  quick: false,
  plan: {
    warmup: 2000,
    sequential: 2000,
    pipelined: 20_000,
    inFlight: 64,
    big: 5,
    bigBytes: 1 << 20,
    probe: 500,
    eofInFlight: 64,
  },
};

const QUICK: Omit<HarnessOptions, "only" | "json" | "compare"> = {
  rounds: 2,
  coldStarts: 1,
  importRounds: 3,
  profile: false,
  quick: true,
  plan: {
    warmup: 200,
    sequential: 2000,
    pipelined: 5000,
    inFlight: 64,
    big: 2,
    bigBytes: 1 << 20,
    probe: 200,
    eofInFlight: 64,
  },
};

const USAGE = `Usage: deno task bench [options]

  --quick            a smoke run (2 rounds, fewer calls, no profile), about a minute
  --rounds=N         alternating rounds (default 5; --quick: 2)
  --only=ID,ID       only these servers (ids: ${
  serverCatalogue().map((s) => s.id).join(", ")
})
  --json=PATH        also write every figure as JSON to PATH
  --compare=DIR,DIR  also run the toolkit echo server of these checkouts
                     (before/after a change), side by side
  --profile          profile the Deno servers' call paths (default in full runs)
  --no-profile       skip the profile
  --help             this text`;

/**
 * Reads the command line; a wrong option is a `TypeError` and an impossible
 * number a `RangeError`, each naming what was expected.
 *
 * @example
 * ```ts
 * import { parseOptions } from "./stdio.ts";
 *
 * parseOptions(["--quick", "--only=toolkit,raw-deno"]).rounds; // 2
 * ```
 */
export function parseOptions(args: readonly string[]): HarnessOptions {
  const base = args.includes("--quick") ? QUICK : FULL;
  const options: HarnessOptions = {
    ...base,
    plan: { ...base.plan },
    only: undefined,
    json: undefined,
    compare: [],
  };
  const known = new Set(serverCatalogue().map((s) => s.id));
  for (const arg of args) {
    const [flag, value] = arg.includes("=")
      ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
      : [arg, undefined];
    switch (flag) {
      case "--quick":
        break;
      case "--profile":
        options.profile = true;
        break;
      case "--no-profile":
        options.profile = false;
        break;
      case "--rounds": {
        const rounds = Number(value);
        if (!Number.isInteger(rounds) || rounds < 1 || rounds > 100) {
          throw new RangeError(
            `Invalid --rounds: expected an integer from 1 to 100, got ${
              JSON.stringify(value ?? "")
            }`,
          );
        }
        options.rounds = rounds;
        break;
      }
      case "--only": {
        const ids = (value ?? "").split(",").filter((id) => id !== "");
        const unknown = ids.filter((id) => !known.has(id));
        if (ids.length === 0 || unknown.length > 0) {
          throw new TypeError(
            `Invalid --only: unknown server ${
              JSON.stringify(unknown[0] ?? "")
            }: expected ids from ${[...known].join(", ")}`,
          );
        }
        options.only = ids;
        break;
      }
      case "--compare": {
        const dirs = (value ?? "").split(",").filter((d) => d !== "");
        if (dirs.length === 0) {
          throw new TypeError(
            "Invalid --compare: expected --compare=DIR[,DIR] (checkouts of this repository)",
          );
        }
        for (const dir of dirs) {
          const server = checkoutServer(dir).command.at(-1)!;
          try {
            Deno.statSync(server);
          } catch {
            throw new TypeError(
              `Invalid --compare: not a checkout with a toolkit echo server: ${dir} (expected ${server})`,
            );
          }
        }
        options.compare = dirs;
        break;
      }
      case "--json":
        if (!value) {
          throw new TypeError("Invalid --json: expected --json=PATH");
        }
        options.json = value;
        break;
      default:
        throw new TypeError(
          `Unknown option: ${arg}: expected one of --quick, --rounds=N, --only=IDS, --compare=DIRS, --json=PATH, --profile, --no-profile, --help`,
        );
    }
  }
  return options;
}

async function output(command: string[], cwd?: string): Promise<string> {
  const result = await new Deno.Command(command[0], {
    args: command.slice(1),
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!result.success) {
    throw new Error(
      `${command.join(" ")} failed: ${
        new TextDecoder().decode(result.stderr).trim().split("\n").at(-1)
      }`,
    );
  }
  return new TextDecoder().decode(result.stdout).trim();
}

/** Installs the Node peers from the lockfile when they are missing; returns Node's version or why it cannot run. */
async function prepareNode(): Promise<{ version?: string; problem?: string }> {
  let version: string;
  try {
    version = await output(["node", "--version"]);
  } catch {
    return { problem: "node is not installed" };
  }
  try {
    await Deno.stat(`${NODE_DIR}/node_modules/.package-lock.json`);
  } catch {
    console.error("Installing the Node peers (npm ci in bench/node)…");
    try {
      await output(["npm", "ci", "--no-audit", "--no-fund"], NODE_DIR);
    } catch (cause) {
      return { version, problem: `npm ci failed: ${(cause as Error).message}` };
    }
  }
  return { version };
}

async function machine(nodeVersion: string | undefined): Promise<string> {
  let cpu = "unknown CPU";
  try {
    const info = await Deno.readTextFile("/proc/cpuinfo");
    cpu = /^model name\s*:\s*(.+)$/m.exec(info)?.[1] ?? cpu;
  } catch {
    // Not Linux: the core count below still says something.
  }
  const memory = Deno.systemMemoryInfo();
  return [
    `- machine: ${cpu}, ${navigator.hardwareConcurrency} cores, ${
      (memory.total / 2 ** 30).toFixed(1)
    } GiB, ${Deno.build.os} ${Deno.osRelease()}`,
    `- Deno ${Deno.version.deno} (V8 ${Deno.version.v8}), Node ${
      nodeVersion ?? "not available"
    }`,
    `- load average at start (1, 5, 15 min): ${
      Deno.loadavg().map((l) => l.toFixed(2)).join(", ")
    }`,
    `- date: ${new Date().toISOString()}`,
    `- command: deno task bench ${Deno.args.join(" ")}`.trimEnd(),
  ].join("\n");
}

async function attempt(
  record: ServerRecord,
  what: string,
  work: () => Promise<void>,
): Promise<void> {
  try {
    await work();
  } catch (cause) {
    const message = `${what}: ${(cause as Error).message ?? cause}`;
    record.failures.push(message);
    console.error(`  ${record.id} failed: ${message}`);
  }
}

/** Cold starts of the start-up probes in alternating rounds; medians per probe. */
async function measureStartup(rounds: number): Promise<StartupRow[]> {
  const probes = importCostCatalogue();
  const samples = new Map(
    probes.map((p) => [p.id, [] as { coldMs: number; startCpuMs?: number }[]]),
  );
  const usable: ServerSpec[] = [];
  for (const probe of probes) {
    try {
      await coldStart(probe);
      usable.push(probe);
    } catch (cause) {
      console.error(`  ${probe.id} failed: ${(cause as Error).message}`);
    }
  }
  for (let round = 0; round < rounds; round++) {
    for (const probe of rotate(usable, round)) {
      try {
        const start = await coldStart(probe);
        samples.get(probe.id)!.push({
          coldMs: start.coldMs,
          startCpuMs: start.startCpuMs,
        });
      } catch (cause) {
        console.error(`  ${probe.id} failed: ${(cause as Error).message}`);
      }
    }
  }
  return usable.flatMap((probe) => {
    const runs = samples.get(probe.id)!;
    if (runs.length === 0) return [];
    const cpu = runs.flatMap((r) =>
      r.startCpuMs === undefined ? [] : [r.startCpuMs]
    );
    return [{
      label: probe.label,
      coldMs: median(runs.map((r) => r.coldMs)),
      startCpuMs: cpu.length === 0 ? undefined : median(cpu),
    }];
  });
}

/** Runs the harness and prints its report. */
export async function main(args: readonly string[]): Promise<void> {
  if (args.includes("--help")) {
    console.log(USAGE);
    return;
  }
  let options: HarnessOptions;
  try {
    options = parseOptions(args);
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    Deno.exit(2);
  }
  const started = performance.now();
  let specs = serverCatalogue();
  if (options.only !== undefined) {
    specs = specs.filter((s) => options.only!.includes(s.id));
  }
  specs.push(...options.compare.map(checkoutServer));
  const notes: string[] = [];
  const node = specs.some((s) => s.runtime === "node")
    ? await prepareNode()
    : {};
  if (node.problem !== undefined) {
    notes.push(`Node servers skipped: ${node.problem}`);
    specs = specs.filter((s) => s.runtime !== "node");
  }
  console.log(`## stdio benchmark\n\n${await machine(node.version)}\n`);

  const records = new Map<string, ServerRecord>(
    specs.map((s) => [s.id, {
      id: s.id,
      label: s.label,
      sessions: [],
      coldStarts: [],
      failures: [],
    }]),
  );
  // One unmeasured start each, so that no server pays for filling a cache.
  const usable: ServerSpec[] = [];
  for (const spec of specs) {
    await attempt(records.get(spec.id)!, "first start", async () => {
      await coldStart(spec);
      usable.push(spec);
    });
  }
  for (let round = 0; round < options.rounds; round++) {
    const order = rotate(usable, round);
    console.error(`round ${round + 1}/${options.rounds}`);
    for (const spec of order) {
      const record = records.get(spec.id)!;
      await attempt(record, `round ${round + 1}`, async () => {
        record.sessions.push(await runSession(spec, options.plan));
      });
    }
    for (let i = 0; i < options.coldStarts; i++) {
      for (const spec of order) {
        const record = records.get(spec.id)!;
        await attempt(record, "cold start", async () => {
          record.coldStarts.push(await coldStart(spec));
        });
      }
    }
  }

  const summaries = [...records.values()].map(summarize);
  const plan = options.plan;
  console.log(
    `${options.rounds} alternating rounds; per server and round: one session (${plan.warmup} warm-up calls, ${plan.sequential} sequential calls, ${plan.pipelined} pipelined calls with ${plan.inFlight} in flight, ${plan.big} calls with a ${
      plan.bigBytes >> 20
    } MiB argument, stdin closed with ${plan.eofInFlight} calls in flight) and ${options.coldStarts} extra cold starts. Medians; p50/p99 pooled over rounds; (×) = ratio to the raw Deno loop of this run.\n`,
  );
  console.log(renderTable(summaries, "raw-deno"));
  const toolkit = summaries.find((s) => s.id === "toolkit");
  if (toolkit?.probe !== undefined) {
    console.log(
      `\nProbe round trip on the toolkit server (p50, interleaved): plain echo call ${
        toolkit.probe.plainUs.toFixed(0)
      } µs, probe of a pattern tool ${
        toolkit.probe.probeUs.toFixed(0)
      } µs, real call of the same pattern tool ${
        toolkit.probe.patternUs.toFixed(0)
      } µs.`,
    );
  }
  console.log(
    `\n### Targets (toolkit, this run)\n\n${
      renderTargets(checkTargets(summaries))
    }`,
  );
  for (const note of notes) console.log(`\nNote: ${note}`);
  const failures = summaries.flatMap((s) =>
    s.failures.map((f) => `${s.id}: ${f}`)
  );
  if (failures.length > 0) {
    console.log(
      `\n### Failures\n\n${failures.map((f) => `- ${f}`).join("\n")}`,
    );
  }

  let startup: StartupRow[] = [];
  if (options.importRounds > 0 && options.only === undefined) {
    startup = await measureStartup(options.importRounds);
    console.log(
      `\n### Start-up: what each import costs\n\nEach row is the raw Deno loop after one import, which brings its own dependencies (${options.importRounds} alternating rounds, medians).\n\n${
        renderStartup(startup)
      }`,
    );
  }

  const profiles = [];
  if (options.profile) {
    console.log("\n### CPU profile of the call path (Deno servers)\n");
    const plan = options.quick
      ? { warmup: 1000, sequential: 1000, pipelined: 10_000 }
      : { warmup: 2000, sequential: 3000, pipelined: 30_000 };
    console.log(
      `${plan.sequential} sequential + ${plan.pipelined} pipelined echo calls after ${plan.warmup} warm-up calls and a pause; only samples after the pause count; \`--cpu-prof-interval=100\` (µs). Self time of the write and read ops (\`op_write\`, \`op_write_all\`, \`op_read\`) includes time the main thread waited on the pipe, so sampled busy time exceeds CPU time.\n`,
    );
    for (const id of ["toolkit", "sdk-deno", "raw-deno"]) {
      const spec = usable.find((s) => s.id === id);
      if (spec === undefined) continue;
      try {
        const profile = await profileServer(spec, plan);
        profiles.push(profile);
        console.log(`${renderProfile(profile, id === "toolkit")}\n`);
      } catch (cause) {
        console.log(`${id}: profile failed: ${(cause as Error).message}\n`);
      }
    }
  }
  console.log(
    `Run took ${((performance.now() - started) / 1000).toFixed(0)} s.`,
  );
  if (options.json !== undefined) {
    await Deno.writeTextFile(
      options.json,
      JSON.stringify(
        {
          options,
          summaries,
          records: [...records.values()],
          startup,
          profiles,
        },
        null,
        2,
      ),
    );
  }
}

if (import.meta.main) await main(Deno.args);
