// The toolkit's in-process paths, each against what a server author would
// write by hand: argument decoding, result building, schema conversion
// (computed once per tool: listTools() must not redo it), the probe, and a
// whole tools/call through the in-memory client.
//
//   cd bench
//   deno bench -A toolkit_bench.ts    Deno's bench runner (averages)
//   deno run -A toolkit_bench.ts      medians, all cases interleaved
//                                     round by round, side by side
import {
  createServer,
  json,
  registerPatternTool,
  text,
  type ToolContext,
} from "@forge/toolkit";
import { wrapProbe } from "@forge/toolkit/probe";
import { decodeArguments, toJsonSchema } from "@forge/toolkit/args";
import { connect } from "@forge/toolkit/testing";
import { z } from "zod";
import { interleavedMedians } from "./_interleave.ts";

const ROUNDS = 31;
const BATCH_MS = 5;

const ECHO = z.object({ text: z.string() });
const ECHO_JSON = toJsonSchema(ECHO);
const SEARCH = z.object({
  query: z.string().min(1),
  limit: z.number().int().min(1).max(100).optional(),
  tags: z.array(z.string()).optional(),
  mode: z.enum(["fast", "exact"]).optional(),
  since: z.string().optional(),
});
const SEARCH_JSON = toJsonSchema(SEARCH);
const SEARCH_ARGS = {
  query: "stdio transport",
  limit: 20,
  tags: ["mcp", "deno"],
  mode: "exact",
  since: "2025-01-01",
};

// 20 tools, half with a 1-argument and half with a 5-argument schema.
const listed = createServer({ name: "bench", version: "1.0.0" });
const SCHEMAS = Array.from(
  { length: 20 },
  (_, i) => i % 2 === 0 ? ECHO : SEARCH,
);
SCHEMAS.forEach((input, i) =>
  listed.tool({
    name: `tool_${i}`,
    description: `Tool number ${i}`,
    input,
    handler: () => text("ok"),
  })
);

// wrapProbe() reads only `meta` from the context; the server builds the rest.
const CONTEXT = {
  signal: new AbortController().signal,
  meta: {},
  requestId: 1,
  toolName: "note",
} as unknown as ToolContext;
const PROBE_CONTEXT = {
  ...CONTEXT,
  meta: { "forge.permission_patterns": true },
} as ToolContext;
const NOTE_ARGS = { path: "notes/today.txt", text: "hello" };
const plainHandler = (args: typeof NOTE_ARGS) =>
  text(`write:${args.path} ${args.text}`);
const wrapped = wrapProbe(
  { patterns: (args: typeof NOTE_ARGS) => [`write:${args.path}`] },
  (args, ctx) => text(`${ctx.access[0]} ${args.text}`),
);

const full = createServer({ name: "bench-full", version: "1.0.0" });
full.tool({
  name: "echo",
  description: "Echoes its text",
  input: ECHO,
  handler: ({ text: value }) => text(value),
});
registerPatternTool(full, {
  name: "note",
  description: "Echoes a note as if it were written to a path",
  input: z.object({ path: z.string(), text: z.string() }),
  patterns: ({ path }) => [`write:${path}`],
  handler: ({ text: value }, ctx) => text(`${ctx.access[0]} ${value}`),
});
const client = await connect(full);

interface Case {
  name: string;
  group: string;
  baseline?: boolean;
  fn: () => unknown;
}

const CASES: Case[] = [
  {
    name: "decode: hand-written check of { text }",
    group: "decode echo",
    baseline: true,
    fn: () => {
      const args: Record<string, unknown> = { text: "hello" };
      if (typeof args.text !== "string") throw new TypeError("text");
    },
  },
  {
    name: "decode: zod safeParse() alone",
    group: "decode echo",
    fn: () => ECHO.safeParse({ text: "hello" }),
  },
  {
    name: "decode: decodeArguments(), zod schema",
    group: "decode echo",
    fn: () => decodeArguments({ text: "hello" }, ECHO_JSON, { schema: ECHO }),
  },
  {
    name: "decode: decodeArguments(), JSON Schema only",
    group: "decode echo",
    fn: () => decodeArguments({ text: "hello" }, ECHO_JSON),
  },
  {
    name: "decode: 5 arguments, valid",
    group: "decode search",
    baseline: true,
    fn: () =>
      decodeArguments({ ...SEARCH_ARGS }, SEARCH_JSON, { schema: SEARCH }),
  },
  {
    // What the model sees when it gets a call wrong: every problem, named.
    name: "decode: 5 arguments, 3 problems and a typo",
    group: "decode search",
    fn: () =>
      decodeArguments(
        { query: "", limit: 0, tags: "mcp", quey: "x" },
        SEARCH_JSON,
        { schema: SEARCH },
      ),
  },
  {
    name: "result: object literal",
    group: "result",
    baseline: true,
    fn: () => ({ content: [{ type: "text", text: "hello" }] }),
  },
  { name: "result: text()", group: "result", fn: () => text("hello") },
  {
    name: "result: json(), 5 keys",
    group: "result",
    fn: () => json(SEARCH_ARGS),
  },
  {
    name: "schema: listTools(), 20 tools (cached)",
    group: "tools/list",
    baseline: true,
    fn: () => listed.listTools(),
  },
  {
    name: "schema: toJsonSchema() x 20 (uncached list)",
    group: "tools/list",
    fn: () => {
      for (const schema of SCHEMAS) toJsonSchema(schema);
    },
  },
  {
    name: "schema: toJsonSchema(), 5 arguments",
    group: "schema",
    fn: () => toJsonSchema(SEARCH),
  },
  {
    name: "probe: plain handler",
    group: "probe",
    baseline: true,
    fn: () => plainHandler(NOTE_ARGS),
  },
  {
    name: "probe: wrapProbe() handler, real call",
    group: "probe",
    fn: () => wrapped(NOTE_ARGS, CONTEXT),
  },
  {
    name: "probe: wrapProbe() handler, probe",
    group: "probe",
    fn: () => wrapped(NOTE_ARGS, PROBE_CONTEXT),
  },
  {
    name: "call: in-memory tools/call echo",
    group: "call",
    baseline: true,
    fn: () => client.call("echo", { text: "hello" }),
  },
  {
    name: "call: in-memory probe of a pattern tool",
    group: "call",
    fn: () => client.probe("note", NOTE_ARGS),
  },
  {
    name: "call: in-memory real call, pattern tool",
    group: "call",
    fn: () => client.call("note", NOTE_ARGS),
  },
];

/** Interleaves all cases round by round and prints each one's median. */
async function medians(): Promise<void> {
  const figures = await interleavedMedians(CASES, {
    rounds: ROUNDS,
    batchMs: BATCH_MS,
  });
  console.log(`medians of ${ROUNDS} interleaved rounds, ns per call`);
  for (const [i, c] of CASES.entries()) {
    console.log(`${c.name.padEnd(48)} ${figures[i].toFixed(0).padStart(10)}`);
  }
}

if (import.meta.main) {
  await medians();
  await client.close();
} else {
  for (const { name, group, baseline, fn } of CASES) {
    Deno.bench(name, { group, baseline }, async () => {
      await fn();
    });
  }
}
