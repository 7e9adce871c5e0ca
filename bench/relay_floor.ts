/**
 * The floor under any stdio proxy on this machine, measured side by side:
 * `echo` calls to the toolkit echo server directly, through the Deno byte
 * relay (`gate_relay.ts`) and through a C byte relay (`native_relay.c`,
 * compiled here with the system's `cc`), interleaved call by call. The gate
 * cannot cost less than the Deno relay, and no process in between, in any
 * language, less than the C one.
 *
 * ```sh
 * cd bench
 * deno task relay-floor            # 3 rounds of 2000 calls per case
 * deno task relay-floor --quick    # 1 round of 500
 * ```
 *
 * @module
 */

import { callTool, openServer, relayCommand, serverCommand } from "./gate.ts";
import type { ServerProcess } from "./_driver.ts";
import { percentile, rotate } from "./_stats.ts";

const SOURCE = new URL("./native_relay.c", import.meta.url).pathname;
const RELAYS = ["direct", "deno relay", "native relay"] as const;

/** Compiles native_relay.c into `dir`; undefined when there is no compiler. */
async function compileNativeRelay(dir: string): Promise<string | undefined> {
  const binary = `${dir}/native_relay`;
  try {
    const { code, stderr } = await new Deno.Command("cc", {
      args: ["-O2", "-o", binary, SOURCE],
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
    const samples: Record<typeof RELAYS[number], number[]> = {
      direct: [],
      "deno relay": [],
      "native relay": [],
    };
    for (let round = 0; round < rounds; round++) {
      const servers: Record<string, ServerProcess> = {};
      try {
        servers.direct = await openServer(serverCommand());
        servers["deno relay"] = await openServer(relayCommand());
        servers["native relay"] = await openServer([
          native,
          ...serverCommand(),
        ]);
        for (let i = 0; i < warmup; i++) {
          for (const relay of RELAYS) await callTool(servers[relay], "echo");
        }
        for (let i = 0; i < calls; i++) {
          for (const relay of rotate(RELAYS, i)) {
            const start = performance.now();
            await callTool(servers[relay], "echo");
            samples[relay].push(performance.now() - start);
          }
        }
      } finally {
        for (const server of Object.values(servers)) await server.close();
      }
    }
    const direct = percentile(samples.direct, 50);
    console.log(
      `Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores, ${rounds} rounds of ${calls} sequential echo calls per case, interleaved; p50 pooled over rounds.\n`,
    );
    console.log("| path | p50 | vs direct |\n| ---- | --- | --------- |");
    for (const relay of RELAYS) {
      const p50 = percentile(samples[relay], 50);
      console.log(
        `| ${relay} | ${(p50 * 1000).toFixed(0)} µs | ${
          (p50 / direct).toFixed(2)
        }× |`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) await main(Deno.args);
