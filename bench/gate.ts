/**
 * The gate harness: what `forge gate` adds to a call, against the floor of
 * any stdio proxy. One run starts the toolkit echo server directly, behind
 * a C byte relay (`native_relay.c`, compiled with the system's `cc`),
 * behind the Deno byte relay (`gate_relay.ts`), and behind three gates
 * (`gate_proxy.ts`, `startGate()` with a policy file): plain, with an audit
 * log, and with argument-pattern templates. It times the same calls on each
 * of them, one process at a time in a shuffled order, round after round.
 * The targets (issue 28) are re-based on what a Deno gate cannot beat, in
 * the same run:
 *
 * - `echo`, a tool without the probe, forwarded under `unprobed: allow`:
 *   at most 1.2× the same call through the Deno byte relay;
 * - `echo` decided by an argument-pattern template (`x-echo:{text}`, no
 *   probe round trip): at most 1.3× the Deno relay;
 * - `note`, a pattern tool, which the gate probes, decides with the policy
 *   (allowed by `write:**`) and forwards with the approved patterns: at
 *   most 1.2× the structural floor of a probed call, two round trips to
 *   the server plus the relay's hop.
 *
 * Both gate policies have a flow (issue 28 holds the targets with flows
 * on), which no timed call sets off; `--no-flows` leaves it out, for a
 * `--base` from before flows.
 *
 * The gates are also compared with the Deno relay in its `--parse` shape,
 * which parses and serialises every line as any gate must (it decides by
 * what it read, so it cannot pass the bytes on): what is left is the
 * gate's own work, apart from reading what it forwards.
 *
 * The same calls over the C relay (issue 21's base) are printed too;
 * without `cc` the Deno relay stands in for the C one, and the output says
 * so. The audited gate shows what writing (and awaiting) the chained audit
 * line before each forwarded call costs. With `--base=DIR`, the gates of
 * another checkout (`DIR/bench/gate_proxy.ts`, in front of this tree's
 * server) are timed in the same rounds, side by side. With `--block=N`
 * every case stays open and they are timed in turns of N calls, so that a
 * slower minute of a shared machine falls on all of them alike.
 *
 * ```sh
 * cd bench && deno task gate            # 5 rounds, about two minutes
 * cd bench && deno task gate --quick    # a smoke run
 * cd bench && deno task gate --base=../../base   # beside another checkout
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
  /** Another checkout whose gates are timed beside this tree's. */
  base: string | undefined;
  /** Time every case in turns of this many calls, all open at once. */
  block?: number;
  /** Whether the policies have flows (for a checkout from before them). */
  flows?: boolean;
}

/**
 * The timed cases: each tool direct, through the C relay (`native`), and
 * through the gate; `echo` also through the Deno relay, the Deno relay that
 * parses and serialises each line (`parse`), an audited gate and a gate
 * that decides it by an argument-pattern template (`mapped`).
 */
export const CASES = [
  "direct-echo",
  "native-echo",
  "relay-echo",
  "parse-echo",
  "gate-echo",
  "audit-echo",
  "mapped-echo",
  "direct-note",
  "native-note",
  "gate-note",
] as const;

/** One of {@linkcode CASES}. */
export type GateCase = typeof CASES[number];

/**
 * The cases of another checkout's gates (`--base=DIR`), in front of this
 * tree's server.
 */
export const BASE_CASES = [
  "base-gate-echo",
  "base-mapped-echo",
  "base-gate-note",
] as const;

/** One of {@linkcode BASE_CASES}. */
export type BaseCase = typeof BASE_CASES[number];

/**
 * What a comparison divides by: a case, or `probed-floor`, the floor of a
 * probed call through any stdio proxy (two direct `note` round trips plus
 * the Deno relay's hop, see {@linkcode relayFloor}).
 */
export type GateBase = GateCase | BaseCase | "probed-floor";

/** A comparison: `gated` over `direct`, with a target when `max` is given. */
export interface GateTarget {
  /** What is compared. */
  readonly label: string;
  /** The base. */
  readonly direct: GateBase;
  /** The measured case. */
  readonly gated: GateCase | BaseCase;
  /** The target ratio; none when absent. */
  readonly max?: number;
}

/**
 * The three comparisons issue 28 sets targets for: the gate over the Deno
 * relay, and the probed call over its structural floor.
 */
export const TARGETS: readonly GateTarget[] = [
  {
    label: "unprobed tool, forwarded (`unprobed: allow`), over the Deno relay",
    direct: "relay-echo",
    gated: "gate-echo",
    max: 1.2,
  },
  {
    label:
      "unprobed tool, decided by an argument-pattern template, over the Deno relay",
    direct: "relay-echo",
    gated: "mapped-echo",
    max: 1.3,
  },
  {
    label:
      "probed tool, allowed (probe + policy + call), over the probed floor",
    direct: "probed-floor",
    gated: "gate-note",
    max: 1.2,
  },
];

/** The same targets for another checkout's gates (`--base=DIR`). */
export const BASE_TARGETS: readonly GateTarget[] = TARGETS.map((target) => ({
  ...target,
  gated: `base-${target.gated}` as BaseCase,
}));

/** The same calls over the C relay: issue 21's base, no targets now. */
export const C_RELAY: readonly GateTarget[] = [
  {
    label: "unprobed tool, forwarded",
    direct: "native-echo",
    gated: "gate-echo",
  },
  {
    label: "unprobed tool, decided by a template",
    direct: "native-echo",
    gated: "mapped-echo",
  },
  {
    label: "probed tool, allowed",
    direct: "native-note",
    gated: "gate-note",
  },
];

/** This tree's gates over another checkout's, call for call (`--base=DIR`). */
export const AGAINST_BASE: readonly GateTarget[] = [
  { label: "unprobed `echo`", direct: "base-gate-echo", gated: "gate-echo" },
  {
    label: "templated `echo`",
    direct: "base-mapped-echo",
    gated: "mapped-echo",
  },
  { label: "probed `note`", direct: "base-gate-note", gated: "gate-note" },
];

/**
 * The gates over the relay that parses each line: what a gate adds to
 * reading what it forwards (its decision, ids, promises, the policy's
 * freshness), apart from the reading itself.
 */
export const PARSING_RELAY: readonly GateTarget[] = [
  {
    label: "unprobed tool, forwarded",
    direct: "parse-echo",
    gated: "gate-echo",
  },
  {
    label: "unprobed tool, decided by a template",
    direct: "parse-echo",
    gated: "mapped-echo",
  },
  {
    label: "the parsing relay over the byte relay",
    direct: "relay-echo",
    gated: "parse-echo",
  },
];

/** The same calls against a direct one, and the audit line's cost: no targets. */
export const CONTEXT: readonly GateTarget[] = [
  { label: "C relay, `echo`", direct: "direct-echo", gated: "native-echo" },
  { label: "gate, `echo`", direct: "direct-echo", gated: "gate-echo" },
  { label: "gate, `note` (probed)", direct: "direct-note", gated: "gate-note" },
  {
    label: "audited gate (`--audit`) over the plain gate, `echo`",
    direct: "gate-echo",
    gated: "audit-echo",
  },
];

/**
 * Flows on (issue 28 holds the targets with them): the first of
 * docs/gate.md's, which no timed call sets off, so that each call pays for
 * being checked against it.
 */
export const BENCH_FLOWS = [
  { after: ["read:secrets/**"], deny: ["net:**", "exec:**"] },
] as const;

/** The policy the gated server runs under. */
export const BENCH_POLICY = {
  allow: ["write:**"],
  deny: ["write:secret/**"],
  unprobed: "allow",
  flows: BENCH_FLOWS,
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
  flows: BENCH_FLOWS,
} as const;

const FULL = { rounds: 5, calls: 2000, warmup: 500 };
const QUICK = { rounds: 2, calls: 500, warmup: 200 };

const USAGE = `Usage: deno task gate [options]   (in bench/)

  --quick      a smoke run (${QUICK.rounds} rounds of ${QUICK.calls} calls per case)
  --rounds=N   rounds, each with fresh servers (default ${FULL.rounds})
  --calls=N    timed calls per case and round (default ${FULL.calls})
  --warmup=N   untimed calls per case and round first (default ${FULL.warmup})
  --json=PATH  also write every figure as JSON to PATH
  --base=DIR   also time the gates of the checkout at DIR, side by side
  --block=N    keep every case open and time them in turns of N calls
  --no-flows   policies without flows (for a --base from before them)
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
    base: undefined,
  };
  for (const arg of args) {
    const at = arg.indexOf("=");
    const flag = at === -1 ? arg : arg.slice(0, at);
    const value = at === -1 ? undefined : arg.slice(at + 1);
    switch (flag) {
      case "--quick":
        break;
      case "--no-flows":
        options.flows = false;
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
      case "--block":
        options.block = integer(flag, value, 1, 1_000_000);
        break;
      case "--base":
        if (!value) throw new TypeError("Invalid --base: expected --base=DIR");
        options.base = value;
        break;
      default:
        throw new TypeError(
          `Unknown option: ${arg}: expected one of --quick, --rounds=N, --calls=N, --warmup=N, --json=PATH, --base=DIR, --block=N, --no-flows, --help`,
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

/** Call times in milliseconds, by case (another checkout's with `--base`). */
export type GateSamples =
  & Record<GateCase, number[]>
  & Partial<Record<BaseCase, number[]>>;

/** One comparison's figures, in microseconds. */
export interface GateComparison {
  /** What is compared. */
  label: string;
  /** p50 of the direct calls, pooled over rounds. */
  directP50Us: number;
  /** p50 of the calls through the gate, pooled over rounds. */
  gatedP50Us: number;
  /** p99 of the direct calls, pooled over rounds; `NaN` for the probed floor. */
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
  targets: readonly GateTarget[] = TARGETS,
): GateComparison[] {
  if (rounds.length === 0) {
    throw new RangeError("Cannot compare the gate: no rounds were measured");
  }
  const pooled = (key: GateCase | BaseCase) =>
    rounds.flatMap((round) => round[key] ?? []);
  // The floor's p50 and p99 are those of its parts, combined.
  const at = (key: GateBase, p: number) =>
    key === "probed-floor"
      ? floorOf((k) => percentile(pooled(k), p))
      : percentile(pooled(key), p);
  return targets.map(({ label, direct, gated, max = Infinity }) => {
    const directP50Us = at(direct, 50) * 1000;
    const gatedP50Us = percentile(pooled(gated), 50) * 1000;
    const ratio = gatedP50Us / directP50Us;
    return {
      label,
      directP50Us,
      gatedP50Us,
      // The floor's parts are never all at their p99 in one call.
      directP99Us: direct === "probed-floor" ? NaN : at(direct, 99) * 1000,
      gatedP99Us: percentile(pooled(gated), 99) * 1000,
      ratio,
      roundRatios: rounds.map((round) =>
        median(round[gated] ?? []) /
        (direct === "probed-floor"
          ? floorOf((k) => median(round[k]))
          : median(round[direct] ?? []))
      ),
      max,
      met: ratio <= max,
    };
  });
}

/** Two direct `note` round trips plus the Deno relay's hop, by `stat`. */
function floorOf(stat: (key: GateCase) => number): number {
  return 2 * stat("direct-note") + stat("relay-echo") - stat("direct-echo");
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
  base = "base",
): string {
  const us = (n: number) => Number.isNaN(n) ? "—" : `${n.toFixed(0)} µs`;
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
export function relayCommand(
  options: { denoIo?: boolean; parse?: boolean } = {},
): string[] {
  return [
    Deno.execPath(),
    "run",
    "--allow-all",
    `${BENCH_DIR}/gate_relay.ts`,
    ...(options.denoIo === true ? ["--deno-io"] : []),
    ...(options.parse === true ? ["--parse"] : []),
    ...serverCommand(),
  ];
}

function gateCommand(
  policyPath: string,
  options: { audit?: string; checkout?: string } = {},
): string[] {
  const { audit, checkout } = options;
  const bench = checkout === undefined ? BENCH_DIR : `${checkout}/bench`;
  return [
    Deno.execPath(),
    "run",
    "--allow-all",
    "--config",
    checkout === undefined ? BENCH_CONFIG : `${bench}/deno.json`,
    `${bench}/gate_proxy.ts`,
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
  /** Another checkout whose gates are timed too (`--base=DIR`). */
  base?: string;
}

/** Writes the bench policies to files in `dir`; `native` as given. */
export async function writeBenchPolicy(
  dir: string,
  native?: string,
  options: { flows?: boolean } = {},
): Promise<GateSetup> {
  const policy = `${dir}/policy.json`;
  const mappedPolicy = `${dir}/mapped.json`;
  const flowless = <T extends { flows: unknown }>({ flows: _, ...rest }: T) =>
    rest;
  const write = (path: string, given: { flows: unknown }) =>
    Deno.writeTextFile(
      path,
      JSON.stringify(options.flows === false ? flowless(given) : given),
    );
  await write(policy, BENCH_POLICY);
  await write(mappedPolicy, MAPPED_POLICY);
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
  plan: { calls: number; warmup: number; block?: number },
  random: () => number = Math.random,
): Promise<GateSamples> {
  const native = setup.native === undefined
    ? relayCommand()
    : [setup.native, ...serverCommand()];
  const commands = {
    direct: serverCommand(),
    native,
    relay: relayCommand(),
    parse: relayCommand({ parse: true }),
    gate: gateCommand(setup.policy),
    audit: gateCommand(setup.policy, { audit: setup.audit }),
    mapped: gateCommand(setup.mappedPolicy),
    "base-gate": gateCommand(setup.policy, { checkout: setup.base }),
    "base-mapped": gateCommand(setup.mappedPolicy, { checkout: setup.base }),
  } as const;
  const cases = [...CASES, ...(setup.base === undefined ? [] : BASE_CASES)];
  const samples = Object.fromEntries(
    cases.map((key) => [key, [] as number[]]),
  ) as GateSamples;
  const open = async (key: GateCase | BaseCase) => {
    const at = key.lastIndexOf("-");
    const side = key.slice(0, at) as keyof typeof commands;
    const tool = key.slice(at + 1) as "echo" | "note";
    const server = await openServer([...commands[side]]);
    try {
      // The timed calls are decided: a denied one is refused.
      if (side.endsWith("gate") && tool === "note") {
        await checkGateDecides(server);
      }
      if (side.endsWith("mapped")) {
        await checkGateDecides(server, {
          name: "echo",
          arguments: { text: "secret1" },
          rule: "x-echo:secret*",
        });
      }
      for (let i = 0; i < plan.warmup; i++) await callTool(server, tool);
    } catch (cause) {
      await server.close();
      throw cause;
    }
    return { key, server, tool };
  };
  const time = async (
    { key, server, tool }: Awaited<ReturnType<typeof open>>,
    calls: number,
  ) => {
    for (let i = 0; i < calls; i++) {
      const start = performance.now();
      await callTool(server, tool);
      samples[key]!.push(performance.now() - start);
    }
  };
  if (plan.block === undefined) {
    for (const key of shuffled(cases, random)) {
      const opened = await open(key);
      try {
        await time(opened, plan.calls);
      } finally {
        await opened.server.close();
      }
    }
    return samples;
  }
  // Every case open at once, timed in turns of `block` calls: a slower
  // minute of the machine falls on every case alike. Each turn begins with
  // a few untimed calls, so that no timed call pays for what the process
  // timed before it was still finishing.
  const opened: Awaited<ReturnType<typeof open>>[] = [];
  try {
    for (const key of cases) opened.push(await open(key));
    for (let done = 0; done < plan.calls; done += plan.block) {
      for (const one of shuffled(opened, random)) {
        for (let i = 0; i < SETTLE_CALLS; i++) {
          await callTool(one.server, one.tool);
        }
        await time(one, Math.min(plan.block, plan.calls - done));
      }
    }
  } finally {
    for (const { server } of opened) await server.close();
  }
  return samples;
}

/** Untimed calls before each turn of `--block` calls. */
const SETTLE_CALLS = 20;

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
    const setup = await writeBenchPolicy(dir, native, {
      flows: options.flows,
    });
    if (options.base !== undefined) {
      setup.base = Deno.realPathSync(options.base);
    }
    const started = performance.now();
    const rounds: GateSamples[] = [];
    const random = seeded(0x9e3779b9);
    for (let round = 0; round < options.rounds; round++) {
      rounds.push(await measureGateRound(setup, options, random));
    }
    const comparisons = compareGate(rounds);
    const cName = native === undefined ? "Deno relay" : "C relay";
    console.log(
      `Deno ${Deno.version.deno}, ${Deno.build.os} ${Deno.build.arch}, ${navigator.hardwareConcurrency} cores. ${options.rounds} rounds; per round fresh servers (toolkit echo server: direct, behind the ${cName}, behind the Deno relay, behind the gate with policy ${
        JSON.stringify(BENCH_POLICY)
      }, the same gate with --audit, and a gate with ${
        JSON.stringify(MAPPED_POLICY)
      }${options.flows === false ? ", both without their flows" : ""}${
        setup.base === undefined
          ? ""
          : `; the plain and templated gates of ${setup.base} too`
      }), ${options.warmup} warm-up and ${options.calls} timed sequential calls per case, each case in a process of its own, ${
        options.block === undefined
          ? "one at a time, in a shuffled order"
          : `all open at once, timed in turns of ${options.block} calls (each after ${SETTLE_CALLS} untimed ones) in a shuffled order`
      }. p50 and p99 pooled over rounds; round ratios are of each round's medians.${
        native === undefined
          ? " No working cc: the Deno relay stands in for the C relay."
          : ""
      }\n`,
    );
    console.log(
      "Targets (issue 28), against the same call through the Deno relay, and the probed call against its floor (two direct round trips plus the relay's hop):\n",
    );
    console.log(renderGate(comparisons));
    const based = setup.base === undefined ? undefined : {
      targets: compareGate(rounds, BASE_TARGETS),
      against: compareGate(rounds, AGAINST_BASE),
    };
    if (based !== undefined) {
      console.log(`\nThe same targets, the gates of ${setup.base}:\n`);
      console.log(renderGate(based.targets));
      console.log(`\nThis tree's gates against ${setup.base}'s:\n`);
      console.log(renderGate(based.against, "base tree"));
    }
    const cRelay = compareGate(rounds, C_RELAY);
    console.log(`\nThe same calls over the ${cName} (issue 21's base):\n`);
    console.log(renderGate(cRelay, cName));
    const parsing = compareGate(rounds, PARSING_RELAY);
    console.log(
      "\nThe gates over the Deno relay that parses and serialises each line (what any gate pays to read what it forwards):\n",
    );
    console.log(renderGate(parsing, "parsing relay"));
    const context = compareGate(rounds, CONTEXT);
    console.log(`\nAgainst a direct call (and the audit's cost):\n`);
    console.log(renderGate(context));
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
          {
            options,
            comparisons,
            based,
            cRelay,
            parsing,
            context,
            floor,
            rounds,
          },
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
