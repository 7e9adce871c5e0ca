import assert from "node:assert/strict";
import { coldStart, runSession, type SessionPlan } from "./_measure.ts";
import { serverCatalogue, type ServerSpec } from "./_servers.ts";

const PLAN: SessionPlan = {
  warmup: 10,
  sequential: 50,
  pipelined: 200,
  inFlight: 64,
  big: 1,
  bigBytes: 1 << 20,
  probe: 5,
  eofInFlight: 64,
};

function spec(id: string): ServerSpec {
  return serverCatalogue().find((s) => s.id === id)!;
}

Deno.test("runSession() measures every workload on the raw loop", async () => {
  const result = await runSession(spec("raw-deno"), PLAN);
  assert.ok(result.coldMs > 0);
  if (Deno.build.os === "linux") {
    assert.ok(result.startCpuMs! > 0 && result.startCpuMs! < 10_000);
    assert.ok(result.cpuPerCallUs! > 0);
    assert.ok(result.bigCpuMs! > 0);
  }
  assert.equal(result.sequentialMs.length, 50);
  assert.ok(result.callsPerSecond > 0);
  assert.equal(result.bigMs.length, 1);
  assert.deepEqual(result.eof, {
    ...result.eof,
    answered: 64,
    sent: 64,
    exited: true,
  });
  assert.equal(result.probe, undefined);
  if (Deno.build.os === "linux") assert.ok(result.peakRssBytes! > 0);
});

Deno.test("runSession() compares probe, plain and pattern calls on the toolkit", async () => {
  const result = await runSession(spec("toolkit"), PLAN);
  assert.equal(result.probe?.probeMs.length, 5);
  assert.equal(result.probe?.plainMs.length, 5);
  assert.equal(result.probe?.patternMs.length, 5);
  assert.equal(result.eof.answered, 64);
});

Deno.test("runSession() fails a server that answers wrongly instead of timing it", async () => {
  const liar: ServerSpec = {
    id: "liar",
    label: "liar",
    runtime: "deno",
    probe: false,
    command: [
      Deno.execPath(),
      "eval",
      "--no-config",
      `
      const enc = new TextEncoder();
      for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
        for (const line of chunk.split("\\n").filter(Boolean)) {
          const m = JSON.parse(line);
          if (m.id === undefined) continue;
          const result = m.method === "initialize"
            ? { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "liar", version: "1" } }
            : m.method === "tools/list"
            ? { tools: [{ name: "echo", inputSchema: { type: "object" } }] }
            : { content: [{ type: "text", text: "not what you sent" }] };
          await Deno.stdout.write(enc.encode(JSON.stringify({ jsonrpc: "2.0", id: m.id, result }) + "\\n"));
        }
      }`,
    ],
  };
  await assert.rejects(
    runSession(liar, PLAN),
    /tools\/call echo answered wrongly/,
  );
});

Deno.test("coldStart() fails a server whose initialize is an error", async () => {
  const refuser: ServerSpec = {
    id: "refuser",
    label: "refuser",
    runtime: "deno",
    probe: false,
    command: [
      Deno.execPath(),
      "eval",
      "--no-config",
      `
      for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
        for (const line of chunk.split("\\n").filter(Boolean)) {
          const m = JSON.parse(line);
          await Deno.stdout.write(new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id: m.id, error: { code: -32602, message: "Unsupported protocol version" } }) + "\\n"));
        }
      }`,
    ],
  };
  await assert.rejects(
    coldStart(refuser),
    /initialize failed: .*Unsupported protocol version/,
  );
});
