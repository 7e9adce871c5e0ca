/**
 * A bounded load test of the Streamable HTTP transport on loopback.
 *
 * Starts a toolkit server in a child process (this file with `--serve`),
 * then runs `--clients` sessions at once, each calling an echo tool until
 * `--calls` calls have been made in total, in two equal rounds. Every answer
 * is checked against its request, so a lost or crossed answer counts as an
 * error. Prints calls/s, latency percentiles, errors, and the server's live
 * heap (after a forced GC) and RSS after warm-up and after each round, then
 * stops by itself.
 *
 * ```sh
 * cd bench
 * deno run -A http_load.ts                      # 20 000 calls, 50 clients, SSE answers
 * deno run -A http_load.ts --json               # JSON answers instead of SSE
 * deno run -A http_load.ts --calls 5000 --clients 10
 * ```
 *
 * @module
 */

import { createServer, text } from "@forge/toolkit";
import { serveHttp } from "@forge/toolkit/http";

const PROTOCOL = "2025-11-25";
const ACCEPT = "application/json, text/event-stream";
const WARMUP_CALLS = 500;

interface Options {
  calls: number;
  clients: number;
  json: boolean;
}

function parseOptions(args: string[]): Options {
  const options: Options = { calls: 20_000, clients: 50, json: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--json") options.json = true;
    else if (arg === "--calls" || arg === "--clients") {
      const value = Number(args[++i]);
      if (!Number.isSafeInteger(value) || value < 1) {
        throw new RangeError(
          `Invalid arguments: ${arg} expects a positive integer, got ${
            args[i]
          }`,
        );
      }
      options[arg === "--calls" ? "calls" : "clients"] = value;
    } else throw new TypeError(`Invalid arguments: unknown option: ${arg}`);
  }
  return options;
}

/** The child: a server with one echo tool, on a free port, printing its URL. */
async function serve(json: boolean): Promise<void> {
  const server = createServer({ name: "load", version: "1.0.0" });
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
  server.tool({
    name: "heap",
    description:
      "Collects garbage, then answers the live heap and RSS in bytes",
    handler: () => {
      (globalThis as { gc?: () => void }).gc?.();
      const { heapUsed, rss } = Deno.memoryUsage();
      return text(JSON.stringify({ heapUsed, rss }));
    },
  });
  const http = serveHttp(server, {
    port: 0,
    jsonResponse: json,
    onListen: (url) => console.log(url.href),
  });
  await http.finished;
}

function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: ACCEPT, ...headers },
    body: JSON.stringify(body),
  });
}

/** The one JSON-RPC answer in an SSE or JSON body. */
async function answerOf(response: Response): Promise<Record<string, unknown>> {
  const body = await response.text();
  if (response.headers.get("content-type")?.startsWith("application/json")) {
    return JSON.parse(body);
  }
  const line = body.split("\n").find((l) => l.startsWith("data: {"));
  if (line === undefined) throw new Error(`no answer in ${body.slice(0, 200)}`);
  return JSON.parse(line.slice(6));
}

class Session {
  #url: string;
  #headers: Record<string, string> = {};
  #nextId = 1;

  constructor(url: string) {
    this.#url = url;
  }

  async open(): Promise<void> {
    const response = await post(this.#url, {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: PROTOCOL,
        capabilities: {},
        clientInfo: { name: "load", version: "1" },
      },
    }, {});
    const id = response.headers.get("mcp-session-id");
    await response.body?.cancel();
    if (id === null) throw new Error(`initialize answered ${response.status}`);
    this.#headers = { "mcp-session-id": id, "mcp-protocol-version": PROTOCOL };
    const done = await post(
      this.#url,
      { jsonrpc: "2.0", method: "notifications/initialized" },
      this.#headers,
    );
    await done.body?.cancel();
  }

  /** One echo call; throws unless the answer is this call's. */
  async call(tag: string): Promise<void> {
    const id = this.#nextId++;
    const response = await post(this.#url, {
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "echo", arguments: { text: tag } },
    }, this.#headers);
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new Error(`HTTP ${response.status}`);
    }
    const answer = await answerOf(response) as {
      id: number;
      result?: { content: { text: string }[] };
    };
    if (answer.id !== id || answer.result?.content[0].text !== tag) {
      throw new Error(`crossed answer: ${JSON.stringify(answer)}`);
    }
  }

  /** The server's live heap and RSS, in MiB. */
  async memory(): Promise<string> {
    const response = await post(this.#url, {
      jsonrpc: "2.0",
      id: this.#nextId++,
      method: "tools/call",
      params: { name: "heap", arguments: {} },
    }, this.#headers);
    const answer = await answerOf(response) as {
      result: { content: { text: string }[] };
    };
    const { heapUsed, rss } = JSON.parse(answer.result.content[0].text);
    const mib = (bytes: number) => (bytes / 1048576).toFixed(1);
    return `heap ${mib(heapUsed)} MiB, RSS ${mib(rss)} MiB`;
  }

  async close(): Promise<void> {
    const response = await fetch(this.#url, {
      method: "DELETE",
      headers: this.#headers,
    });
    await response.body?.cancel();
  }
}

interface Round {
  seconds: number;
  latencies: number[];
  errors: string[];
}

/** Runs `total` calls spread over the sessions, all sessions at once. */
async function round(sessions: Session[], total: number): Promise<Round> {
  const latencies: number[] = [];
  const errors: string[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(sessions.map(async (session, s) => {
    while (next < total) {
      const n = next++;
      const begun = performance.now();
      try {
        await session.call(`s${s}-c${n}`);
        latencies.push(performance.now() - begun);
      } catch (error) {
        errors.push((error as Error).message);
      }
    }
  }));
  return { seconds: (performance.now() - started) / 1000, latencies, errors };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

async function main(): Promise<void> {
  if (Deno.args[0] === "--serve") {
    await serve(Deno.args.includes("--json"));
    return;
  }
  const options = parseOptions(Deno.args);
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--v8-flags=--expose-gc",
      new URL(import.meta.url).pathname,
      "--serve",
      ...(options.json ? ["--json"] : []),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let url = "";
  while (!url.includes("\n")) {
    const { value, done } = await lines.read();
    if (done) throw new Error("the server exited before listening");
    url += value;
  }
  url = url.trim();
  try {
    const sessions = Array.from(
      { length: options.clients },
      () => new Session(url),
    );
    await Promise.all(sessions.map((s) => s.open()));
    await round(sessions, WARMUP_CALLS);
    const memory = [await sessions[0].memory()];
    const half = Math.ceil(options.calls / 2);
    const rounds: Round[] = [];
    for (const calls of [half, options.calls - half]) {
      rounds.push(await round(sessions, calls));
      memory.push(await sessions[0].memory());
    }
    await Promise.all(sessions.map((s) => s.close()));

    const latencies = rounds.flatMap((r) => r.latencies).sort((a, b) => a - b);
    const errors = rounds.flatMap((r) => r.errors);
    const seconds = rounds.reduce((sum, r) => sum + r.seconds, 0);
    console.log(
      `http_load: ${options.calls} calls, ${options.clients} concurrent sessions, ${
        options.json ? "JSON" : "SSE"
      } answers`,
    );
    console.log(
      `  ${(latencies.length / seconds).toFixed(0)} calls/s, p50 ${
        percentile(latencies, 0.5).toFixed(2)
      } ms, p99 ${percentile(latencies, 0.99).toFixed(2)} ms, max ${
        latencies.at(-1)!.toFixed(2)
      } ms`,
    );
    console.log(
      `  answered ${latencies.length}/${options.calls}, errors ${errors.length}${
        errors.length > 0 ? ` (first: ${errors[0]})` : ""
      }`,
    );
    console.log(`  server after warm-up: ${memory[0]}`);
    console.log(`  server after round 1: ${memory[1]}`);
    console.log(`  server after round 2: ${memory[2]}`);
    if (errors.length > 0 || latencies.length !== options.calls) {
      Deno.exitCode = 1;
    }
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await lines.cancel();
  }
}

if (import.meta.main) await main();
