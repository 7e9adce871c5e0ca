// Test-only: a server with tools for HTTP tests, and raw and SDK clients.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createServer, text, type ToolServer } from "../../mod.ts";
import { type HttpServer, serveHttp, type ServeHttpOptions } from "./serve.ts";
import { CLOCK, type Clock } from "./_session_table.ts";

export const PROTOCOL = "2025-11-25";
export const ACCEPT = "application/json, text/event-stream";

export const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: PROTOCOL,
    capabilities: {},
    clientInfo: { name: "http-test", version: "1.0.0" },
  },
};

/** A call that has started and waits to be let go, for shutdown tests. */
export interface Gate {
  started: Promise<void>;
  release: () => void;
}

export function gate(): Gate & { enter: () => Promise<void> } {
  let entered!: () => void;
  let release!: () => void;
  const started = new Promise<void>((resolve) => entered = resolve);
  const released = new Promise<void>((resolve) => release = resolve);
  return {
    started,
    release,
    enter: () => {
      entered();
      return released;
    },
  };
}

export function makeServer(graceMs = 2000, held: Gate[] = []): ToolServer {
  const server = createServer({ name: "http-test", version: "1.0.0" }, {
    graceMs,
  });
  server.tool({
    name: "held",
    description: "Answers once the test lets it go, ignoring cancellation",
    handler: async () => {
      const next = held.shift() as ReturnType<typeof gate> | undefined;
      if (next === undefined) throw new Error("no gate prepared");
      await next.enter();
      return text("released");
    },
  });
  server.tool({
    name: "echo",
    description: "Echoes its text",
    input: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    },
    handler: (args) => text(String((args as { text: string }).text)),
  });
  server.tool({
    name: "whoami",
    description: "Answers the session id",
    handler: (_args, ctx) => text(ctx.sessionId ?? "none"),
  });
  server.tool({
    name: "slow",
    description: "Answers after ms milliseconds, ignoring cancellation",
    input: {
      type: "object",
      properties: { ms: { type: "number" } },
      required: ["ms"],
    },
    handler: async (args) => {
      const { ms } = args as { ms: number };
      await new Promise((resolve) => setTimeout(resolve, ms));
      return text(`slept ${ms}`);
    },
  });
  return server;
}

export function start(
  options: ServeHttpOptions = {},
  server: ToolServer = makeServer(),
): HttpServer & { server: ToolServer } {
  const http = serveHttp(server, {
    port: 0,
    handleSignals: false,
    onListen: () => {},
    ...options,
  });
  return Object.assign(http, { server });
}

export async function connectClient(
  url: URL,
  headers: Record<string, string> = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: "http-test-client", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers },
  });
  await client.connect(transport);
  return { client, transport };
}

export function post(
  url: URL,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: ACCEPT,
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Opens a session by hand; answers its id. */
export async function initialize(
  url: URL,
  headers: Record<string, string> = {},
): Promise<string> {
  const response = await post(url, INITIALIZE, headers);
  assert.equal(response.status, 200);
  const id = response.headers.get("mcp-session-id");
  assert.ok(id, "initialize answers an Mcp-Session-Id");
  await response.body?.cancel();
  const done = await post(
    url,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { "mcp-session-id": id, "mcp-protocol-version": PROTOCOL, ...headers },
  );
  assert.equal(done.status, 202);
  await done.body?.cancel();
  return id;
}

/** The JSON-RPC messages of an SSE or JSON response body. */
export async function messages(response: Response): Promise<unknown[]> {
  const body = await response.text();
  if (response.headers.get("content-type")?.includes("application/json")) {
    const parsed = JSON.parse(body);
    return Array.isArray(parsed) ? parsed : [parsed];
  }
  return body.split("\n")
    .filter((line) => line.startsWith("data: ") && line.length > 6)
    .map((line) => JSON.parse(line.slice(6)));
}

export async function errorOf(
  response: Response,
): Promise<{ code: number; message: string }> {
  const body = await response.json();
  assert.equal(body.jsonrpc, "2.0");
  return body.error;
}

/** A raw HTTP/1.1 exchange, for headers `fetch` will not send (Host). */
export async function rawRequest(
  port: number,
  head: string[],
  body = "",
): Promise<{ status: number; text: string }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const bytes = new TextEncoder().encode(
    [
      ...head,
      `content-length: ${new TextEncoder().encode(body).length}`,
      "connection: close",
      "",
      body,
    ]
      .join("\r\n"),
  );
  await conn.write(bytes);
  const reply = await new Response(conn.readable).text();
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1]);
  return { status, text: reply };
}

export function initializeHead(host: string, origin?: string): string[] {
  return [
    "POST /mcp HTTP/1.1",
    `host: ${host}`,
    ...(origin === undefined ? [] : [`origin: ${origin}`]),
    "content-type: application/json",
    `accept: ${ACCEPT}`,
  ];
}

/** `options` with the internal clock option set to `clock`. */
export function withClock<T extends object>(clock: Clock, options: T): T {
  return { ...options, [CLOCK]: clock };
}

/**
 * A clock that moves only when told, for the session table's timeouts and
 * the rate limit: `advance()` runs each tick that falls due on the way.
 */
export class FakeClock implements Clock {
  #now = 1_000_000;
  readonly #timers = new Set<{ ms: number; next: number; tick: () => void }>();

  now(): number {
    return this.#now;
  }

  every(ms: number, tick: () => void): () => void {
    const timer = { ms, next: this.#now + ms, tick };
    this.#timers.add(timer);
    return () => this.#timers.delete(timer);
  }

  /** How many periodic timers are running. */
  get timers(): number {
    return this.#timers.size;
  }

  /** Moves time on by `ms`, running the ticks due on the way in order. */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      let due: { ms: number; next: number; tick: () => void } | undefined;
      for (const timer of this.#timers) {
        if (timer.next <= end && (due === undefined || timer.next < due.next)) {
          due = timer;
        }
      }
      if (due === undefined) break;
      this.#now = due.next;
      due.next += due.ms;
      due.tick();
    }
    this.#now = end;
  }
}
