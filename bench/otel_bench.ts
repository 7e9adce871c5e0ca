// What the OpenTelemetry layer costs a request: the same tools/call and
// tools/list through the in-memory client, on a server without the layer
// and on one with it, in the same run.
//
//   cd bench
//   deno run -A otel_bench.ts        medians of interleaved rounds, the
//                                    layer on a no-op API (no OTEL_DENO:
//                                    nothing recorded, nothing exported)
//   OTEL_DENO=true deno run -A otel_bench.ts
//                                    spans recorded and batched for export
//                                    by Deno (to localhost:4318, or nowhere)
//   deno bench -A otel_bench.ts      Deno's bench runner (averages)
import { createServer, text } from "@forge/toolkit";
import { otel } from "@forge/toolkit/otel";
import { connect } from "@forge/toolkit/testing";
import { z } from "zod";
import { interleavedMedians } from "./_interleave.ts";

const ROUNDS = 31;
const BATCH_MS = 5;

function server(traced: boolean) {
  const s = createServer({ name: "bench", version: "1" });
  if (traced) s.use(otel({ networkTransport: "pipe" }));
  s.tool({
    name: "echo",
    description: "Echoes its text",
    input: z.object({ text: z.string() }),
    handler: ({ text: value }) => text(value),
  });
  return s;
}

const plain = await connect(server(false));
const traced = await connect(server(true));
const ARGS = { text: "hello" };

const CASES = [
  {
    name: "tools/call, no layer",
    group: "call",
    baseline: true,
    fn: () => plain.call("echo", ARGS),
  },
  {
    name: "tools/call, otel()",
    group: "call",
    baseline: false,
    fn: () => traced.call("echo", ARGS),
  },
  {
    name: "tools/list, no layer",
    group: "list",
    baseline: true,
    fn: () => plain.request("tools/list"),
  },
  {
    name: "tools/list, otel()",
    group: "list",
    baseline: false,
    fn: () => traced.request("tools/list"),
  },
];

async function medians(): Promise<void> {
  const figures = await interleavedMedians(CASES, {
    rounds: ROUNDS,
    batchMs: BATCH_MS,
  });
  console.log(`medians of ${ROUNDS} interleaved rounds, ns per request`);
  for (const [i, c] of CASES.entries()) {
    console.log(`${c.name.padEnd(28)} ${figures[i].toFixed(0).padStart(8)}`);
  }
}

if (import.meta.main) {
  await medians();
  await plain.close();
  await traced.close();
} else {
  for (const { name, group, baseline, fn } of CASES) {
    Deno.bench(name, { group, baseline }, async () => {
      await fn();
    });
  }
}
