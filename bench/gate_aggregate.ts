/**
 * The aggregate harness: what a gate of many servers adds to a call, side
 * by side with a gate of one, in one run. Three processes are timed in
 * turn, round by round (a noisy machine slows them alike):
 *
 * - `one`: gate/main.ts in front of one raw echo server (`-- COMMAND`);
 * - `five`: gate/main.ts with a policy naming five raw echo servers
 *   (`servers:`), calling the third one's `echo`;
 * - `direct`: one raw echo server alone, for its `tools/list` time.
 *
 * It prints the p50 of a sequential `tools/call` through each gate and
 * their ratio (target: five ≤ 1.05× one), and the p50 of `tools/list`
 * through the aggregate against the direct server's plus the one-server
 * gate's hop (target: within the slowest server's time plus 1 ms, where
 * the slowest server's time is taken as the gate of one's `tools/list`).
 *
 *   deno run -A bench/gate_aggregate.ts [--rounds 7] [--calls 400]
 *
 * @module
 */

import { INITIALIZE_PARAMS } from "./_measure.ts";
import { type ServerProcess, spawnServer } from "./_driver.ts";
import { median, percentile } from "./_stats.ts";
import { REPO_ROOT } from "./_servers.ts";

/** The targets the issue sets. */
export const TARGETS = { callRatio: 1.05, listExtraMs: 1 } as const;

const ECHO = [Deno.execPath(), "run", `${REPO_ROOT}/bench/servers/raw_echo.ts`];
const GATE = [
  Deno.execPath(),
  "run",
  "-A",
  `${REPO_ROOT}/toolkit/gate/main.ts`,
];
const SERVERS = 5;

/** Per case: the samples of one round, in microseconds. */
export interface RoundSamples {
  call: number[];
  list: number[];
}

/**
 * The figures of a run: each case's p50 over all its samples, pooled, and
 * the ratios and margins the targets are about.
 *
 * @example
 * ```ts
 * import { summarise } from "./gate_aggregate.ts";
 * const s = summarise({
 *   one: [{ call: [100], list: [200] }],
 *   five: [{ call: [104], list: [900] }],
 *   direct: [{ call: [50], list: [150] }],
 * });
 * s.callRatio; // 1.04
 * ```
 */
export function summarise(
  rounds: Record<"one" | "five" | "direct", RoundSamples[]>,
): {
  callUs: Record<string, number>;
  listUs: Record<string, number>;
  callRatio: number;
  listExtraMs: number;
  perRound: number[];
} {
  const pooled = (key: "one" | "five" | "direct", kind: "call" | "list") =>
    percentile(rounds[key].flatMap((r) => r[kind]), 50);
  const callUs = {
    one: pooled("one", "call"),
    five: pooled("five", "call"),
    direct: pooled("direct", "call"),
  };
  const listUs = {
    one: pooled("one", "list"),
    five: pooled("five", "list"),
    direct: pooled("direct", "list"),
  };
  return {
    callUs,
    listUs,
    callRatio: Math.round((callUs.five / callUs.one) * 1000) / 1000,
    listExtraMs: Math.round((listUs.five - listUs.one) / 10) / 100,
    perRound: rounds.one.map((r, i) =>
      Math.round(
        (median(rounds.five[i].call) / median(r.call)) * 1000,
      ) / 1000
    ),
  };
}

async function started(command: readonly string[]): Promise<ServerProcess> {
  const server = spawnServer(command);
  const answer = await server.request("initialize", INITIALIZE_PARAMS);
  if (answer.error !== undefined) {
    throw new Error(`initialize failed: ${answer.error.message}`);
  }
  server.notify("notifications/initialized");
  return server;
}

async function sample(
  server: ServerProcess,
  tool: string,
  calls: number,
): Promise<RoundSamples> {
  const call: number[] = [];
  const list: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    const answer = await server.request("tools/call", {
      name: tool,
      arguments: { text: "hi" },
    });
    call.push((performance.now() - start) * 1000);
    if (answer.error !== undefined || answer.result?.isError) {
      throw new Error(`${tool} failed: ${JSON.stringify(answer)}`);
    }
    if (i % 20 === 0) {
      const at = performance.now();
      await server.request("tools/list");
      list.push((performance.now() - at) * 1000);
    }
  }
  return { call, list };
}

if (import.meta.main) {
  const args = Deno.args;
  const flag = (name: string, fallback: number) => {
    const at = args.indexOf(name);
    return at === -1 ? fallback : Number(args[at + 1]);
  };
  const rounds = flag("--rounds", 7);
  const calls = flag("--calls", 400);
  const dir = await Deno.makeTempDir();
  const onePolicy = `${dir}/one.json`;
  const fivePolicy = `${dir}/five.json`;
  await Deno.writeTextFile(onePolicy, JSON.stringify({ unprobed: "allow" }));
  await Deno.writeTextFile(
    fivePolicy,
    JSON.stringify({
      unprobed: "allow",
      servers: Object.fromEntries(
        Array.from({ length: SERVERS }, (_, i) => [`s${i + 1}`, {
          command: ECHO,
        }]),
      ),
    }),
  );
  const one = await started([...GATE, "--policy", onePolicy, "--", ...ECHO]);
  const five = await started([...GATE, "--policy", fivePolicy]);
  const direct = await started(ECHO);
  const samples: Record<"one" | "five" | "direct", RoundSamples[]> = {
    one: [],
    five: [],
    direct: [],
  };
  try {
    // Warm-up: the JIT and the servers' first lists.
    await sample(one, "echo", 200);
    await sample(five, "s3_echo", 200);
    await sample(direct, "echo", 200);
    for (let round = 0; round < rounds; round++) {
      samples.one.push(await sample(one, "echo", calls));
      samples.five.push(await sample(five, "s3_echo", calls));
      samples.direct.push(await sample(direct, "echo", calls));
    }
  } finally {
    await one.close();
    await five.close();
    await direct.close();
    await Deno.remove(dir, { recursive: true });
  }
  const s = summarise(samples);
  const us = (v: number) => `${Math.round(v)} µs`;
  console.log(
    `tools/call p50: direct ${us(s.callUs.direct)}, gate of one ${
      us(s.callUs.one)
    }, gate of ${SERVERS} ${us(s.callUs.five)}`,
  );
  console.log(
    `  ${SERVERS} servers / one: ${s.callRatio}× (target ≤ ${TARGETS.callRatio}×: ${
      s.callRatio <= TARGETS.callRatio ? "met" : "missed"
    }); per round ${s.perRound.join(", ")}`,
  );
  console.log(
    `tools/list p50: direct ${us(s.listUs.direct)}, gate of one ${
      us(s.listUs.one)
    }, gate of ${SERVERS} ${
      us(s.listUs.five)
    }: ${s.listExtraMs} ms over one server's (target ≤ ${TARGETS.listExtraMs} ms: ${
      s.listExtraMs <= TARGETS.listExtraMs ? "met" : "missed"
    })`,
  );
}
