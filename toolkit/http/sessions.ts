/**
 * The sessions layer: MCP's Streamable HTTP transport on one path, one
 * session per `initialize` (or one per request when stateless), each served
 * by a {@linkcode SessionHost} such as a `ToolServer`.
 *
 * @module
 */

// @ts-types="./_sdk_http_transport.d.ts"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { SessionHost } from "../jsonrpc/types.ts";
import type { SdkHandleRequestOptions } from "./_sdk_http_transport.d.ts";
import { jsonType } from "../_util/json_type.ts";
import { checkMessage } from "../jsonrpc/_check.ts";
import { collapseToJson } from "./_collapse_sse.ts";
import { MemoryEventStore } from "./_event_store.ts";
import { clientKey } from "./_client_address.ts";
import { RateLimiter } from "./_rate_limit.ts";
import { authInfoOf } from "./_auth_info.ts";
import { pathnameOf } from "./_pathname.ts";
import { readPostMessage } from "./_post.ts";
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

/**
 * How long a session may wait for its first request after `initialize`
 * before it is closed by default: 10 seconds. A client sends
 * `notifications/initialized` at once, so only abandoned or hostile
 * sessions reach it.
 *
 * @example
 * ```ts
 * import { DEFAULT_UNUSED_SESSION_MS } from "@forge/toolkit/http";
 *
 * const seconds = DEFAULT_UNUSED_SESSION_MS / 1000; // 10
 * ```
 */
export const DEFAULT_UNUSED_SESSION_MS: number = 10_000;

/**
 * How many sessions one client address may create per minute by default,
 * after a burst of {@linkcode DEFAULT_SESSION_BURST}: 20. With the default
 * idle timeout, one address can then hold at most 60 + 20 × 15 = 360
 * sessions that completed their handshake.
 *
 * @example
 * ```ts
 * import { createServer } from "@forge/toolkit";
 * import { DEFAULT_SESSIONS_PER_MINUTE, sessions } from "@forge/toolkit/http";
 *
 * // Behind a proxy, where every client has the proxy's address.
 * const mcp = sessions(createServer({ name: "s", version: "1" }), {
 *   sessionsPerMinute: 10 * DEFAULT_SESSIONS_PER_MINUTE,
 * });
 * await mcp.close();
 * ```
 */
export const DEFAULT_SESSIONS_PER_MINUTE: number = 20;

/**
 * How many sessions one client address may create at once after a quiet
 * spell by default: 60, room for a test harness or a conformance run.
 *
 * @example
 * ```ts
 * import { createServer } from "@forge/toolkit";
 * import { DEFAULT_SESSION_BURST, sessions } from "@forge/toolkit/http";
 *
 * const mcp = sessions(createServer({ name: "s", version: "1" }), {
 *   sessionBurst: DEFAULT_SESSION_BURST / 2,
 * });
 * await mcp.close();
 * ```
 */
export const DEFAULT_SESSION_BURST: number = 60;

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
   * Close a session that has had no request since its `initialize` after
   * this long, in milliseconds. When `maxSessions` are open, an
   * `initialize` closes the oldest such session instead of getting 503, so
   * a flood of bare initializes cannot lock other clients out.
   *
   * @default {10000}
   */
  unusedSessionMs?: number;
  /**
   * The most sessions open at once; an `initialize` beyond it gets 503
   * with a `Retry-After` that says when the first of them can expire
   * (unless one is still unused, which is closed to make room).
   *
   * @default {1000}
   */
  maxSessions?: number;
  /**
   * How many sessions one client address may create per minute (an IPv6
   * address counts by its /64); one more gets 429 with a `Retry-After`.
   * `Infinity` turns the limit off. The address is the `info` that
   * `Deno.serve` hands a handler: requests without it, or from a Unix
   * socket, are not limited; behind a proxy every client has the proxy's
   * address.
   *
   * @default {20}
   */
  sessionsPerMinute?: number;
  /**
   * How many sessions one client address may create at once after a quiet
   * spell, before `sessionsPerMinute` paces it.
   *
   * @default {60}
   */
  sessionBurst?: number;
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
  /**
   * Answers a request at the endpoint; hands any other to `next`. `info`
   * is what `Deno.serve` passes a handler: its `remoteAddr` is the address
   * that session creation is rate-limited by.
   */
  (
    request: Request,
    next: (request: Request) => Promise<Response>,
    info?: { readonly remoteAddr: Deno.Addr },
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

interface HttpSession {
  id: string | undefined;
  transport: WebStandardStreamableHTTPServerTransport;
  /** Requests whose response body is still open. */
  active: number;
  lastSeen: number;
  /** When `initialize` made it a session, for the unused timeout. */
  createdAt: number;
  /** Whether a request has come with its id since `initialize`. */
  used: boolean;
}

/**
 * Creates the sessions layer serving `host` at `options.path` (`/mcp`):
 * status codes in the order the spec implies (405, 406, 415, then the
 * body's 400), one session per `initialize` routed by `Mcp-Session-Id`,
 * ended by `DELETE` and expired when idle (soon when never used after
 * `initialize`), created at most `sessionsPerMinute` a minute per client
 * address (pass `Deno.serve`'s `info` as the third argument). It reads the body whole, so put
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
 * // `info` carries the client address that session creation is limited by.
 * Deno.serve({ hostname: "127.0.0.1", port: 8080 }, (request, info) =>
 *   limit(request, (limited) => mcp(limited, site, info)));
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
  const unusedMs = positiveInteger(
    "unusedSessionMs",
    options.unusedSessionMs,
    DEFAULT_UNUSED_SESSION_MS,
  );
  const maxSessions = positiveInteger(
    "maxSessions",
    options.maxSessions,
    DEFAULT_MAX_SESSIONS,
  );
  const perMinute = options.sessionsPerMinute ?? DEFAULT_SESSIONS_PER_MINUTE;
  if (
    perMinute !== Infinity &&
    (!Number.isSafeInteger(perMinute) || perMinute < 1)
  ) {
    throw new RangeError(
      `Cannot create HTTP handler: sessionsPerMinute must be a positive integer or Infinity, got ${perMinute}`,
    );
  }
  const burst = positiveInteger(
    "sessionBurst",
    options.sessionBurst,
    DEFAULT_SESSION_BURST,
  );
  const limiter = new RateLimiter({ perMinute, burst });
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
  /** The open sessions not used since `initialize`, oldest first. */
  const unused = new Set<HttpSession>();
  /** Sessions created for one request: stateless ones and initialisations in progress. */
  const transient = new Set<HttpSession>();
  let closing: Promise<void> | undefined;
  let sweeper: ReturnType<typeof setInterval> | undefined;

  function newSession(withId: boolean): HttpSession {
    const session: HttpSession = {
      id: undefined,
      transport:
        undefined as unknown as WebStandardStreamableHTTPServerTransport,
      active: 0,
      lastSeen: performance.now(),
      createdAt: performance.now(),
      used: false,
    };
    session.transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: withId ? () => crypto.randomUUID() : undefined,
      onsessioninitialized: (id: string) => {
        session.id = id;
        session.createdAt = performance.now();
        // Counted once: open from here on, no longer in progress.
        transient.delete(session);
        open.set(id, session);
        unused.add(session);
        startSweeper();
      },
      // JSON answers are collapsed from the SSE stream here: the SDK's own
      // JSON mode keeps one entry per POST for the session's lifetime and
      // never settles a request whose session closes (typescript-sdk#2559).
      eventStore: history > 0 && withId
        ? new MemoryEventStore(history)
        : undefined,
      retryInterval: retryMs,
    });
    session.transport.onclose = () => forget(session);
    return session;
  }

  function forget(session: HttpSession): void {
    transient.delete(session);
    unused.delete(session);
    if (session.id !== undefined) open.delete(session.id);
  }

  /** Closes a session and takes it out of the tables at once. */
  function end(session: HttpSession): void {
    forget(session);
    session.transport.close().catch(() => {});
  }

  /** A request came with the session's id: it is in use. */
  function touch(session: HttpSession): void {
    if (session.used) return;
    session.used = true;
    unused.delete(session);
  }

  /**
   * When `session` expires unless a request comes first: an unused one
   * `unusedMs` after `initialize`, whether or not the answer to it is still
   * being sent; any one `idleMs` after its last request ended, never while
   * a stream is open.
   */
  function deadline(session: HttpSession): number {
    const idle = session.active === 0 ? session.lastSeen + idleMs : Infinity;
    return session.used ? idle : Math.min(idle, session.createdAt + unusedMs);
  }

  /** Ends every session past its deadline; answers the earliest deadline left. */
  function sweep(now: number): number {
    let earliest = Infinity;
    for (const session of open.values()) {
      const at = deadline(session);
      if (at <= now) end(session);
      else earliest = Math.min(earliest, at);
    }
    return earliest;
  }

  function startSweeper(): void {
    if (sweeper !== undefined) return;
    const every = Math.min(
      MAX_SWEEP_MS,
      Math.max(MIN_SWEEP_MS, Math.min(idleMs, unusedMs) / 2),
    );
    const timer = setInterval(() => {
      sweep(performance.now());
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
      // The SDK hands authInfo to the session untouched, as extra.authInfo.
      const authInfo = authInfoOf(request) as SdkHandleRequestOptions[
        "authInfo"
      ];
      response = await session.transport.handleRequest(
        request,
        parsedBody === undefined && authInfo === undefined
          ? undefined
          : { parsedBody, authInfo },
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

  /**
   * Whether a new session may be made now: undefined if so (after closing
   * the oldest unused session when the table is full), otherwise the
   * refusal, 503 when full of sessions in use, 429 when this client
   * created too many lately.
   */
  function admit(key: string | undefined): Response | undefined {
    let victim: HttpSession | undefined;
    if (open.size + transient.size >= maxSessions) {
      const now = performance.now();
      // Exact here, whatever the sweeper's period: the Retry-After below
      // promises room once the earliest deadline has passed.
      const earliest = sweep(now);
      if (open.size + transient.size >= maxSessions) {
        victim = unused.values().next().value;
        if (victim === undefined) return tooManySessions(earliest, now);
      }
    }
    if (key !== undefined) {
      const waitMs = limiter.take(key);
      if (waitMs > 0) {
        const seconds = Math.ceil(waitMs / 1000);
        return rpcError(
          429,
          CODE.TRANSPORT,
          `Too Many Requests: this client may create ${perMinute} sessions a minute, ${burst} at once; retry in ${seconds} s`,
          { headers: { "retry-after": String(seconds) } },
        );
      }
    }
    if (victim !== undefined) end(victim);
    return undefined;
  }

  function tooManySessions(earliest: number, now: number): Response {
    // Initialisations in progress become unused sessions, which a new
    // initialize may close; with every session streaming, none can expire
    // sooner than idleMs after its stream ends.
    const waitMs = transient.size > 0
      ? 1000
      : earliest === Infinity
      ? idleMs
      : earliest - now;
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    return rpcError(
      503,
      CODE.TRANSPORT,
      `Service Unavailable: ${maxSessions} sessions are open, the most allowed; the first can end in ${seconds} s`,
      { headers: { "retry-after": String(seconds) } },
    );
  }

  async function handlePost(
    request: Request,
    sessionId: string | null,
    info: { readonly remoteAddr: Deno.Addr } | undefined,
  ): Promise<Response> {
    const post = await readPostMessage(request, CODE.TRANSPORT);
    if (post.refusal !== undefined) return post.refusal;
    const message = post.message;
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
      touch(session);
      return await forward(session, request, message);
    }
    if (!isInitialize(message)) {
      return rpcError(
        400,
        CODE.TRANSPORT,
        "Bad Request: Mcp-Session-Id header is required (send initialize first)",
      );
    }
    // The address is read only when a session is to be made, not per call.
    const refusal = admit(clientKey(info));
    if (refusal !== undefined) return refusal;
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
    info: { readonly remoteAddr: Deno.Addr } | undefined,
  ): Promise<Response> {
    if (closing !== undefined) return shuttingDown();
    if (pathnameOf(request.url) !== path) return await next(request);
    const sessionId = request.headers.get(SESSION_HEADER);
    switch (request.method) {
      case "POST":
        return await handlePost(request, sessionId, info);
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
        touch(session);
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
    unused.clear();
    transient.clear();
  }

  const layer =
    ((request: Request, next, info) =>
      handle(request, next, info)) as SessionsLayer;
  Object.defineProperties(layer, {
    sessionCount: { get: () => open.size, enumerable: true },
    close: {
      value: () => (closing ??= shutdown()),
      enumerable: true,
    },
  });
  return layer;
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
    { headers: { allow } },
  );
}
