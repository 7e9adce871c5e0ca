import assert from "node:assert/strict";
import { cpuTimeMs, peakRss, spawnServer } from "./_driver.ts";
import { BENCH_CONFIG, BENCH_DIR } from "./_servers.ts";

const RAW = [
  Deno.execPath(),
  "run",
  "--config",
  BENCH_CONFIG,
  `${BENCH_DIR}/servers/raw_echo.ts`,
];
const INIT = {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "test", version: "1" },
};

function denoEval(code: string): string[] {
  return [Deno.execPath(), "eval", "--no-config", code];
}

Deno.test("ServerProcess matches pipelined answers to their requests by id", async () => {
  const server = spawnServer(RAW);
  const init = await server.request("initialize", INIT);
  assert.equal(init.result?.protocolVersion, "2025-11-25");
  const texts = Array.from({ length: 64 }, (_, i) => `call ${i}`);
  const answers = await Promise.all(
    texts.map((text) =>
      server.request("tools/call", { name: "echo", arguments: { text } })
    ),
  );
  assert.deepEqual(
    answers.map((a) => (a.result?.content as { text: string }[])[0].text),
    texts,
  );
  assert.equal(server.answered, 65);
  const exit = await server.close();
  assert.equal(exit.exited, true);
});

Deno.test("ServerProcess carries a 1 MiB argument both ways across split reads", async () => {
  const server = spawnServer(RAW);
  await server.request("initialize", INIT);
  const text = "é".repeat(1 << 19) + "x".repeat(1 << 19);
  const answer = await server.request("tools/call", {
    name: "echo",
    arguments: { text },
  });
  assert.equal((answer.result?.content as { text: string }[])[0].text, text);
  await server.close();
});

Deno.test("ServerProcess resolves JSON-RPC errors instead of rejecting", async () => {
  const server = spawnServer(RAW);
  const answer = await server.request("no/such/method", {});
  assert.equal(answer.error?.code, -32601);
  await server.close();
});

Deno.test("ServerProcess answers a server-to-client ping so the server can go on", async () => {
  // This server pings the client and answers the initialize only after the pong.
  const server = spawnServer(denoEval(`
    const out = (m) => Deno.stdout.write(new TextEncoder().encode(JSON.stringify(m) + "\\n"));
    let initId;
    for await (const line of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
      for (const part of line.split("\\n").filter(Boolean)) {
        const m = JSON.parse(part);
        if (m.method === "initialize") { initId = m.id; await out({ jsonrpc: "2.0", id: "p1", method: "ping" }); }
        else if (m.id === "p1" && m.result) await out({ jsonrpc: "2.0", id: initId, result: { pong: true } });
      }
    }
  `));
  const answer = await server.request("initialize", INIT);
  assert.deepEqual(answer.result, { pong: true });
  assert.equal(server.notifications, 1);
  await server.close();
});

Deno.test("ServerProcess rejects pending and later requests once the server dies", async () => {
  const server = spawnServer(denoEval("Deno.exit(3)"));
  await assert.rejects(
    server.request("initialize", INIT),
    /The server closed its stdout/,
  );
  await assert.rejects(server.request("ping"), /closed its stdout/);
  await server.kill();
});

Deno.test("ServerProcess rejects a line that is not JSON, naming it", async () => {
  const server = spawnServer(denoEval("console.log('Listening on stdio')"));
  await assert.rejects(
    server.request("initialize", INIT),
    /not JSON: Listening on stdio/,
  );
  await server.kill();
});

Deno.test("close() kills a server that ignores stdin EOF and says so", async () => {
  const server = spawnServer(denoEval("setInterval(() => {}, 1000)"));
  const exit = await server.close(200);
  assert.equal(exit.exited, false);
  assert.ok(exit.exitMs >= 190, `waited ${exit.exitMs} ms`);
});

Deno.test("spawnServer() refuses an empty command", () => {
  assert.throws(() => spawnServer([]), TypeError);
});

Deno.test("peakRss() reads a live process's peak and gives up on a missing one", async () => {
  if (Deno.build.os !== "linux") return;
  const own = await peakRss(Deno.pid);
  assert.ok(own !== undefined && own > 1024 * 1024, `got ${own}`);
  assert.equal(await peakRss(2 ** 30), undefined);
});

Deno.test("cpuTimeMs() grows with work done and gives up on a missing process", async () => {
  if (Deno.build.os !== "linux") return;
  const before = (await cpuTimeMs(Deno.pid))!;
  let x = 0;
  const start = performance.now();
  while (performance.now() - start < 30) x += Math.sqrt(x + 1);
  const after = (await cpuTimeMs(Deno.pid))!;
  assert.ok(after - before >= 10, `${before} → ${after} (${x})`);
  assert.equal(await cpuTimeMs(2 ** 30), undefined);
});
