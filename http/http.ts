/**
 * Streamable HTTP for a {@linkcode ToolServer}: a `Request → Response`
 * handler built on the SDK's web-standard transport, and `serveHttp()` to run
 * it on `Deno.serve`.
 *
 * What the handler adds around the SDK transport: one MCP session per
 * `initialize` (routed by `Mcp-Session-Id`, ended by `DELETE`, expired when
 * idle) or a fresh session per request in stateless mode; DNS-rebinding
 * protection on by default; optional bearer-token auth compared in constant
 * time; its own body limit, read before anything is parsed; status codes
 * checked in the order the spec implies (406, 415, 413, 400); an in-memory
 * event history so a client can resume an SSE stream with `Last-Event-ID`;
 * and a graceful shutdown that lets in-flight calls finish.
 *
 * @module
 */

import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { ToolServer } from "../server/server.ts";
import type { McpTransport } from "../jsonrpc/types.ts";
import { jsonType } from "../_util/json_type.ts";
import { checkMessage } from "../jsonrpc/_check.ts";
import { RPC_ERROR } from "../jsonrpc/errors.ts";

/**
 * The default limit on one request body: 4 MiB.
 *
 * @example
 * ```ts
 * import { createServer } from "@forge/toolkit";
 * import { createHttpHandler, DEFAULT_MAX_BODY_BYTES } from "@forge/toolkit/http";
 *
 * // Room for larger arguments.
 * createHttpHandler(createServer({ name: "s", version: "1" }), {
 *   maxBodyBytes: 4 * DEFAULT_MAX_BODY_BYTES,
 * });
 * ```
 */
export const DEFAULT_MAX_BODY_BYTES: number = 4 * 1024 * 1024;

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
 * Host names a local server answers to unless told otherwise.
 *
 * @example Accept a public name as well
 * ```ts
 * import { createServer } from "@forge/toolkit";
 * import { createHttpHandler, LOOPBACK_HOSTS } from "@forge/toolkit/http";
 *
 * createHttpHandler(createServer({ name: "s", version: "1" }), {
 *   allowedHosts: [...LOOPBACK_HOSTS, "mcp.example.com"],
 * });
 * ```
 */
export const LOOPBACK_HOSTS: readonly string[] = Object.freeze([
  "localhost",
  "127.0.0.1",
  "[::1]",
]);

const SESSION_HEADER = "mcp-session-id";
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const MAX_SWEEP_MS = 60_000;
const MIN_SWEEP_MS = 10;

/** JSON-RPC error codes used in HTTP error bodies: the transport's own beside the standard ones. */
const CODE = {
  TRANSPORT: -32000,
  SESSION_NOT_FOUND: -32001,
  PARSE_ERROR: RPC_ERROR.PARSE_ERROR,
  INVALID_REQUEST: RPC_ERROR.INVALID_REQUEST,
  INTERNAL_ERROR: RPC_ERROR.INTERNAL_ERROR,
} as const;

/**
 * Bearer-token authentication: either a fixed `token` or a `verify`
 * callback, not both.
 *
 * @example
 * ```ts
 * import type { HttpAuth } from "@forge/toolkit/http";
 *
 * const fixed: HttpAuth = { token: "Zm9vYmFyYmF6" };
 * const checked: HttpAuth = { verify: (token) => token.startsWith("team-") };
 * ```
 */
export interface HttpAuth {
  /**
   * The one token clients must send as `Authorization: Bearer <token>`:
   * RFC 6750 characters (`A-Z a-z 0-9 - . _ ~ + /`, then `=` padding).
   * Compared in constant time.
   *
   * @default {undefined}
   */
  token?: string;
  /**
   * Decides whether a presented token is good. A throw answers 500 and is
   * logged without the token.
   *
   * @default {undefined}
   */
  verify?: (token: string, request: Request) => boolean | Promise<boolean>;
  /**
   * The realm named in `WWW-Authenticate`.
   *
   * @default {"mcp"}
   */
  realm?: string;
}

/**
 * Options for {@linkcode createHttpHandler}.
 *
 * @example
 * ```ts
 * import type { HttpOptions } from "@forge/toolkit/http";
 *
 * const options: HttpOptions = { stateless: true, jsonResponse: true };
 * ```
 */
export interface HttpOptions {
  /**
   * The URL path the MCP endpoint answers on; other paths get 404.
   *
   * @default {"/mcp"}
   */
  path?: string;
  /**
   * Check `Host` and `Origin` against the allowed hosts and origins and
   * answer 403 otherwise, so that a web page cannot reach a local server
   * through a rebound DNS name.
   *
   * @default {true}
   */
  dnsRebindingProtection?: boolean;
  /**
   * Host names (`example.com`, any port) or hosts (`example.com:8443`, that
   * port only) accepted in the `Host` header. IPv6 addresses in brackets.
   *
   * @default {["localhost", "127.0.0.1", "[::1]"]}
   */
  allowedHosts?: readonly string[];
  /**
   * Origins (`https://app.example.com`) accepted in the `Origin` header.
   * Without it, an origin is accepted when its host name is an allowed host.
   *
   * @default {undefined}
   */
  allowedOrigins?: readonly string[];
  /**
   * Require a bearer token.
   *
   * @default {undefined}
   */
  auth?: HttpAuth;
  /**
   * The largest request body accepted, in bytes; a larger one gets 413.
   *
   * @default {4194304}
   */
  maxBodyBytes?: number;
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
 * A `Request → Response` function serving MCP at one path, with
 * `close()` to shut it down. Mount it in `Deno.serve`, Hono or Deno Deploy.
 *
 * @example
 * ```ts ignore
 * import { createServer } from "@forge/toolkit";
 * import { createHttpHandler } from "@forge/toolkit/http";
 *
 * const handler = createHttpHandler(createServer({ name: "s", version: "1" }));
 * const listener = Deno.serve({ port: 8080 }, handler);
 * // later
 * await handler.close();
 * await listener.shutdown();
 * ```
 */
export interface HttpHandler {
  /** Answers one HTTP request. */
  (request: Request): Promise<Response>;
  /** The number of open sessions. */
  readonly sessionCount: number;
  /**
   * Stops taking requests (new ones get 503), lets in-flight tool calls
   * finish within the server's `graceMs`, then closes every session and the
   * server.
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

interface Guard {
  path: string;
  hosts: Set<string> | undefined;
  origins: Set<string> | undefined;
  auth: ((request: Request) => Promise<Response | undefined>) | undefined;
}

/**
 * Creates the HTTP handler for `server`: MCP's Streamable HTTP transport at
 * `options.path` (`/mcp`).
 *
 * @example Mounting it in Deno.serve
 * ```ts ignore
 * import { createServer, text } from "@forge/toolkit";
 * import { createHttpHandler } from "@forge/toolkit/http";
 *
 * const server = createServer({ name: "hello", version: "0.1.0" });
 * server.tool({ name: "ping", description: "Answers pong", handler: () => text("pong") });
 *
 * const handler = createHttpHandler(server, { auth: { token: Deno.env.get("TOKEN")! } });
 * Deno.serve({ hostname: "127.0.0.1", port: 8080 }, handler);
 * ```
 */
export function createHttpHandler(
  server: ToolServer,
  options: HttpOptions = {},
): HttpHandler {
  if (typeof server?.connect !== "function") {
    throw new TypeError(
      `Cannot create HTTP handler: expected a ToolServer, got ${
        jsonType(server)
      }`,
    );
  }
  const guard = makeGuard(options);
  const maxBody = positiveInteger(
    "maxBodyBytes",
    options.maxBodyBytes,
    DEFAULT_MAX_BODY_BYTES,
  );
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

  const sessions = new Map<string, HttpSession>();
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
        sessions.set(id, session);
        startSweeper();
      },
      // JSON answers are collapsed from the SSE stream here: the SDK's own
      // JSON mode keeps one entry per POST for the session's lifetime and
      // never settles a request whose session closes (typescript-sdk#2559).
      eventStore: history > 0 && withId
        ? new MemoryEventStore(history)
        : undefined,
      retryInterval: retryMs,
      // The handler has already read and bounded the body; this is a backstop.
      maxRequestBodySize: maxBody,
    }) as SdkHttpTransport;
    session.transport.onclose = () => {
      transient.delete(session);
      if (session.id !== undefined) sessions.delete(session.id);
    };
    return session;
  }

  function startSweeper(): void {
    if (sweeper !== undefined) return;
    const every = Math.min(MAX_SWEEP_MS, Math.max(MIN_SWEEP_MS, idleMs / 2));
    const timer = setInterval(() => {
      const now = performance.now();
      for (const session of sessions.values()) {
        if (session.active === 0 && now - session.lastSeen >= idleMs) {
          session.transport.close().catch(() => {});
        }
      }
      if (sessions.size === 0) stopSweeper();
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
    const body = await readBody(request, maxBody);
    if (body === undefined) {
      return rpcError(
        413,
        CODE.TRANSPORT,
        `Payload Too Large: the body exceeds the limit of ${maxBody} bytes`,
      );
    }
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
    const forwarded = guard.auth === undefined
      ? request
      : withoutAuthorization(request);

    if (stateless) {
      const session = newSession(false);
      transient.add(session);
      await server.connect(session.transport);
      return await forward(session, forwarded, message, () => {
        session.transport.close().catch(() => {});
      });
    }
    if (sessionId !== null) {
      const session = sessions.get(sessionId);
      if (session === undefined) return sessionNotFound();
      return await forward(session, forwarded, message);
    }
    if (!isInitialize(message)) {
      return rpcError(
        400,
        CODE.TRANSPORT,
        "Bad Request: Mcp-Session-Id header is required (send initialize first)",
      );
    }
    if (sessions.size + transient.size >= maxSessions) {
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
      await server.connect(session.transport);
      return await forward(session, forwarded, message);
    } finally {
      transient.delete(session);
      // An initialisation the transport refused leaves a session nobody can reach.
      if (session.id === undefined) session.transport.close().catch(() => {});
    }
  }

  async function handle(request: Request): Promise<Response> {
    if (closing !== undefined) {
      return rpcError(
        503,
        CODE.TRANSPORT,
        "Service Unavailable: the server is shutting down",
        { connection: "close" },
      );
    }
    if (!(request instanceof Request)) {
      throw new TypeError(
        `Cannot handle HTTP request: expected a Request, got ${
          jsonType(request)
        }`,
      );
    }
    const refused = await checkRequest(guard, request);
    if (refused !== undefined) return refused;

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
        const session = sessions.get(sessionId);
        if (session === undefined) return sessionNotFound();
        const forwarded = guard.auth === undefined
          ? request
          : withoutAuthorization(request);
        return await forward(session, forwarded, undefined);
      }
      default:
        return methodNotAllowed(stateless ? "POST" : "GET, POST, DELETE");
    }
  }

  async function shutdown(): Promise<void> {
    stopSweeper();
    await server.close();
    const open = [...sessions.values(), ...transient];
    await Promise.all(open.map((s) => s.transport.close().catch(() => {})));
    sessions.clear();
    transient.clear();
  }

  const handler = ((request: Request) => handle(request)) as HttpHandler;
  Object.defineProperties(handler, {
    sessionCount: { get: () => sessions.size, enumerable: true },
    close: {
      value: () => (closing ??= shutdown()),
      enumerable: true,
    },
  });
  return handler;
}

/**
 * Options for {@linkcode serveHttp}.
 *
 * @example
 * ```ts
 * import type { ServeHttpOptions } from "@forge/toolkit/http";
 *
 * const options: ServeHttpOptions = { hostname: "127.0.0.1", port: 8080 };
 * ```
 */
export interface ServeHttpOptions extends HttpOptions {
  /**
   * The TCP port; 0 picks a free one.
   *
   * @default {8000}
   */
  port?: number;
  /**
   * The address to listen on. Loopback by default: exposing a server to the
   * network is a decision, not a default.
   *
   * @default {"127.0.0.1"}
   */
  hostname?: string;
  /**
   * Shut down gracefully on SIGINT and SIGTERM (where the platform has them).
   *
   * @default {true}
   */
  handleSignals?: boolean;
  /**
   * Called once listening; by default the URL is printed to stderr.
   *
   * @default {undefined}
   */
  onListen?: (url: URL) => void;
}

/**
 * A running HTTP server, as {@linkcode serveHttp} returns it.
 *
 * @example
 * ```ts ignore
 * import { createServer } from "@forge/toolkit";
 * import { serveHttp } from "@forge/toolkit/http";
 *
 * await using http = serveHttp(createServer({ name: "s", version: "1" }), { port: 0 });
 * console.error(`serving ${http.url}`);
 * ```
 */
export interface HttpServer extends AsyncDisposable {
  /** The MCP endpoint, such as `http://127.0.0.1:8000/mcp`. */
  readonly url: URL;
  /** The address and port actually bound. */
  readonly addr: { hostname: string; port: number };
  /** Settles once the server has shut down. */
  readonly finished: Promise<void>;
  /**
   * Stops accepting connections, lets in-flight calls finish within the
   * server's `graceMs`, closes every session and waits for the listener.
   */
  shutdown(): Promise<void>;
}

/**
 * Serves `server` over Streamable HTTP on `Deno.serve`, at
 * `http://127.0.0.1:8000/mcp` by default, until `shutdown()`, SIGINT or
 * SIGTERM.
 *
 * @example
 * ```ts ignore
 * import { createServer, text } from "@forge/toolkit";
 * import { serveHttp } from "@forge/toolkit/http";
 *
 * const server = createServer({ name: "hello", version: "0.1.0" });
 * server.tool({ name: "ping", description: "Answers pong", handler: () => text("pong") });
 *
 * const http = serveHttp(server, { port: 8080 });
 * await http.finished;
 * ```
 */
export function serveHttp(
  server: ToolServer,
  options: ServeHttpOptions = {},
): HttpServer {
  const hostname = options.hostname ?? "127.0.0.1";
  const port = options.port ?? 8000;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError(
      `Cannot serve HTTP: port must be an integer from 0 to 65535, got ${port}`,
    );
  }
  const allowedHosts = options.allowedHosts ?? defaultHosts(hostname);
  const handler = createHttpHandler(server, { ...options, allowedHosts });
  let listener: Deno.HttpServer<Deno.NetAddr>;
  try {
    listener = Deno.serve(
      { hostname, port, onListen: () => {} },
      (request) => handler(request),
    );
  } catch (cause) {
    const reason = cause instanceof Deno.errors.AddrInUse
      ? "address already in use"
      : (cause as Error).message;
    throw new Error(
      `Cannot serve HTTP: ${reason}: ${formatHost(hostname)}:${port}`,
      { cause },
    );
  }
  const addr = { hostname: listener.addr.hostname, port: listener.addr.port };
  const url = new URL(
    `http://${formatHost(addr.hostname)}:${addr.port}${options.path ?? "/mcp"}`,
  );
  if (options.onListen !== undefined) options.onListen(url);
  else console.error(`MCP server listening on ${url}`);
  const signals: Deno.Signal[] =
    options.handleSignals === false || Deno.build.os === "windows"
      ? []
      : ["SIGINT", "SIGTERM"];
  let stopping: Promise<void> | undefined;
  const shutdown = () =>
    stopping ??= (async () => {
      const listening = listener.shutdown();
      await handler.close();
      await listening;
    })();
  for (const signal of signals) Deno.addSignalListener(signal, shutdown);
  const finished = listener.finished.then(() => {
    for (const signal of signals) Deno.removeSignalListener(signal, shutdown);
  });
  return {
    url,
    addr,
    finished,
    shutdown: async () => {
      await shutdown();
      await finished;
    },
    [Symbol.asyncDispose]: async () => {
      await shutdown();
      await finished;
    },
  };
}

/** The hosts a listener on `hostname` accepts by default. */
function defaultHosts(hostname: string): string[] {
  const hosts = [...LOOPBACK_HOSTS];
  const own = formatHost(hostname).toLowerCase();
  const wildcard = own === "0.0.0.0" || own === "[::]";
  if (wildcard) {
    console.error(
      `Note: listening on ${own}, but only localhost Host headers are accepted; set allowedHosts to the names clients use`,
    );
  } else if (!hosts.includes(own)) hosts.push(own);
  return hosts;
}

function formatHost(hostname: string): string {
  return hostname.includes(":") && !hostname.startsWith("[")
    ? `[${hostname}]`
    : hostname;
}

function positiveInteger(
  name: string,
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(
      `Cannot create HTTP handler: ${name} must be a positive integer, got ${value}`,
    );
  }
  return value;
}

function makeGuard(options: HttpOptions): Guard {
  const path = options.path ?? "/mcp";
  if (typeof path !== "string" || !path.startsWith("/")) {
    throw new TypeError(
      `Cannot create HTTP handler: path must start with "/", got ${
        JSON.stringify(path)
      }`,
    );
  }
  let hosts: Set<string> | undefined;
  let origins: Set<string> | undefined;
  if (options.dnsRebindingProtection !== false) {
    const allowed = options.allowedHosts ?? LOOPBACK_HOSTS;
    if (!Array.isArray(allowed)) {
      throw new TypeError(
        `Cannot create HTTP handler: allowedHosts must be an array of host names, got ${
          jsonType(allowed)
        }`,
      );
    }
    hosts = new Set(allowed.map((host) => normaliseHostEntry(host)));
    if (options.allowedOrigins !== undefined) {
      if (!Array.isArray(options.allowedOrigins)) {
        throw new TypeError(
          `Cannot create HTTP handler: allowedOrigins must be an array of origins, got ${
            jsonType(options.allowedOrigins)
          }`,
        );
      }
      origins = new Set(options.allowedOrigins.map(normaliseOriginEntry));
    }
  }
  return { path, hosts, origins, auth: makeAuth(options.auth) };
}

function normaliseHostEntry(host: unknown): string {
  if (typeof host !== "string" || host === "") {
    throw new TypeError(
      `Cannot create HTTP handler: allowedHosts entries must be host names such as "example.com" or "example.com:8443", got ${
        JSON.stringify(host)
      }`,
    );
  }
  return host.toLowerCase();
}

function normaliseOriginEntry(origin: unknown): string {
  try {
    if (typeof origin !== "string") throw new TypeError();
    const parsed = new URL(origin);
    if (parsed.origin === "null") throw new TypeError();
    return parsed.origin;
  } catch {
    throw new TypeError(
      `Cannot create HTTP handler: allowedOrigins entries must be origins such as "https://app.example.com", got ${
        JSON.stringify(origin)
      }`,
    );
  }
}

/** Splits a `Host` value into its lower-cased name and the whole host. */
function splitHost(host: string): { name: string; full: string } {
  const full = host.toLowerCase();
  if (full.startsWith("[")) {
    const end = full.indexOf("]");
    return { name: end === -1 ? full : full.slice(0, end + 1), full };
  }
  const colon = full.lastIndexOf(":");
  return { name: colon === -1 ? full : full.slice(0, colon), full };
}

function hostAllowed(hosts: Set<string>, host: string): boolean {
  const { name, full } = splitHost(host);
  return hosts.has(name) || hosts.has(full);
}

/** Path, DNS rebinding and auth, in that order; undefined when the request may go on. */
async function checkRequest(
  guard: Guard,
  request: Request,
): Promise<Response | undefined> {
  const url = new URL(request.url);
  if (url.pathname !== guard.path) {
    return rpcError(
      404,
      CODE.TRANSPORT,
      `Not Found: the MCP endpoint is ${guard.path}`,
    );
  }
  if (guard.hosts !== undefined) {
    const host = request.headers.get("host") ?? url.host;
    if (!hostAllowed(guard.hosts, host)) {
      return rpcError(
        403,
        CODE.TRANSPORT,
        `Forbidden: Host ${
          JSON.stringify(host)
        } is not allowed; add it to allowedHosts to accept it`,
      );
    }
    const origin = request.headers.get("origin");
    if (origin !== null && !originAllowed(guard, origin)) {
      return rpcError(
        403,
        CODE.TRANSPORT,
        `Forbidden: Origin ${
          JSON.stringify(origin)
        } is not allowed; add it to allowedOrigins to accept it`,
      );
    }
  }
  if (guard.auth !== undefined) return await guard.auth(request);
  return undefined;
}

function originAllowed(guard: Guard, origin: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if (parsed.origin === "null") return false;
  if (guard.origins !== undefined) return guard.origins.has(parsed.origin);
  return hostAllowed(guard.hosts!, parsed.host);
}

function makeAuth(
  auth: HttpAuth | undefined,
): Guard["auth"] {
  if (auth === undefined) return undefined;
  if (typeof auth !== "object" || auth === null) {
    throw new TypeError(
      `Cannot create HTTP handler: auth must be { token } or { verify }, got ${
        jsonType(auth)
      }`,
    );
  }
  const hasToken = auth.token !== undefined;
  const hasVerify = auth.verify !== undefined;
  if (hasToken === hasVerify) {
    throw new TypeError(
      "Cannot create HTTP handler: auth must have exactly one of token and verify",
    );
  }
  // The token itself never appears in a message.
  if (
    hasToken &&
    (typeof auth.token !== "string" || !BEARER_TOKEN.test(auth.token))
  ) {
    throw new TypeError(
      "Cannot create HTTP handler: auth.token must be a non-empty bearer token of A-Z a-z 0-9 - . _ ~ + / and trailing =",
    );
  }
  if (hasVerify && typeof auth.verify !== "function") {
    throw new TypeError(
      `Cannot create HTTP handler: auth.verify must be a function, got ${
        jsonType(auth.verify)
      }`,
    );
  }
  const realm = (auth.realm ?? "mcp").replaceAll(/["\\]/g, "");
  const challenge = `Bearer realm="${realm}"`;
  const expected = hasToken ? sha256(auth.token!) : undefined;
  const verify = auth.verify;

  return async (request) => {
    const header = request.headers.get("authorization");
    const match = header === null ? null : /^Bearer +(\S+) *$/i.exec(header);
    if (match === null) {
      return rpcError(
        401,
        CODE.TRANSPORT,
        "Unauthorized: send Authorization: Bearer <token>",
        { "www-authenticate": challenge },
      );
    }
    const presented = match[1];
    let good: boolean;
    if (expected !== undefined) {
      good = constantTimeEqual(await expected, await sha256(presented));
    } else {
      try {
        good = (await verify!(presented, request)) === true;
      } catch (error) {
        console.error(
          "Bearer token verification failed:",
          error instanceof Error ? error.message : String(error),
        );
        return rpcError(
          500,
          CODE.INTERNAL_ERROR,
          "Internal error: the token could not be verified",
        );
      }
    }
    if (!good) {
      return rpcError(
        401,
        CODE.TRANSPORT,
        "Unauthorized: the bearer token is not valid",
        { "www-authenticate": `${challenge}, error="invalid_token"` },
      );
    }
    return undefined;
  };
}

async function sha256(text: string): Promise<Uint8Array> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(text),
  );
  return new Uint8Array(digest);
}

/** Compares digests of equal length without an early exit. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) difference |= a[i] ^ (b[i] ?? 0);
  return difference === 0;
}

/** A copy of a request without its `Authorization` header, so the token goes no further. */
function withoutAuthorization(request: Request): Request {
  // Incoming headers are immutable; filtering into a list is the cheapest copy.
  const headers: [string, string][] = [];
  for (const entry of request.headers) {
    if (entry[0] !== "authorization") headers.push(entry);
  }
  return new Request(request.url, { method: request.method, headers });
}

function isJsonMediaType(value: string | null): boolean {
  if (value === null) return false;
  const semicolon = value.indexOf(";");
  const type = (semicolon === -1 ? value : value.slice(0, semicolon)).trim();
  return type.toLowerCase() === "application/json";
}

/** The body as text, or undefined when it is larger than `max` bytes. */
async function readBody(
  request: Request,
  max: number,
): Promise<string | undefined> {
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    const length = Number(declared);
    if (length > max) return undefined;
    // HTTP framing holds the body to its declared length.
    if (Number.isSafeInteger(length)) return await request.text();
  }
  if (request.body === null) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return new TextDecoder().decode(bytes);
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

function rpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }),
    { status, headers: { "content-type": "application/json", ...headers } },
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

/**
 * An SSE response turned into one JSON body: the JSON-RPC responses it
 * carried (an array for a batch), without notifications and priming events.
 */
async function collapseToJson(
  response: Response,
  batch: boolean,
): Promise<Response> {
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) {
    return response;
  }
  const answers: unknown[] = [];
  for (const line of (await response.text()).split("\n")) {
    if (!line.startsWith("data:")) continue;
    const data = line.slice(5).trim();
    if (data === "") continue;
    const message = JSON.parse(data);
    if ("result" in message || "error" in message) answers.push(message);
  }
  if (answers.length === 0) {
    return rpcError(
      503,
      CODE.TRANSPORT,
      "Service Unavailable: the session closed before the request was answered",
    );
  }
  const headers: Record<string, string> = {
    "content-type": "application/json",
  };
  const session = response.headers.get(SESSION_HEADER);
  if (session !== null) headers[SESSION_HEADER] = session;
  return new Response(JSON.stringify(batch ? answers : answers[0]), {
    status: response.status,
    headers,
  });
}

/** The same response, calling `done` once its body has been sent or dropped. */
function onBodyEnd(response: Response, done: () => void): Response {
  if (response.body === null) {
    done();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done: end } = await reader.read();
        if (end) {
          controller.close();
          done();
        } else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
        done();
      }
    },
    cancel(reason) {
      done();
      return reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

interface StoredEvent {
  seq: number;
  streamId: string;
  message: unknown;
}

/**
 * A session's recent SSE events, for `Last-Event-ID` resumption. Event ids
 * are `<stream>.<sequence>`; only the newest `limit` events are kept.
 */
class MemoryEventStore {
  #limit: number;
  #events = new Map<string, StoredEvent>();
  #seq = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  storeEvent(streamId: string, message: unknown): Promise<string> {
    const seq = ++this.#seq;
    const id = `${streamId}.${seq}`;
    this.#events.set(id, { seq, streamId, message });
    if (this.#events.size > this.#limit) {
      this.#events.delete(this.#events.keys().next().value!);
    }
    return Promise.resolve(id);
  }

  getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return Promise.resolve(this.#events.get(eventId)?.streamId);
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: {
      send: (eventId: string, message: never) => Promise<void>;
    },
  ): Promise<string> {
    const last = this.#events.get(lastEventId);
    if (last === undefined) {
      throw new Error(`Unknown event id: ${lastEventId}`);
    }
    for (const [id, event] of [...this.#events]) {
      if (event.seq <= last.seq || event.streamId !== last.streamId) continue;
      // Priming events carry no message.
      if (Object.keys(event.message as object).length === 0) continue;
      await send(id, event.message as never);
    }
    return last.streamId;
  }
}
