/**
 * The requests every HTTP transport variant is timed with: a 2025-11-25
 * session (`initialize`, then `tools/call`) or a 2026-07-28 `tools/call`
 * that carries its `_meta` and the SEP-2243 headers, each answer checked.
 *
 * @module
 */

/** The endpoint every variant is asked at (in process: no socket). */
export const ENDPOINT = "http://127.0.0.1:8000/mcp";

/** One transport variant, opened: `call()` makes one checked `tools/call`. */
export interface Caller {
  /** Calls `echo` once and throws unless the answer echoes its text. */
  call(): Promise<void>;
}

/** A fetch-shaped handler, as every variant is mounted. */
export type Handle = (request: Request) => Promise<Response>;

const BASE_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  host: "127.0.0.1:8000",
};

/** The JSON Schema of `echo`'s input, for the toolkit's servers. */
export const ECHO_INPUT = {
  type: "object",
  properties: { text: { type: "string" } },
  required: ["text"],
} as const;

async function checked(response: Response, id: number): Promise<void> {
  const body = await response.text();
  // An SSE answer or a JSON one; either way the echoed text and the id.
  if (
    response.status !== 200 || !body.includes('"text":"hi"') ||
    !body.includes(`"id":${id}`)
  ) {
    throw new Error(
      `Unexpected answer to tools/call ${id}: ${response.status} ${body}`,
    );
  }
}

/** Opens a 2025-11-25 session on `handle`; its caller sends the session id. */
export async function sessionCaller(handle: Handle): Promise<Caller> {
  const opened = await handle(
    new Request(ENDPOINT, {
      method: "POST",
      headers: BASE_HEADERS,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "bench", version: "1" },
        },
      }),
    }),
  );
  await opened.text();
  const session = opened.headers.get("mcp-session-id");
  if (session === null) {
    throw new Error(`initialize answered no session id: ${opened.status}`);
  }
  const headers = {
    ...BASE_HEADERS,
    "mcp-session-id": session,
    "mcp-protocol-version": "2025-11-25",
  };
  await handle(
    new Request(ENDPOINT, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/initialized",
      }),
    }),
  );
  let id = 1;
  return {
    async call() {
      const current = id++;
      await checked(
        await handle(
          new Request(ENDPOINT, {
            method: "POST",
            headers,
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: current,
              method: "tools/call",
              params: { name: "echo", arguments: { text: "hi" } },
            }),
          }),
        ),
        current,
      );
    },
  };
}

/** The body of a 2026-07-28 `tools/call` of `echo` with this id. */
export function statelessCall(id: number): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: {
      name: "echo",
      arguments: { text: "hi" },
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
      },
    },
  };
}

/** The headers a 2026-07-28 `tools/call` of `echo` goes with. */
export const STATELESS_HEADERS: Readonly<Record<string, string>> = {
  ...BASE_HEADERS,
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/call",
  "mcp-name": "echo",
};

/** A caller that sends each `tools/call` as a 2026-07-28 request of its own. */
export function statelessCaller(handle: Handle): Caller {
  let id = 1;
  return {
    async call() {
      const current = id++;
      await checked(
        await handle(
          new Request(ENDPOINT, {
            method: "POST",
            headers: STATELESS_HEADERS,
            body: JSON.stringify(statelessCall(current)),
          }),
        ),
        current,
      );
    },
  };
}

/**
 * What a variant's file does when run as a cold process: serve the first
 * call, then print when the imports were done and when the answer was, in
 * milliseconds since the process started, as one JSON line.
 */
export async function coldStart(
  importedMs: number,
  open: () => Promise<Caller>,
): Promise<never> {
  const caller = await open();
  await caller.call();
  console.log(
    JSON.stringify({ importedMs, firstAnswerMs: performance.now() }),
  );
  // Session timers would keep the process alive: the figure is taken.
  Deno.exit(0);
}

/**
 * What an import-only file does when run: print when its imports were done
 * (there is no answer to wait for), as one JSON line.
 */
export function importOnly(importedMs: number): never {
  console.log(JSON.stringify({ importedMs, firstAnswerMs: importedMs }));
  Deno.exit(0);
}
