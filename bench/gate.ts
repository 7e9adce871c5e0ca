/**
 * The gate harness: what `forge gate` adds to a call, against the floor of
 * any stdio proxy. One run starts the toolkit echo server directly, behind
 * a C byte relay (`native_relay.c`, compiled with the system's `cc`),
 * behind the Deno byte relay (`gate_relay.ts`), and behind three gates
 * (`gate_proxy.ts`, `startGate()` with a policy file): plain, with an audit
 * log, and with argument-pattern templates. It times the same calls on each
 * of them, one process at a time in a shuffled order, round after round.
 * The targets are ratios to the C
 * relay's cost for the same call, in the same run:
 *
 * - `echo`, a tool without the probe, forwarded under `unprobed: allow`:
 *   at most 1.3× the relay;
 * - `note`, a pattern tool, which the gate probes, decides with the policy
 *   (allowed by `write:**`) and forwards with the approved patterns: at
 *   most 1.8×;
 * - `echo` decided by an argument-pattern template (`x-echo:{text}`, no
 *   probe round trip): at most 1.35×.
 *
 * Without `cc` the Deno relay stands in for the C one, and the output says
 * so. The audited gate shows what writing (and awaiting) the chained audit
 * line before each forwarded call costs.
 *
 * ```sh
 * cd bench && deno task gate            # 5 rounds, about two minutes
 * cd bench && deno task gate --quick    # a smoke run
 * cd bench && deno task gate --help     # every option
 * ```
 *
 * @module
 */

import { type RpcAnswer, type ServerProcess, spawnServer } from "./_driver.ts";
import { INITIALIZE_PARAMS } from "./_measure.ts";
import { BENCH_CONFIG, BENCH_DIR } from "./_servers.ts";
import { median, percentile } from "./_stats.ts";

/** What one run does. */
export interface GateBenchOptions {
  /** Rounds, each with a fresh direct server and a fresh gated one. */
  rounds: number;
  /** Timed calls per case and round. */
  calls: number;
  /** Untimed calls per case and round, first. */
  warmup: number;
  /** Also write the figures as JSON here. */
  json: string | undefined;
}

/**
 * The timed cases: each tool direct, through the C relay (`native`), and
 * through the gate; `echo` also through the Deno relay, an audited gate
 * and a gate that decides it by an argument-pattern template (`mapped`).
 */
export const CASES = [
  "direct-echo",
  "native-echo",
  "relay-echo",
  "gate-echo",
  "audit-echo",
  "mapped-echo",
  "direct-note",
  "native-note",
  "gate-note",
] as const;

/** One of {@linkcode CASES}. */
export type GateCase = typeof CASES[number];

/** The three comparisons the issue sets targets for: the gate over the C relay. */
export const TARGETS: readonly {
  readonly label: string;
  /** The base: the same call through the C relay. */
  readonly direct: GateCase;
  readonly gated: GateCase;
  readonly max: number;
}[] = [
  {
    label: "unprobed tool, forwarded (`unprobed: allow`)",
    direct: "native-echo",
    gated: "gate-echo",
    max: 1.3,
  },
  {
    label: "probed tool, allowed (probe + policy + call)",
    direct: "native-note",
    gated: "gate-note",
    max: 1.8,
  },
  {
    label: "unprobed tool, decided by an argument-pattern template",
    direct: "native-echo",
    gated: "mapped-echo",
    max: 1.35,
  },
];

/** The same calls against a direct one, and the audit line's cost: no targets. */
export const CONTEXT: readonly {
  readonly label: string;
  readonly direct: GateCase;
  readonly gated: GateCase;
}[] = [
  { label: "C relay, `echo`", direct: "direct-echo", gated: "native-echo" },
  { label: "gate, `echo`", direct: "direct-echo", gated: "gate-echo" },
  { label: "gate, `note` (probed)", direct: "direct-note", gated: "gate-note" },
  {
    label: "audited gate (`--audit`) over the plain gate, `echo`",
    direct: "gate-echo",
    gated: "audit-echo",
  },
];

/** The policy the gated server runs under. */
export const BENCH_POLICY = {
  allow: ["write:**"],
  deny: ["write:secret/**"],
  unprobed: "allow",
} as const;

/**
 * The policy of the templated gate: `echo` has a template, and a tool
 * without one is refused, so that every timed call is decided by it.
 */
export const MAPPED_POLICY = {
  allow: ["x-echo:**"],
  deny: ["x-echo:secret*"],
  unprobed: "deny",
  tools: { echo: { patterns: ["x-echo:{text}"] } },
} as const;

const FULL = { rounds: 5, calls: 2000, warmup: 500 };
const QUICK = { rounds: 2, calls: 500, warmup: 200 };

const USAGE = `Usage: deno task gate [options]   (in bench/)

  --quick      a smoke run (${QUICK.rounds} rounds of ${QUICK.calls} calls per case)
  --rounds=N   rounds, each with fresh servers (default ${FULL.rounds})
  --calls=N    timed calls per case and round (default ${FULL.calls})
  --warmup=N   untimed calls per case and round first (default ${FULL.warmup})
  --json=PATH  also write every figure as JSON to PATH
  --help       this text`;

/**
 * Reads the command line; a wrong option is a `TypeError` and an impossible
 * number a `RangeError`, each naming what was expected.
 *
 * @example
 * ```ts
 * import { parseGateOptions } from "./gate.ts";
 *
 * parseGateOptions(["--quick", "--rounds=3"]).rounds; // 3
 * ```
 */
export function parseGateOptions(args: readonly string[]): GateBenchOptions {
  const options: GateBenchOptions = {
    ...(args.includes("--quick") ? QUICK : FULL),
    json: undefined,
  };
  for (const arg of args) {
    const at = arg.indexOf("=");
    const flag = at === -1 ? arg : arg.slice(0, at);
    const value = at === -1 ? undefined : arg.slice(at + 1);
    switch (flag) {
      case "--quick":
        break;
      case "--rounds":
        options.rounds = integer(flag, value, 1, 100);
        break;
      case "--calls":
        options.calls = integer(flag, value, 1, 1_000_000);
        break;
      case "--warmup":
        options.warmup = integer(flag, value, 0, 1_000_000);
        break;
      case "--json":
        if (!value) throw new TypeError("Invalid --json: expected --json=PATH");
        options.json = value;
        break;
      default:
        throw new TypeError(
          `Unknown option: ${arg}: expected one of --quick, --rounds=N, --calls=N, --warmup=N, --json=PATH, --help`,
        );
    }
  }
  return options;
}

function integer(
  flag: string,
  value: string | undefined,
  min: number,
  max: number,
): number {
  const n = Number(value);
  if (value === undefined || !Number.isInteger(n) || n < min || n > max) {
    throw new RangeError(
      `Invalid ${flag}: expected an integer from ${min} to ${max}, got ${
        JSON.stringify(value ?? "")
      }`,
    );
  }
  return n;
}

/** Call times in milliseconds, by case. */
export type GateSamples = Record<GateCase, number[]>;

/** One comparison's figures, in microseconds. */
export interface GateComparison {
  /** What is compared. */
  label: string;
  /** p50 of the direct calls, pooled over rounds. */
  directP50Us: number;
  /** p50 of the calls through the gate, pooled over rounds. */
  gatedP50Us: number;
  /** p99 of the direct calls, pooled over rounds. */
  directP99Us: number;
  /** p99 of the calls through the gate, pooled over rounds. */
  gatedP99Us: number;
  /** `gatedP50Us / directP50Us`. */
  ratio: number;
  /** The same ratio in each round, to show the spread. */
  roundRatios: number[];
  /** The target ratio. */
  max: number;
  /** Whether `ratio <= max`. */
  met: boolean;
}

/**
 * The floors: what the extra process hop alone costs, measured with the
 * byte relay, and what a probing proxy cannot go below.
 */
export interface RelayFloor {
  /** p50 of the relayed `echo` calls, pooled over rounds, in microseconds. */
  relayP50Us: number;
  /** `relayP50Us` over the direct `echo` p50. */
  ratio: number;
  /**
   * The floor of a probed call through any stdio proxy, in microseconds:
   * two round trips to the server (the probe, then the call), each at
   * least the direct `note` p50, plus the hop (`relayP50Us` minus the
   * direct `echo` p50).
   */
  probedFloorUs: number;
  /** `probedFloorUs` over the direct `note` p50. */
  probedRatio: number;
}

/**
 * What the byte relay costs next to the direct server.
 *
 * @example
 * ```ts
 * import { CASES, type GateSamples, relayFloor } from "./gate.ts";
 *
 * const round = Object.fromEntries(
 *   CASES.map((key) => [key, [0.1]]),
 * ) as GateSamples;
 * round["relay-echo"] = [0.11];
 * round["gate-echo"] = [0.12];
 * relayFloor([round]).ratio; // 1.1
 * ```
 */
export function relayFloor(rounds: readonly GateSamples[]): RelayFloor {
  if (rounds.length === 0) {
    throw new RangeError("Cannot compare the relay: no rounds were measured");
  }
  const p50 = (key: GateCase) =>
    percentile(rounds.flatMap((round) => round[key]), 50) * 1000;
  const relayP50Us = p50("relay-echo");
  const direct = p50("direct-echo");
  const note = p50("direct-note");
  const probedFloorUs = 2 * note + (relayP50Us - direct);
  return {
    relayP50Us,
    ratio: relayP50Us / direct,
    probedFloorUs,
    probedRatio: probedFloorUs / note,
  };
}

/**
 * The comparisons of a run's rounds: pooled p50 and p99 per case, the
 * gated-to-direct ratio of the p50s, and each round's ratio.
 *
 * @example
 * ```ts
 * import { CASES, compareGate, type GateSamples } from "./gate.ts";
 *
 * const round = Object.fromEntries(
 *   CASES.map((key) => [key, [0.1]]),
 * ) as GateSamples;
 * round["relay-echo"] = [0.11];
 * round["gate-echo"] = [0.12];
 * compareGate([round])[0].ratio; // 1.2
 * ```
 */
export function compareGate(
  rounds: readonly GateSamples[],
  targets: readonly {
    label: string;
    direct: GateCase;
    gated: GateCase;
    max?: number;
  }[] = TARGETS,
): GateComparison[] {
  if (rounds.length === 0) {
    throw new RangeError("Cannot compare the gate: no rounds were measured");
  }
  const pooled = (key: GateCase) => rounds.flatMap((round) => round[key]);
  return targets.map(({ label, direct, gated, max = Infinity }) => {
    const directP50Us = percentile(pooled(direct), 50) * 1000;
    const gatedP50Us = percentile(pooled(gated), 50) * 1000;
    const ratio = gatedP50Us / directP50Us;
    return {
      label,
      directP50Us,
      gatedP50Us,
      directP99Us: percentile(pooled(direct), 99) * 1000,
      gatedP99Us: percentile(pooled(gated), 99) * 1000,
      ratio,
      roundRatios: rounds.map((round) =>
        median(round[gated]) / median(round[direct])
      ),
      max,
      met: ratio <= max,
    };
  });
}

/**
 * The comparisons as a Markdown table.
 *
 * @example
 * ```ts
 * import { CASES, compareGate, type GateSamples, renderGate } from "./gate.ts";
 *
 * const round = Object.fromEntries(
 *   CASES.map((key) => [key, [0.1]]),
 * ) as GateSamples;
 * round["relay-echo"] = [0.11];
 * round["gate-echo"] = [0.12];
 * console.log(renderGate(compareGate([round])));
 * ```
 */
export function renderGate(
  comparisons: readonly GateComparison[],
  base = "C relay",
): string {
  const us = (n: number) => `${n.toFixed(0)} µs`;
  const targeted = comparisons.some((c) => Number.isFinite(c.max));
  const rows = comparisons.map((c) =>
    `| ${c.label} | ${us(c.directP50Us)} | ${us(c.gatedP50Us)} | **${
      c.ratio.toFixed(2)
    }×** (rounds: ${c.roundRatios.map((r) => r.toFixed(2)).join(", ")}) | ${
      us(c.directP99Us)
    } / ${us(c.gatedP99Us)} |${
      targeted ? ` ≤ ${c.max}× | ${c.met ? "met" : "MISSED"} |` : ""
    }`
  );
  return [
    `| call | ${base} p50 | measured p50 | ratio | p99 ${base} / measured |${
      targeted ? " target | |" : ""
    }`,
    `| ---- | ---------- | ------------ | ----- | ------------------- |${
      targeted ? " ------ | - |" : ""
    }`,
    ...rows,
  ].join("\n");
}

/**
 * Compiles native_relay.c into `dir` with the system's `cc`; `undefined`
 * when there is no working compiler.
 */
export async function compileNativeRelay(
  dir: string,
): Promise<string | undefined> {
  const binary = `${dir}/native_relay`;
  try {
    const { code, stderr } = await new Deno.Command("cc", {
      args: ["-O2", "-o", binary, NATIVE_SOURCE],
      stderr: "piped",
    }).output();
    if (code !== 0) {
      console.error(new TextDecoder().decode(stderr));
      return undefined;
    }
    return binary;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

const NATIVE_SOURCE = new URL("./native_relay.c", import.meta.url).pathname;

/** The echo server's command; the gate and the relays run the same one. */
export function serverCommand(): string[] {
  return [
    Deno.execPath(),
    "run",
    "--allow-all",
    "--config",
    BENCH_CONFIG,
    `${BENCH_DIR}/servers/toolkit_echo.ts`,
  ];
}

/**
 * The Deno byte relay (`gate_relay.ts`) in front of the echo server; with
 * `denoIo`, its `--deno-io` shape (Deno.stdin and a Deno.Command child).
 */
export function relayCommand(options: { denoIo?: boolean } = {}): string[] {
  return [
    Deno.execPath(),
    "run",
    "--allow-all",
    `${BENCH_DIR}/gate_relay.ts`,
    ...(options.denoIo === true ? ["--deno-io"] : []),
    ...serverCommand(),
  ];
}

function gateCommand(policyPath: string, audit?: string): string[] {
  return [
    Deno.execPath(),
    "run",
    "--allow-all",
    "--config",
    BENCH_CONFIG,
    `${BENCH_DIR}/gate_proxy.ts`,
    policyPath,
    ...(audit === undefined ? [] : ["--audit", audit]),
    "--",
    ...serverCommand(),
  ];
}

/** What a round runs: the policies, the audit log, the C relay. */
export interface GateSetup {
  /** The bench policy's file. */
  policy: string;
  /** The templated gate's policy file. */
  mappedPolicy: string;
  /** The audited gate's log. */
  audit: string;
  /** The compiled C relay; the Deno relay stands in when absent. */
  native: string | undefined;
}

/** Writes the bench policies to files in `dir`; `native` as given. */
export async function writeBenchPolicy(
  dir: string,
  native?: string,
): Promise<GateSetup> {
  const policy = `${dir}/policy.json`;
  const mappedPolicy = `${dir}/mapped.json`;
  await Deno.writeTextFile(policy, JSON.stringify(BENCH_POLICY, null, 2));
  await Deno.writeTextFile(
    mappedPolicy,
    JSON.stringify(MAPPED_POLICY, null, 2),
  );
  // Not beside the policy file: there each line is an event for the gate's
  // watcher of that folder, which costs the call more than the line itself
  // (docs/benchmarks.md).
  await Deno.mkdir(`${dir}/log`, { recursive: true });
  return { policy, mappedPolicy, audit: `${dir}/log/audit.jsonl`, native };
}

/** Spawns `command`, initialises it and lists its tools, as a host would. */
export async function openServer(command: string[]): Promise<ServerProcess> {
  const server = spawnServer(command);
  try {
    const answer = await server.request("initialize", INITIALIZE_PARAMS);
    if (answer.error !== undefined) {
      throw new Error(`initialize failed: ${JSON.stringify(answer.error)}`);
    }
    server.notify("notifications/initialized");
    // A host lists the tools before it calls them; the gate learns here
    // which of them answer probes.
    const listed = await server.request("tools/list", {});
    if (listed.error !== undefined) {
      throw new Error(`tools/list failed: ${JSON.stringify(listed.error)}`);
    }
    return server;
  } catch (cause) {
    await server.kill();
    throw cause;
  }
}

const ECHO_TEXT = "hello, gate";
const NOTE_ARGS = { path: "notes/today.md", text: "hello, gate" };
const NOTE_TEXT = `write:${NOTE_ARGS.path} ${NOTE_ARGS.text}`;

function firstText(answer: RpcAnswer): string | undefined {
  const content = answer.result?.content as { text?: string }[] | undefined;
  return content?.[0]?.text;
}

/** Calls `echo` or `note` once and checks the answer. */
export async function callTool(
  server: ServerProcess,
  name: "echo" | "note",
): Promise<void> {
  const answer = name === "echo"
    ? await server.request("tools/call", {
      name,
      arguments: { text: ECHO_TEXT },
    })
    : await server.request("tools/call", { name, arguments: NOTE_ARGS });
  const expected = name === "echo" ? ECHO_TEXT : NOTE_TEXT;
  if (answer.error !== undefined || firstText(answer) !== expected) {
    throw new Error(
      `tools/call ${name} answered wrongly: ${
        JSON.stringify(answer.error ?? answer.result).slice(0, 300)
      }`,
    );
  }
}

/**
 * Checks that the gate really decides `note` calls (a denied path is
 * refused, nothing forwarded), so that the timed allowed calls are probed.
 */
async function checkGateDecides(
  gated: ServerProcess,
  call: { name: string; arguments: Record<string, unknown>; rule: string } = {
    name: "note",
    arguments: { path: "secret/key", text: "x" },
    rule: "write:secret/**",
  },
): Promise<void> {
  const answer = await gated.request("tools/call", {
    name: call.name,
    arguments: call.arguments,
  });
  const text = firstText(answer) ?? "";
  if (answer.result?.isError !== true || !text.includes(call.rule)) {
    throw new Error(
      `the gate did not refuse a denied call: ${
        JSON.stringify(answer.error ?? answer.result).slice(0, 300)
      }`,
    );
  }
}

/**
 * One round: for each case, in a shuffled order, a fresh process alone
 * (the server, or the relay or gate in front of its own server), warm-up,
 * then `calls` sequential calls, and the process closed. One process at a
 * time: with all of them open and their calls interleaved, a gate measured
 * 1.5× slower than an identical gate beside it (on 2 cores, a call pays
 * for whichever other process is still finishing its last one), which no
 * call order evened out.
 *
 * @example
 * ```ts ignore
 * const samples = await measureGateRound(setup, { calls: 100, warmup: 20 });
 * ```
 */
export async function measureGateRound(
  setup: GateSetup,
  plan: { calls: number; warmup: number },
  random: () => number = Math.random,
): Promise<GateSamples> {
  const native = setup.native === undefined
    ? relayCommand()
    : [setup.native, ...serverCommand()];
  const commands = {
    direct: serverCommand(),
    native,
    relay: relayCommand(),
    gate: gateCommand(setup.policy),
    audit: gateCommand(setup.policy, setup.audit),
    mapped: gateCommand(setup.mappedPolicy),
  } as const;
  const samples = Object.fromEntries(
    CASES.map((key) => [key, [] as number[]]),
  ) as GateSamples;
  for (const key of shuffled(CASES, random)) {
    const [side, tool] = key.split("-") as [
      keyof typeof commands,
      "echo" | "note",
    ];
    const server = await openServer([...commands[side]]);
    try {
      // The timed calls are decided: a denied one is refused.
      if (key === "gate-note") await checkGateDecides(server);
      if (key === "mapped-echo") {
        await checkGateDecides(server, {
          name: "echo",
          arguments: { text: "secret1" },
          rule: "x-echo:secret*",
        });
      }
      for (let i = 0; i < plan.warmup; i++) await callTool(server, tool);
      for (let i = 0; i < plan.calls; i++) {
        const start = performance.now();
        await callTool(server, tool);
        samples[key].push(performance.now() - start);
      }
    } finally {
      await server.close();
    }
  }
  return samples;
}

/** A small seeded generator (mulberry32): the same orders in every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `items` in a random order (Fisher–Yates). */
function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

async function main(args: readonly string[]): Promise<void> {
  if (args.includes("--help")) {
    console.log(USAGE);
    return;
  }
  let options: GateBenchOptions;
  try {
    options = parseGateOptions(args);
  } catch (cause) {
    console.error(`${(cause as Error).message}\n\n${USAGE}`);
    Deno.exit(2);
  }
  const dir = await Deno.makeTempDir({ prefix: "forge-gate-bench-" });
  try {
    const native = await compileNativeRelay(dir);
    const setup = await writeBenchPolicy(dir, native);
    const started = performance.now();
    const rounds: GateSamples[] = [];
    const random = seeded(0x9e3779b9);
    for (let round = 0; round < options.rounds; round++) {
      rounds.push(await measureGateRound(setup, options, random));
    }
    const comparisons = compareGate(rounds);
    const base = native === undefined ? "Deno relay" : "C relay";
    console.log(
      `Deno ${Deno.version.deno}, ${Deno.build.os} ${Deno.build.arch}, ${navigator.hardwareConcurrency} cores. ${options.rounds} rounds; per round fresh servers (toolkit echo server: direct, behind the ${base}, behind the Deno relay, behind the gate with policy ${
        JSON.stringify(BENCH_POLICY)
      }, the same gate with --audit, and a gate with ${
        JSON.stringify(MAPPED_POLICY)
      }), ${options.warmup} warm-up and ${options.calls} timed sequential calls per case, each case in a process of its own, one at a time, in a shuffled order. p50 and p99 pooled over rounds; round ratios are of each round's medians.${
        native === undefined
          ? " No working cc: the Deno relay stands in for the C relay."
          : ""
      }\n`,
    );
    console.log(`Targets, against the same call through the ${base}:\n`);
    console.log(renderGate(comparisons, base));
    const context = compareGate(rounds, CONTEXT);
    console.log(`\nAgainst a direct call (and the audit's cost):\n`);
    console.log(renderGate(context, "base"));
    const floor = relayFloor(rounds);
    console.log(
      `\nFloors: \`echo\` through a byte relay (one more process, no parsing) p50 ${
        floor.relayP50Us.toFixed(0)
      } µs, ${
        floor.ratio.toFixed(2)
      }× direct; a probed call through any stdio proxy (two round trips to the server plus the hop) ${
        floor.probedFloorUs.toFixed(0)
      } µs, ${floor.probedRatio.toFixed(2)}× the direct call.`,
    );
    console.log(
      `\nRun took ${((performance.now() - started) / 1000).toFixed(0)} s.`,
    );
    if (options.json !== undefined) {
      await Deno.writeTextFile(
        options.json,
        JSON.stringify(
          { options, comparisons, context, floor, rounds },
          null,
          2,
        ),
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) await main(Deno.args);
