/**
 * Peak RSS (VmHWM) of the raw loop, the raw loop with zod loaded, and the
 * toolkit's echo server, under three loads: 20 000 pipelined echo calls with
 * 64 in flight; 5 calls with a 1 MiB argument; and 60 000 pipelined calls of
 * a pattern tool (the toolkit's `note`; the raw loops have none, so they get
 * `echo` with the same arguments). Alternating rounds, medians.
 *
 * ```sh
 * cd bench
 * deno run -A memory.ts            # 3 rounds
 * deno run -A memory.ts --rounds=5
 * ```
 *
 * @module
 */

/** Each server's file, and the tool the pattern-tool load calls. */
const SERVERS: Record<string, { file: string; patternTool: string }> = {
  "raw loop": {
    file: new URL("./servers/raw_echo.ts", import.meta.url).pathname,
    patternTool: "echo",
  },
  "raw loop + zod": {
    file: new URL("./servers/raw_zod_echo.ts", import.meta.url).pathname,
    patternTool: "echo",
  },
  "@forge/toolkit": {
    file: new URL("./servers/toolkit_echo.ts", import.meta.url).pathname,
    patternTool: "note",
  },
};
const LOADS = ["idle", "pipelined", "1 MiB", "pattern tool"] as const;
type Load = typeof LOADS[number];

async function peakMiB(
  server: { file: string; patternTool: string },
  load: Load,
): Promise<number> {
  const { file } = server;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", file],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  let answered = 0;
  const reading = (async () => {
    for await (const chunk of child.stdout) {
      for (const byte of chunk) if (byte === 10) answered++;
    }
  })();
  const send = (message: unknown) =>
    writer.write(encoder.encode(JSON.stringify(message) + "\n"));
  const until = async (count: number) => {
    while (answered < count) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  };
  const call = (id: number, text: string, name = "echo") =>
    send({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: {
        name,
        arguments: name === "echo" ? { text } : { path: "notes/a.txt", text },
      },
    });
  const pipelined = async (total: number, name: string) => {
    let sent = 0;
    while (sent < total) {
      while (sent < total && sent - (answered - 1) < 64) {
        await call(1 + sent++, "hello", name);
      }
      await until(answered + 1);
    }
    await until(total + 1);
  };
  await send({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "memory", version: "1" },
    },
  });
  await until(1);
  if (load === "pipelined") {
    await pipelined(20_000, "echo");
  } else if (load === "pattern tool") {
    await pipelined(60_000, server.patternTool);
  } else if (load === "1 MiB") {
    const big = "x".repeat(1 << 20);
    for (let i = 1; i <= 5; i++) {
      await call(i, big);
      await until(i + 1);
    }
  }
  const status = await Deno.readTextFile(`/proc/${child.pid}/status`);
  await writer.close();
  await reading;
  await child.status;
  return Number(/VmHWM:\s+(\d+)/.exec(status)![1]) / 1024;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
}

if (import.meta.main) {
  const rounds = Number(
    Deno.args.find((a) => a.startsWith("--rounds="))?.slice(9) ?? 3,
  );
  const names = Object.keys(SERVERS);
  const samples = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    // Rotate the order so load from neighbours spreads over every server.
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length];
      for (const load of LOADS) {
        const key = `${name}\0${load}`;
        samples.set(key, [
          ...(samples.get(key) ?? []),
          await peakMiB(SERVERS[name], load),
        ]);
      }
    }
  }
  console.log(
    `Peak RSS (VmHWM, MiB), medians of ${rounds} alternating rounds; (×) = ratio to the raw loop`,
  );
  console.log(`| server | ${LOADS.join(" | ")} |`);
  console.log(`|---|${LOADS.map(() => "--:").join("|")}|`);
  for (const name of names) {
    const cells = LOADS.map((load) => {
      const value = median(samples.get(`${name}\0${load}`)!);
      const floor = median(samples.get(`raw loop\0${load}`)!);
      return `${value.toFixed(1)} (${(value / floor).toFixed(2)}×)`;
    });
    console.log(`| ${name} | ${cells.join(" | ")} |`);
  }
}
