/**
 * What the HTTP handler costs per call, in process (no sockets): a
 * `tools/call` through `createHttpHandler()` in its modes, against the SDK's
 * web-standard transport used directly with the same server.
 *
 * ```sh
 * cd bench
 * deno bench -A http_bench.ts   # Deno's bench table (mean, p75, p99)
 * deno run -A http_bench.ts     # medians, the cases interleaved round by round
 * ```
 *
 * The `deno run` form exists because `deno bench` reports no median, and on
 * a shared machine the mean follows the neighbours' load more than the code.
 *
 * @module
 */

import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { createServer, text, type ToolServer } from "@forge/toolkit";
import { createHttpHandler, type HttpOptions } from "@forge/toolkit/http";

const URL_ = "http://127.0.0.1:8000/mcp";
const PROTOCOL = "2025-11-25";
const TOKEN = "bench-token-0123456789abcdef";
const BASE_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  host: "127.0.0.1:8000",
};
const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: PROTOCOL,
    capabilities: {},
    clientInfo: { name: "bench", version: "1" },
  },
});

function makeServer(): ToolServer {
  const server = createServer({ name: "bench", version: "1.0.0" });
  server.tool({
    name: "echo",
    description: "Echoes its text",
    input: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    },
    handler: (args) => text((args as { text: string }).text),
  });
  return server;
}

type Handle = (request: Request) => Promise<Response>;

/** Opens a session on `handle` (unless stateless); answers a caller of echo. */
async function caller(
  handle: Handle,
  extra: Record<string, string> = {},
  stateless = false,
): Promise<() => Promise<void>> {
  let headers: Record<string, string> = { ...BASE_HEADERS, ...extra };
  if (!stateless) {
    const response = await handle(
      new Request(URL_, { method: "POST", headers, body: INITIALIZE }),
    );
    await response.text();
    headers = {
      ...headers,
      "mcp-session-id": response.headers.get("mcp-session-id")!,
      "mcp-protocol-version": PROTOCOL,
    };
  } else headers["mcp-protocol-version"] = PROTOCOL;
  let id = 1;
  return async () => {
    const response = await handle(
      new Request(URL_, {
        method: "POST",
        headers,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: id++,
          method: "tools/call",
          params: { name: "echo", arguments: { text: "hi" } },
        }),
      }),
    );
    const body = await response.text();
    if (!body.includes('"text":"hi"')) throw new Error(`bad answer: ${body}`);
  };
}

function viaHandler(options: HttpOptions, extra = {}) {
  return caller(
    createHttpHandler(makeServer(), options),
    extra,
    options.stateless,
  );
}

/** The SDK transport alone, one session, no checks around it. */
async function viaSdk() {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
  });
  await makeServer().connect(transport);
  return caller((request) => transport.handleRequest(request));
}

const calls = {
  sdk: await viaSdk(),
  sse: await viaHandler({}),
  json: await viaHandler({ jsonResponse: true }),
  auth: await viaHandler({ auth: { token: TOKEN } }, {
    authorization: `Bearer ${TOKEN}`,
  }),
  resumable: await viaHandler({ eventHistory: 100 }),
  stateless: await viaHandler({ stateless: true }),
};

Deno.bench({
  name: "SDK transport alone, SSE",
  group: "tools/call",
  baseline: true,
  fn: calls.sdk,
});
Deno.bench({
  name: "createHttpHandler, SSE",
  group: "tools/call",
  fn: calls.sse,
});
Deno.bench({
  name: "createHttpHandler, jsonResponse",
  group: "tools/call",
  fn: calls.json,
});
Deno.bench({
  name: "createHttpHandler, bearer token",
  group: "tools/call",
  fn: calls.auth,
});
Deno.bench({
  name: "createHttpHandler, eventHistory 100",
  group: "tools/call",
  fn: calls.resumable,
});
Deno.bench({
  name: "createHttpHandler, stateless (a session per call)",
  group: "tools/call",
  fn: calls.stateless,
});

/** Per-call medians, every case timed in each round so load hits all alike. */
async function medians(rounds = 40, perRound = 50): Promise<void> {
  const samples = new Map<string, number[]>(
    Object.keys(calls).map((name) => [name, []]),
  );
  for (let round = 0; round < rounds; round++) {
    for (const [name, call] of Object.entries(calls)) {
      for (let i = 0; i < perRound; i++) {
        const started = performance.now();
        await call();
        samples.get(name)!.push(performance.now() - started);
      }
    }
  }
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
  };
  const base = median(samples.get("sdk")!);
  console.log(`tools/call medians, ${rounds * perRound} calls per case:`);
  for (const [name, values] of samples) {
    const m = median(values);
    console.log(
      `  ${name.padEnd(10)} ${(m * 1000).toFixed(1).padStart(7)} µs  ${
        (m / base).toFixed(2)
      }x the SDK transport alone`,
    );
  }
}

if (import.meta.main) await medians();
