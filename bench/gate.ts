/**
 * The gate harness: what `forge gate` adds to a call. One run starts the
 * toolkit echo server twice, once directly and once behind the gate
 * (`gate_proxy.ts`, `startGate()` with a policy file), and times the same
 * calls on both, interleaved call by call:
 *
 * - `echo`, a tool without the probe, forwarded under `unprobed: allow`
 *   (target: the gated p50 at most 1.3× the direct p50);
 * - `note`, a pattern tool, which the gate probes, decides with the policy
 *   (allowed by `write:**`) and forwards with the approved patterns
 *   (target: at most 2.2×).
 *
 * ```sh
 * cd bench && deno task gate            # 5 rounds, about a minute
 * cd bench && deno task gate --quick    # a smoke run
 * cd bench && deno task gate --help     # every option
 * ```
 *
 * @module
 */

import { type RpcAnswer, type ServerProcess, spawnServer } from "./_driver.ts";
import { INITIALIZE_PARAMS } from "./_measure.ts";
import { BENCH_CONFIG, BENCH_DIR } from "./_servers.ts";
import { median, percentile, rotate } from "./_stats.ts";

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
 * The timed cases: each tool direct and through the gate, and `echo`
 * through a byte relay (`gate_relay.ts`), the floor of any stdio proxy.
 */
export const CASES = [
  "direct-echo",
  "gate-echo",
  "relay-echo",
  "direct-note",
  "gate-note",
] as const;

/** One of {@linkcode CASES}. */
export type GateCase = typeof CASES[number];

/** The two comparisons the issue sets targets for. */
export const TARGETS: readonly {
  readonly label: string;
  readonly direct: GateCase;
  readonly gated: GateCase;
  readonly max: number;
}[] = [
  {
    label: "unprobed tool, forwarded (`unprobed: allow`)",
    direct: "direct-echo",
    gated: "gate-echo",
    max: 1.3,
  },
  {
    label: "probed tool, allowed (probe + policy + call)",
    direct: "direct-note",
    gated: "gate-note",
    max: 2.2,
  },
];

/** The policy the gated server runs under. */
export const BENCH_POLICY = {
  allow: ["write:**"],
  deny: ["write:secret/**"],
  unprobed: "allow",
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
 * import { relayFloor } from "./gate.ts";
 *
 * const round = {
 *   "direct-echo": [0.1], "gate-echo": [0.12], "relay-echo": [0.11],
 *   "direct-note": [0.1], "gate-note": [0.2],
 * };
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
 * import { compareGate } from "./gate.ts";
 *
 * const round = {
 *   "direct-echo": [0.1], "gate-echo": [0.12], "relay-echo": [0.11],
 *   "direct-note": [0.1], "gate-note": [0.2],
 * };
 * compareGate([round])[0].ratio; // 1.2
 * ```
 */
export function compareGate(
  rounds: readonly GateSamples[],
): GateComparison[] {
  if (rounds.length === 0) {
    throw new RangeError("Cannot compare the gate: no rounds were measured");
  }
  const pooled = (key: GateCase) => rounds.flatMap((round) => round[key]);
  return TARGETS.map(({ label, direct, gated, max }) => {
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
 * import { compareGate, renderGate } from "./gate.ts";
 *
 * const round = {
 *   "direct-echo": [0.1], "gate-echo": [0.12], "relay-echo": [0.11],
 *   "direct-note": [0.1], "gate-note": [0.2],
 * };
 * console.log(renderGate(compareGate([round])));
 * ```
 */
export function renderGate(comparisons: readonly GateComparison[]): string {
  const us = (n: number) => `${n.toFixed(0)} µs`;
  const rows = comparisons.map((c) =>
    `| ${c.label} | ${us(c.directP50Us)} | ${us(c.gatedP50Us)} | **${
      c.ratio.toFixed(2)
    }×** (rounds: ${c.roundRatios.map((r) => r.toFixed(2)).join(", ")}) | ${
      us(c.directP99Us)
    } / ${us(c.gatedP99Us)} | ≤ ${c.max}× | ${c.met ? "met" : "MISSED"} |`
  );
  return [
    "| call | direct p50 | through the gate p50 | ratio | p99 direct / gate | target | |",
    "| ---- | ---------- | -------------------- | ----- | ----------------- | ------ | - |",
    ...rows,
  ].join("\n");
}

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

function gateCommand(policyPath: string): string[] {
  return [
    Deno.execPath(),
    "run",
    "--allow-all",
    "--config",
    BENCH_CONFIG,
    `${BENCH_DIR}/gate_proxy.ts`,
    policyPath,
    "--",
    ...serverCommand(),
  ];
}

/** Writes the bench policy to a file in `dir` and returns its path. */
export async function writeBenchPolicy(dir: string): Promise<string> {
  const path = `${dir}/policy.json`;
  await Deno.writeTextFile(path, JSON.stringify(BENCH_POLICY, null, 2));
  return path;
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
async function checkGateDecides(gated: ServerProcess): Promise<void> {
  const answer = await gated.request("tools/call", {
    name: "note",
    arguments: { path: "secret/key", text: "x" },
  });
  const text = firstText(answer) ?? "";
  if (answer.result?.isError !== true || !text.includes("write:secret/**")) {
    throw new Error(
      `the gate did not refuse a denied call: ${
        JSON.stringify(answer.error ?? answer.result).slice(0, 300)
      }`,
    );
  }
}

/**
 * One round: fresh direct and gated servers, warm-up, then `calls` calls of
 * each case, interleaved call by call in a rotating order.
 *
 * @example
 * ```ts ignore
 * const samples = await measureGateRound(policyPath, { calls: 100, warmup: 20 });
 * ```
 */
export async function measureGateRound(
  policyPath: string,
  plan: { calls: number; warmup: number },
): Promise<GateSamples> {
  const direct = await openServer(serverCommand());
  let gated: ServerProcess | undefined;
  let relayed: ServerProcess | undefined;
  try {
    gated = await openServer(gateCommand(policyPath));
    const relay = relayed = await openServer(relayCommand());
    await checkGateDecides(gated);
    const servers = { direct, gate: gated, relay } as const;
    const run = (key: GateCase) => {
      const [side, tool] = key.split("-") as [
        keyof typeof servers,
        "echo" | "note",
      ];
      return callTool(servers[side], tool);
    };
    for (let i = 0; i < plan.warmup; i++) {
      for (const key of CASES) await run(key);
    }
    const samples: GateSamples = {
      "direct-echo": [],
      "gate-echo": [],
      "relay-echo": [],
      "direct-note": [],
      "gate-note": [],
    };
    for (let i = 0; i < plan.calls; i++) {
      for (const key of rotate(CASES, i)) {
        const start = performance.now();
        await run(key);
        samples[key].push(performance.now() - start);
      }
    }
    return samples;
  } finally {
    await direct.close();
    await gated?.close();
    await relayed?.close();
  }
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
    const policyPath = await writeBenchPolicy(dir);
    const started = performance.now();
    const rounds: GateSamples[] = [];
    for (let round = 0; round < options.rounds; round++) {
      rounds.push(await measureGateRound(policyPath, options));
    }
    const comparisons = compareGate(rounds);
    console.log(
      `Deno ${Deno.version.deno}, ${Deno.build.os} ${Deno.build.arch}, ${navigator.hardwareConcurrency} cores. ${options.rounds} rounds; per round a fresh direct server and a fresh gated one (toolkit echo server, policy ${
        JSON.stringify(BENCH_POLICY)
      }), ${options.warmup} warm-up and ${options.calls} timed sequential calls per case, interleaved call by call. p50 and p99 pooled over rounds; round ratios are of each round's medians.\n`,
    );
    console.log(renderGate(comparisons));
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
        JSON.stringify({ options, comparisons, floor, rounds }, null, 2),
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) await main(Deno.args);
