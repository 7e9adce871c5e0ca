/**
 * The sessions layer: MCP's Streamable HTTP transport on one path, one
 * session per `initialize` (or one per request when stateless), each served
 * by a {@linkcode SessionHost} such as a `ToolServer`.
 *
 * @module
 */

import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { McpTransport, SessionHost } from "../jsonrpc/types.ts";
import { jsonType } from "../_util/json_type.ts";
import { checkMessage } from "../jsonrpc/_check.ts";
import { collapseToJson } from "./_collapse_sse.ts";
import { MemoryEventStore } from "./_event_store.ts";
import {
  CODE,
  onBodyEnd,
  positiveInteger,
  rpcError,
  SESSION_HEADER,
  shuttingDown,
} from "./_response.ts";

/**
 * How long a session may sit unused before it is closed by default: 15 minutes.
 *
 * @example
 * ```ts
 * import { DEFAULT_SESSION_IDLE_MS } from "@forge/toolkit/http";
 *
 * const minutes = DEFAULT_SESSION_IDLE_MS / 60_000; // 15
 * ```
 */
export const DEFAULT_SESSION_IDLE_MS: number = 15 * 60 * 1000;

/**
 * How many sessions may be open at once by default.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_SESSIONS } from "@forge/toolkit/http";
 *
 * const sessions = DEFAULT_MAX_SESSIONS; // 1000
 * ```
 */
export const DEFAULT_MAX_SESSIONS: number = 1000;

const MAX_SWEEP_MS = 60_000;
const MIN_SWEEP_MS = 10;

/**
 * Options for {@linkcode sessions}.
 *
 * @example
 * ```ts
 * import type { SessionsOptions } from "@forge/toolkit/http";
 *
 * const options: SessionsOptions = { path: "/api/mcp", maxSessions: 100 };
 * ```
 */
export interface SessionsOptions {
  /**
   * The URL path the MCP endpoint answers on; other paths go to `next`.
   *
   * @default {"/mcp"}
   */
  path?: string;
  /**
   * Serve every POST with a fresh session and keep nothing between
   * requests, for deployments behind a load balancer. There is no
   * `Mcp-Session-Id`, GET and DELETE get 405, and requests from the server
   * to the client (sampling, elicitation) cannot be answered.
   *
   * @default {false}
   */
  stateless?: boolean;
  /**
   * Close a session after this long without a request or an open stream,
   * in milliseconds.
   *
   * @default {900000}
   */
  sessionIdleMs?: number;
  /**
   * The most sessions open at once; an `initialize` beyond it gets 503.
   *
   * @default {1000}
   */
  maxSessions?: number;
  /**
   * Answer requests with one JSON body instead of an SSE stream (progress
   * and log notifications of a call are then not delivered, and requests to
   * the client cannot be made).
   *
   * @default {false}
   */
  jsonResponse?: boolean;
  /**
   * Keep this many of a session's most recent SSE events so that a client
   * that lost a stream can resume it with `Last-Event-ID`; 0 turns
   * resumability off. With it on, streams to 2025-11-25 clients open with a
   * priming event.
   *
   * @default {0}
   */
  eventHistory?: number;
  /**
   * The reconnection delay suggested in priming events, in milliseconds.
   *
   * @default {undefined}
   */
  retryMs?: number;
}

/**
 * The sessions layer, as {@linkcode sessions} returns it: an
 `HttpLayer` with a count of its sessions and a way to end them.
 *
 * @example
 * ```ts
 * import { createServer } from "@forge/toolkit";
 * import { sessions, type SessionsLayer } from "@forge/toolkit/http";
 *
 * const mcp: SessionsLayer = sessions(createServer({ name: "s", version: "1" }));
 * mcp.sessionCount; // 0
 * await mcp.close();
 * ```
 */
export interface SessionsLayer {
  /** Answers a request at the endpoint; hands any other to `next`. */
  (
    request: Request,
    next: (request: Request) => Promise<Response>,
  ): Promise<Response>;
  /** The number of open sessions. */
  readonly sessionCount: number;
  /**
   * Stops taking requests (new ones get 503); when the host has a
   * `close()` (a `ToolServer` does), calls it so in-flight calls finish
   * within its grace period; then closes every session.
   */
  close(): Promise<void>;
}

/**
 * The SDK transport as this module uses it (the SDK's package map gives its
 * subpath modules no types).
 */
interface SdkHttpTransport extends McpTransport {
  handleRequest(
    request: Request,
    options?: { parsedBody?: unknown },
  ): Promise<Response>;
}

interface HttpSession {
  id: string | undefined;
  transport: SdkHttpTransport;
  /** Requests whose response body is still open. */
  active: number;
  lastSeen: number;
}

/**
 * Creates the sessions layer serving `host` at `options.path` (`/mcp`):
 * status codes in the order the spec implies (405, 406, 415, then the
 * body's 400), one session per `initialize` routed by `Mcp-Session-Id`,
 * ended by `DELETE` and expired when idle. It reads the body whole, so put
 * {@linkcode bodyLimit} in front of it; {@linkcode createHttpHandler}
 * composes it with the other layers.
 *
 * @example Beside other routes in Deno.serve
 * ```ts ignore
 * import { createServer, text } from "@forge/toolkit";
 * import { bodyLimit, sessions } from "@forge/toolkit/http";
 *
 * const server = createServer({ name: "hello", version: "0.1.0" });
 * server.tool({ name: "ping", description: "Answers pong", handler: () => text("pong") });
 *
 * const limit = bodyLimit();
 * const mcp = sessions(server);
 * const site = () => Promise.resolve(new Response("hello"));
 * Deno.serve({ hostname: "127.0.0.1", port: 8080 }, (request) =>
 *   limit(request, (limited) => mcp(limited, site)));
 * ```
 */
export function sessions(
  host: SessionHost,
  options: SessionsOptions = {},
): SessionsLayer {
  if (typeof host?.connect !== "function") {
    throw new TypeError(
      `Cannot create HTTP handler: expected a SessionHost (an object with connect(), such as a ToolServer), got ${
        jsonType(host)
      }`,
    );
  }
  const path = options.path ?? "/mcp";
  if (typeof path !== "string" || !path.startsWith("/")) {
    throw new TypeError(
      `Cannot create HTTP handler: path must start with "/", got ${
        JSON.stringify(path)
      }`,
    );
  }
  const idleMs = positiveInteger(
    "sessionIdleMs",
    options.sessionIdleMs,
    DEFAULT_SESSION_IDLE_MS,
  );
  const maxSessions = positiveInteger(
    "maxSessions",
    options.maxSessions,
    DEFAULT_MAX_SESSIONS,
  );
  const history = options.eventHistory ?? 0;
  if (!Number.isSafeInteger(history) || history < 0) {
    throw new RangeError(
      `Cannot create HTTP handler: eventHistory must be an integer >= 0, got ${history}`,
    );
  }
  const retryMs = options.retryMs === undefined
    ? undefined
    : positiveInteger("retryMs", options.retryMs, 0);
  const stateless = options.stateless === true;
  const jsonResponse = options.jsonResponse === true;

  const open = new Map<string, HttpSession>();
  /** Sessions created for one request: stateless ones and initialisations in progress. */
  const transient = new Set<HttpSession>();
  let closing: Promise<void> | undefined;
  let sweeper: ReturnType<typeof setInterval> | undefined;

  function newSession(withId: boolean): HttpSession {
    const session: HttpSession = {
      id: undefined,
      transport: undefined as unknown as SdkHttpTransport,
      active: 0,
      lastSeen: performance.now(),
    };
    session.transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: withId ? () => crypto.randomUUID() : undefined,
      onsessioninitialized: (id: string) => {
        session.id = id;
        open.set(id, session);
        startSweeper();
      },
      // JSON answers are collapsed from the SSE stream here: the SDK's own
      // JSON mode keeps one entry per POST for the session's lifetime and
      // never settles a request whose session closes (typescript-sdk#2559).
      eventStore: history > 0 && withId
        ? new MemoryEventStore(history)
        : undefined,
      retryInterval: retryMs,
    }) as SdkHttpTransport;
    session.transport.onclose = () => {
      transient.delete(session);
      if (session.id !== undefined) open.delete(session.id);
    };
    return session;
  }

  function startSweeper(): void {
    if (sweeper !== undefined) return;
    const every = Math.min(MAX_SWEEP_MS, Math.max(MIN_SWEEP_MS, idleMs / 2));
    const timer = setInterval(() => {
      const now = performance.now();
      for (const session of open.values()) {
        if (session.active === 0 && now - session.lastSeen >= idleMs) {
          session.transport.close().catch(() => {});
        }
      }
      if (open.size === 0) stopSweeper();
    }, every);
    sweeper = timer;
    Deno.unrefTimer(timer);
  }

  function stopSweeper(): void {
    clearInterval(sweeper);
    sweeper = undefined;
  }

  /** Hands a request to a session's transport and tracks its response body. */
  async function forward(
    session: HttpSession,
    request: Request,
    parsedBody: unknown,
    afterwards?: () => void,
  ): Promise<Response> {
    session.active++;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      session.active--;
      session.lastSeen = performance.now();
      afterwards?.();
    };
    let response: Response;
    try {
      response = await session.transport.handleRequest(
        request,
        parsedBody === undefined ? undefined : { parsedBody },
      );
    } catch (error) {
      finish();
      throw error;
    }
    const tracked = onBodyEnd(response, finish);
    return jsonResponse
      ? await collapseToJson(tracked, Array.isArray(parsedBody))
      : tracked;
  }

  async function handlePost(
    request: Request,
    sessionId: string | null,
  ): Promise<Response> {
    const accept = request.headers.get("accept") ?? "";
    if (
      !accept.includes("application/json") ||
      !accept.includes("text/event-stream")
    ) {
      return rpcError(
        406,
        CODE.TRANSPORT,
        "Not Acceptable: Accept must list application/json and text/event-stream",
      );
    }
    if (!isJsonMediaType(request.headers.get("content-type"))) {
      return rpcError(
        415,
        CODE.TRANSPORT,
        `Unsupported Media Type: Content-Type must be application/json, got ${
          request.headers.get("content-type") ?? "none"
        }`,
      );
    }
    // A body limit in front makes this read fail; the failure is its to answer.
    const body = await request.text();
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch (error) {
      return rpcError(
        400,
        CODE.PARSE_ERROR,
        `Parse error: ${(error as Error).message}`,
      );
    }
    const problem = checkMessages(message);
    if (problem !== undefined) {
      return rpcError(400, CODE.INVALID_REQUEST, `Invalid Request: ${problem}`);
    }

    if (stateless) {
      const session = newSession(false);
      // One request per session, with no initialize before it.
      session.transport.stateless = true;
      transient.add(session);
      await host.connect(session.transport);
      return await forward(session, request, message, () => {
        session.transport.close().catch(() => {});
      });
    }
    if (sessionId !== null) {
      const session = open.get(sessionId);
      if (session === undefined) return sessionNotFound();
      return await forward(session, request, message);
    }
    if (!isInitialize(message)) {
      return rpcError(
        400,
        CODE.TRANSPORT,
        "Bad Request: Mcp-Session-Id header is required (send initialize first)",
      );
    }
    if (open.size + transient.size >= maxSessions) {
      return rpcError(
        503,
        CODE.TRANSPORT,
        `Service Unavailable: ${maxSessions} sessions are open, the most allowed`,
        { "retry-after": "5" },
      );
    }
    const session = newSession(true);
    transient.add(session);
    try {
      await host.connect(session.transport);
      return await forward(session, request, message);
    } finally {
      transient.delete(session);
      // An initialisation the transport refused leaves a session nobody can reach.
      if (session.id === undefined) session.transport.close().catch(() => {});
    }
  }

  async function handle(
    request: Request,
    next: (request: Request) => Promise<Response>,
  ): Promise<Response> {
    if (closing !== undefined) return shuttingDown();
    if (new URL(request.url).pathname !== path) return await next(request);
    const sessionId = request.headers.get(SESSION_HEADER);
    switch (request.method) {
      case "POST":
        return await handlePost(request, sessionId);
      case "GET":
      case "DELETE": {
        if (stateless) return methodNotAllowed("POST");
        if (sessionId === null) {
          return rpcError(
            400,
            CODE.TRANSPORT,
            "Bad Request: Mcp-Session-Id header is required",
          );
        }
        const session = open.get(sessionId);
        if (session === undefined) return sessionNotFound();
        return await forward(session, request, undefined);
      }
      default:
        return methodNotAllowed(stateless ? "POST" : "GET, POST, DELETE");
    }
  }

  async function shutdown(): Promise<void> {
    stopSweeper();
    const closable = host as SessionHost & { close?: unknown };
    if (typeof closable.close === "function") await closable.close();
    const all = [...open.values(), ...transient];
    await Promise.all(all.map((s) => s.transport.close().catch(() => {})));
    open.clear();
    transient.clear();
  }

  const layer =
    ((request: Request, next) => handle(request, next)) as SessionsLayer;
  Object.defineProperties(layer, {
    sessionCount: { get: () => open.size, enumerable: true },
    close: {
      value: () => (closing ??= shutdown()),
      enumerable: true,
    },
  });
  return layer;
}

function isJsonMediaType(value: string | null): boolean {
  if (value === null) return false;
  const semicolon = value.indexOf(";");
  const type = (semicolon === -1 ? value : value.slice(0, semicolon)).trim();
  return type.toLowerCase() === "application/json";
}

/** What is wrong with a body's JSON-RPC 2.0 shape, if anything. */
function checkMessages(body: unknown): string | undefined {
  if (Array.isArray(body)) {
    if (body.length === 0) {
      return "expected a JSON-RPC message, got an empty batch";
    }
    for (const [index, message] of body.entries()) {
      const problem = checkMessage(message)?.problem;
      if (problem !== undefined) return `message ${index}: ${problem}`;
    }
    return undefined;
  }
  return checkMessage(body)?.problem;
}

function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) =>
    (m as Record<string, unknown>).method === "initialize" &&
    "id" in (m as Record<string, unknown>)
  );
}

function sessionNotFound(): Response {
  return rpcError(
    404,
    CODE.SESSION_NOT_FOUND,
    "Session not found: it ended or expired; send initialize to start a new one",
  );
}

function methodNotAllowed(allow: string): Response {
  return rpcError(
    405,
    CODE.TRANSPORT,
    `Method Not Allowed: use ${allow}`,
    { allow },
  );
}
