/**
 * Stdin EOF → exit, apart from the rest of the harness: the raw loop and the
 * toolkit's servers after a light and a heavy session (the time grows with
 * the memory a process touched), next to two floors that do no work at EOF:
 * `cat`, and a Deno program that only drains stdin and exits. Every server
 * gets 64 calls in flight when stdin closes and must answer all of them.
 * Alternating rounds, medians.
 *
 * ```sh
 * cd bench
 * deno run -A exit.ts            # 8 rounds
 * deno run -A exit.ts --rounds=4
 * ```
 *
 * @module
 */

import { closeWithCallsInFlight, echo, startServer } from "./_measure.ts";
import {
  BENCH_CONFIG,
  BENCH_DIR,
  serverCatalogue,
  type ServerSpec,
} from "./_servers.ts";
import { median } from "./_stats.ts";

const SERVER_IDS = ["raw-deno", "toolkit", "toolkit-json"];
const IN_FLIGHT = 64;
const SMALL_CALLS = 2000;
const BIG_CALLS = 5;
const BIG_BYTES = 1 << 20;

type Load = "light" | "heavy";

/** Milliseconds from closing stdin to the exit, after a session of `load`. */
async function serverExit(spec: ServerSpec, load: Load): Promise<number> {
  const { server } = await startServer(spec);
  try {
    for (let i = 0; i < SMALL_CALLS; i++) await echo(server, `call ${i}`);
    if (load === "heavy") {
      const big = "x".repeat(BIG_BYTES);
      for (let i = 0; i < BIG_CALLS; i++) await echo(server, big);
    }
  } catch (cause) {
    await server.kill();
    throw cause;
  }
  const exit = await closeWithCallsInFlight(server, IN_FLIGHT);
  if (!exit.exited) throw new Error("it did not exit within 5 s of EOF");
  if (exit.answered !== IN_FLIGHT) {
    throw new Error(`${exit.answered}/${IN_FLIGHT} calls answered at EOF`);
  }
  return exit.exitMs;
}

/** The same for a program that answers nothing: one line, then EOF. */
async function floorExit(command: string[]): Promise<number> {
  const child = new Deno.Command(command[0], {
    args: command.slice(1),
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode("{}\n"));
  // Let it start and block on stdin, as a server would be.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const start = performance.now();
  await writer.close();
  await child.status;
  return performance.now() - start;
}

interface Case {
  label: string;
  run: () => Promise<number>;
}

function cases(): Case[] {
  const drain = [
    Deno.execPath(),
    "run",
    "--config",
    BENCH_CONFIG,
    `${BENCH_DIR}/servers/drain.ts`,
  ];
  const floors: Case[] = [
    { label: "cat (no runtime)", run: () => floorExit(["cat"]) },
    { label: "Deno: drain stdin, exit", run: () => floorExit(drain) },
  ];
  const servers = serverCatalogue().filter((s) => SERVER_IDS.includes(s.id));
  return [
    ...floors,
    ...servers.flatMap((spec) =>
      (["light", "heavy"] as const).map((load) => ({
        label: `${spec.label}, ${
          load === "light"
            ? `${SMALL_CALLS} calls`
            : `${SMALL_CALLS} calls + ${BIG_CALLS} × 1 MiB`
        }`,
        run: () => serverExit(spec, load),
      }))
    ),
  ];
}

/** Runs every case in alternating rounds and prints the medians. */
export async function main(args: readonly string[]): Promise<void> {
  const roundsArg = args.find((a) => a.startsWith("--rounds="));
  const rounds = roundsArg === undefined ? 8 : Number(roundsArg.slice(9));
  if (!Number.isSafeInteger(rounds) || rounds < 1) {
    throw new RangeError(
      `Invalid --rounds: expected a positive integer, got ${roundsArg}`,
    );
  }
  const all = cases();
  const samples = all.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    console.error(`round ${round + 1}/${rounds}`);
    for (let k = 0; k < all.length; k++) {
      const i = (k + round) % all.length;
      samples[i].push(await all[i].run());
    }
  }
  console.log(
    `Stdin EOF → exit, ms: medians of ${rounds} alternating rounds (min in brackets); ${IN_FLIGHT} calls in flight at EOF, all answered\n`,
  );
  console.log("| process | EOF → exit ms |");
  console.log("|---|--:|");
  for (let i = 0; i < all.length; i++) {
    console.log(
      `| ${all[i].label} | ${median(samples[i]).toFixed(1)} (${
        Math.min(...samples[i]).toFixed(1)
      }) |`,
    );
  }
}

if (import.meta.main) await main(Deno.args);
