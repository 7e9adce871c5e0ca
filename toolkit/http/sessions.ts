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
import { clientKey, type ConnectionInfo } from "./_client_address.ts";
import { RateLimiter } from "./_rate_limit.ts";
import { authInfoOf, ownerOf } from "./_auth_info.ts";
import { pathnameOf } from "./_pathname.ts";
import { readPostMessage } from "./_post.ts";
import {
  type Clock,
  clockOf,
  type SessionEntry,
  SessionTable,
} from "./_session_table.ts";
import {
  CODE,
  onBodyEnd,
  positiveInteger,
  rpcError,
  SESSION_HEADER,
  shuttingDown,
} from "./_response.ts";
import { checkWholeNumber } from "../_util/whole_number.ts";
import { sharesMemoryBetweenRequests } from "../_util/runtime.ts";

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
   * Whether requests share this process's memory, as sessions need (a
   * session lives where `initialize` made it). On Cloudflare Workers
   * (workerd), which promise no memory shared between requests, it is
   * `false`, and a handler with sessions is refused rather than losing
   * them: serve `stateless` there, or set it inside a Durable Object, whose
   * requests do share memory.
   *
   * @default {true, except on Cloudflare Workers}
   */
  sharedMemory?: boolean;
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
    info?: ConnectionInfo,
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
  if (
    options.stateless !== true &&
    !(options.sharedMemory ?? sharesMemoryBetweenRequests())
  ) {
    throw new TypeError(
      "Cannot create HTTP handler: sessions (2025-11-25) keep state in memory between requests, which this runtime (Cloudflare Workers) does not share: pass stateless: true, and keep tasks in a shared taskStore; inside a Durable Object, pass sharedMemory: true",
    );
  }
  const endpoint = new Endpoint(host, configOf(options), clockOf(options));
  const layer =
    ((request: Request, next, info) =>
      endpoint.handle(request, next, info)) as SessionsLayer;
  Object.defineProperties(layer, {
    sessionCount: { get: () => endpoint.sessionCount, enumerable: true },
    close: { value: () => endpoint.close(), enumerable: true },
  });
  return layer;
}

/** The options of {@linkcode sessions}, checked and with their defaults. */
interface Config {
  path: string;
  stateless: boolean;
  jsonResponse: boolean;
  idleMs: number;
  unusedMs: number;
  maxSessions: number;
  perMinute: number;
  burst: number;
  history: number;
  retryMs: number | undefined;
}

/** Checks `options`: TypeError for a wrong shape, RangeError out of range. */
function configOf(options: SessionsOptions): Config {
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
  checkWholeNumber(
    "Cannot create HTTP handler",
    "sessionsPerMinute",
    perMinute,
    {
      min: 1,
      or: Infinity,
    },
  );
  const burst = positiveInteger(
    "sessionBurst",
    options.sessionBurst,
    DEFAULT_SESSION_BURST,
  );
  const history = options.eventHistory ?? 0;
  checkWholeNumber("Cannot create HTTP handler", "eventHistory", history);
  const retryMs = options.retryMs === undefined
    ? undefined
    : positiveInteger("retryMs", options.retryMs, 0);
  return {
    path,
    stateless: options.stateless === true,
    jsonResponse: options.jsonResponse === true,
    idleMs,
    unusedMs,
    maxSessions,
    perMinute,
    burst,
    history,
    retryMs,
  };
}

type Transport = WebStandardStreamableHTTPServerTransport;
type Session = SessionEntry<Transport>;

/** The requests of one sessions layer, served from its session table. */
class Endpoint {
  readonly #host: SessionHost;
  readonly #config: Config;
  readonly #table: SessionTable<Transport>;
  readonly #limiter: RateLimiter;
  #closing: Promise<void> | undefined;

  constructor(host: SessionHost, config: Config, clock: Clock) {
    this.#host = host;
    this.#config = config;
    this.#table = new SessionTable({ ...config, clock });
    this.#limiter = new RateLimiter({
      perMinute: config.perMinute,
      burst: config.burst,
      now: () => clock.now(),
    });
  }

  get sessionCount(): number {
    return this.#table.size;
  }

  async handle(
    request: Request,
    next: (request: Request) => Promise<Response>,
    info: ConnectionInfo | undefined,
  ): Promise<Response> {
    if (this.#closing !== undefined) return shuttingDown();
    if (pathnameOf(request.url) !== this.#config.path) {
      return await next(request);
    }
    const sessionId = request.headers.get(SESSION_HEADER);
    const stateless = this.#config.stateless;
    switch (request.method) {
      case "POST":
        return await this.#post(request, sessionId, info);
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
        const session = this.#table.get(
          sessionId,
          ownerOf(authInfoOf(request)),
        );
        if (session === undefined) return sessionNotFound();
        this.#table.touch(session);
        return await this.#forward(session, request, undefined);
      }
      default:
        return methodNotAllowed(stateless ? "POST" : "GET, POST, DELETE");
    }
  }

  /**
   * Stops taking requests (new ones get 503); when the host has a
   * `close()`, calls it so in-flight calls finish within its grace period;
   * then closes every session.
   */
  close(): Promise<void> {
    return this.#closing ??= this.#shutdown();
  }

  async #shutdown(): Promise<void> {
    this.#table.stopExpiry();
    const closable = this.#host as SessionHost & { close?: unknown };
    if (typeof closable.close === "function") await closable.close();
    await this.#table.closeAll();
  }

  async #post(
    request: Request,
    sessionId: string | null,
    info: ConnectionInfo | undefined,
  ): Promise<Response> {
    const post = await readPostMessage(request, CODE.TRANSPORT);
    if (post.refusal !== undefined) return post.refusal;
    const message = post.message;
    const problem = checkMessages(message);
    if (problem !== undefined) {
      return rpcError(400, CODE.INVALID_REQUEST, `Invalid Request: ${problem}`);
    }
    if (this.#config.stateless) {
      const session = this.#newSession(false);
      // One request per session, with no initialize before it.
      session.transport.stateless = true;
      await this.#host.connect(session.transport);
      return await this.#forward(session, request, message, () => {
        session.transport.close().catch(() => {});
      });
    }
    if (sessionId !== null) {
      // Another user's session answers as an unknown one.
      const session = this.#table.get(sessionId, ownerOf(authInfoOf(request)));
      if (session === undefined) return sessionNotFound();
      this.#table.touch(session);
      return await this.#forward(session, request, message);
    }
    if (!isInitialize(message)) {
      return rpcError(
        400,
        CODE.TRANSPORT,
        "Bad Request: Mcp-Session-Id header is required (send initialize first)",
      );
    }
    // The address is read only when a session is to be made, not per call.
    const refusal = this.#admit(clientKey(info));
    if (refusal !== undefined) return refusal;
    // Bound to the user of the token that opens it, if any.
    const session = this.#newSession(true, ownerOf(authInfoOf(request)));
    try {
      await this.#host.connect(session.transport);
      return await this.#forward(session, request, message);
    } finally {
      this.#table.settle(session);
    }
  }

  /** A session in progress in the table, with its SDK transport. */
  #newSession(withId: boolean, owner?: string): Session {
    const table = this.#table;
    const history = this.#config.history;
    // The callback runs on the first request, once `session` is set.
    const session: Session = table.create(
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: withId ? () => crypto.randomUUID() : undefined,
        onsessioninitialized: (id: string) => table.bind(session, id),
        // JSON answers are collapsed from the SSE stream here: the SDK's own
        // JSON mode keeps one entry per POST for the session's lifetime and
        // never settles a request whose session closes (typescript-sdk#2559).
        eventStore: history > 0 && withId
          ? new MemoryEventStore(history)
          : undefined,
        retryInterval: this.#config.retryMs,
      }),
      owner,
    );
    session.transport.onclose = () => table.forget(session);
    return session;
  }

  /**
   * Whether a new session may be made now: undefined if so (after closing
   * the oldest unused session when the table is full), otherwise the
   * refusal, 503 when full of sessions in use, 429 when this client
   * created too many lately.
   */
  #admit(key: string | undefined): Response | undefined {
    const room = this.#table.room();
    if (!room.ok) return this.#tooManySessions(room.retryMs);
    if (key !== undefined) {
      const waitMs = this.#limiter.take(key);
      if (waitMs > 0) {
        const seconds = Math.ceil(waitMs / 1000);
        const { perMinute, burst } = this.#config;
        return rpcError(
          429,
          CODE.TRANSPORT,
          `Too Many Requests: this client may create ${perMinute} sessions a minute, ${burst} at once; retry in ${seconds} s`,
          { headers: { "retry-after": String(seconds) } },
        );
      }
    }
    if (room.victim !== undefined) this.#table.end(room.victim);
    return undefined;
  }

  #tooManySessions(waitMs: number): Response {
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    return rpcError(
      503,
      CODE.TRANSPORT,
      `Service Unavailable: ${this.#config.maxSessions} sessions are open, the most allowed; the first can end in ${seconds} s`,
      { headers: { "retry-after": String(seconds) } },
    );
  }

  /** Hands a request to a session's transport and tracks its response body. */
  async #forward(
    session: Session,
    request: Request,
    parsedBody: unknown,
    afterwards?: () => void,
  ): Promise<Response> {
    this.#table.enter(session);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      this.#table.leave(session);
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
    return this.#config.jsonResponse
      ? await collapseToJson(tracked, Array.isArray(parsedBody))
      : tracked;
  }
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
