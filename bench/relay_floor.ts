/**
 * The floor under any stdio proxy on this machine, measured side by side:
 * `echo` calls to the toolkit echo server directly, through the Deno byte
 * relay (`gate_relay.ts`, with the gate's I/O path: Node pipe handles on the
 * event loop), through the same relay on Deno's own I/O (`gate_relay.ts
 * --deno-io`: `Deno.stdin`, `Deno.Command`, a blocking thread pool), and
 * through a C byte relay (`native_relay.c`, compiled here with the system's
 * `cc`), interleaved call by call. The gate cannot cost less than the Deno
 * relay, and no process in between, in any language, less than the C one.
 * Besides p50 it prints the CPU each relay process spends per call (Linux,
 * from /proc; the server's own CPU is not in it).
 *
 * ```sh
 * cd bench
 * deno task relay-floor            # 3 rounds of 2000 calls per case
 * deno task relay-floor --quick    # 1 round of 500
 * ```
 *
 * @module
 */

import {
  callTool,
  compileNativeRelay,
  openServer,
  relayCommand,
  serverCommand,
} from "./gate.ts";
import type { ServerProcess } from "./_driver.ts";
import { median, percentile, rotate } from "./_stats.ts";

const RELAYS = [
  "direct",
  "deno relay",
  "deno relay, Deno I/O",
  "native relay",
] as const;

/** CPU time (user + system) of process `pid` so far, in ms; Linux only. */
function cpuMs(pid: number): number | undefined {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // Fields after the command name, which may hold spaces: utime, stime
    // are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    // Linux reports in clock ticks of 10 ms (USER_HZ 100).
    return ticks * 10;
  } catch {
    return undefined;
  }
}

async function main(args: readonly string[]): Promise<void> {
  const quick = args.includes("--quick");
  const rounds = quick ? 1 : 3;
  const calls = quick ? 500 : 2000;
  const warmup = quick ? 100 : 500;
  const dir = await Deno.makeTempDir({ prefix: "forge-relay-floor-" });
  try {
    const native = await compileNativeRelay(dir);
    if (native === undefined) {
      console.error(
        "Cannot measure the native floor: no working C compiler (cc) found",
      );
      Deno.exit(1);
    }
    const samples = Object.fromEntries(
      RELAYS.map((relay) => [relay, [] as number[]]),
    ) as Record<typeof RELAYS[number], number[]>;
    const cpu = Object.fromEntries(
      RELAYS.map((relay) => [relay, [] as number[]]),
    ) as Record<typeof RELAYS[number], number[]>;
    for (let round = 0; round < rounds; round++) {
      const servers: Record<string, ServerProcess> = {};
      try {
        servers.direct = await openServer(serverCommand());
        servers["deno relay"] = await openServer(relayCommand());
        servers["deno relay, Deno I/O"] = await openServer(
          relayCommand({ denoIo: true }),
        );
        servers["native relay"] = await openServer([
          native,
          ...serverCommand(),
        ]);
        for (let i = 0; i < warmup; i++) {
          for (const relay of RELAYS) await callTool(servers[relay], "echo");
        }
        const cpuBefore = RELAYS.map((relay) => cpuMs(servers[relay].pid));
        for (let i = 0; i < calls; i++) {
          for (const relay of rotate(RELAYS, i)) {
            const start = performance.now();
            await callTool(servers[relay], "echo");
            samples[relay].push(performance.now() - start);
          }
        }
        RELAYS.forEach((relay, i) => {
          const after = cpuMs(servers[relay].pid);
          if (after !== undefined && cpuBefore[i] !== undefined) {
            cpu[relay].push((after - cpuBefore[i]) * 1000 / calls);
          }
        });
      } finally {
        for (const server of Object.values(servers)) await server.close();
      }
    }
    const direct = percentile(samples.direct, 50);
    console.log(
      `Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores, ${rounds} rounds of ${calls} sequential echo calls per case, interleaved; p50 pooled over rounds.\n`,
    );
    console.log(
      "| path | p50 | vs direct | CPU of the front process per call |\n| ---- | --- | --------- | --------------------------------- |",
    );
    for (const relay of RELAYS) {
      const p50 = percentile(samples[relay], 50);
      const perCall = cpu[relay].length === 0
        ? "n/a"
        : `${median(cpu[relay]).toFixed(0)} µs${
          relay === "direct" ? " (the server)" : ""
        }`;
      console.log(
        `| ${relay} | ${(p50 * 1000).toFixed(0)} µs | ${
          (p50 / direct).toFixed(2)
        }× | ${perCall} |`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) await main(Deno.args);
