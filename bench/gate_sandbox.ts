/**
 * What the sandbox costs a gate's cold start: `startGate()` in front of a
 * server, from the call to the server's answer to `initialize`, unfenced
 * and fenced (`sandbox: true`, bubblewrap), alternating, N starts each.
 * Two servers: the toolkit's echo server (Deno) and the official
 * filesystem server (`npm:` under Deno). Prints the medians side by side.
 *
 * ```sh
 * cd bench && deno task gate-sandbox            # 15 starts of each
 * cd bench && deno task gate-sandbox --starts=5
 * ```
 *
 * @module
 */

import { startGate } from "@forge/toolkit/gate";
import { serverCommand } from "./gate.ts";
import { INITIALIZE_PARAMS } from "./_measure.ts";
import { median, percentile } from "./_stats.ts";

const FILESYSTEM = "npm:@modelcontextprotocol/server-filesystem@2026.8.31";

/** One cold start: startGate() until `initialize` is answered; then closed. */
async function coldStart(
  command: readonly string[],
  policy: string,
  sandbox: boolean,
): Promise<number> {
  const host = new TransformStream<Uint8Array, Uint8Array>();
  const answers = new TransformStream<Uint8Array, Uint8Array>();
  const writer = host.writable.getWriter();
  const reader = answers.readable.pipeThrough(new TextDecoderStream())
    .getReader();
  const start = performance.now();
  const gate = await startGate(command, {
    policy,
    sandbox,
    readable: host.readable,
    writable: answers.writable,
    log: () => {},
  });
  await writer.write(
    new TextEncoder().encode(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: INITIALIZE_PARAMS,
      }) + "\n",
    ),
  );
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("The gate closed before answering initialize");
    text += value;
  }
  const elapsed = performance.now() - start;
  if (!text.includes('"result"')) throw new Error(`Not started: ${text}`);
  await writer.close();
  await gate.finished;
  reader.releaseLock();
  return elapsed;
}

function startsOf(args: readonly string[]): number {
  const given = args.find((arg) => arg.startsWith("--starts="));
  const starts = given === undefined ? 15 : Number(given.slice(9));
  if (!Number.isInteger(starts) || starts < 1) {
    throw new RangeError(`Invalid --starts: expected a whole number >= 1`);
  }
  return starts;
}

if (import.meta.main) {
  const starts = startsOf(Deno.args);
  const dir = await Deno.realPath(await Deno.makeTempDir());
  await Deno.mkdir(`${dir}/root/notes`, { recursive: true });
  const policy = `${dir}/policy.yaml`;
  await Deno.writeTextFile(
    policy,
    `roots: ["${dir}/root"]\nunprobed: allow\nallow: ["read:**", "write:notes/**"]\n`,
  );
  const servers: [string, string[]][] = [
    ["toolkit echo (deno)", serverCommand()],
    [
      "server-filesystem (deno npm:)",
      [
        Deno.execPath(),
        "run",
        "-A",
        "--no-lock",
        "--quiet",
        FILESYSTEM,
        `${dir}/root`,
      ],
    ],
  ];
  const rows: string[] = [];
  for (const [name, command] of servers) {
    // One untimed start of each warms the caches.
    await coldStart(command, policy, false);
    await coldStart(command, policy, true);
    const plain: number[] = [];
    const fenced: number[] = [];
    for (let i = 0; i < starts; i++) {
      // Alternating, so drift on a shared machine falls on both.
      const first = i % 2 === 0;
      (first ? plain : fenced).push(await coldStart(command, policy, !first));
      (first ? fenced : plain).push(await coldStart(command, policy, first));
    }
    const [p, f] = [median(plain), median(fenced)];
    rows.push(
      `| ${name} | ${p.toFixed(0)} ms | ${f.toFixed(0)} ms | ${
        f >= p ? "+" : "−"
      }${Math.abs(f - p).toFixed(0)} ms | ${
        percentile(plain, 90).toFixed(0)
      } / ${percentile(fenced, 90).toFixed(0)} ms |`,
    );
  }
  await Deno.remove(dir, { recursive: true });
  console.log(
    `Cold start, startGate() to the answer to initialize, ${starts} starts each:

| server | unfenced (median) | fenced (median) | fence | p90 unfenced / fenced |
| ------ | ----------------- | --------------- | ----- | --------------------- |
${rows.join("\n")}`,
  );
}
