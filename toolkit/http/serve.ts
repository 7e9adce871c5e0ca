/**
 * Streamable HTTP on `Deno.serve`: {@linkcode streamableHttp} for
 * `server.serve({ transport })`, and {@linkcode serveHttp} to run a server
 * directly. Both start the same listener.
 *
 * @module
 */

import type {
  Listening,
  ListenOptions,
  SessionHost,
  SessionListener,
} from "../jsonrpc/types.ts";
import { createHttpHandler, type HttpOptions } from "./handler.ts";
import { hostGuard, LOOPBACK_HOSTS } from "./host_guard.ts";
import { checkWholeNumber } from "../_util/whole_number.ts";
import { withListenAddress } from "./_listen_address.ts";
import { pathnameOf } from "./_pathname.ts";

/**
 * Options for {@linkcode serveHttp} and {@linkcode streamableHttp}.
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
   * Under `server.serve()`, signals are handled unless this or
   * `serve({ handleSignals })` is false.
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
  /**
   * Serves pages besides MCP on the same listener: a request whose path
   * starts with `prefix` (such as `/approvals/`) goes to `handler`, behind
   * the host guard as MCP is, and never to MCP.
   *
   * @default {undefined}
   */
  pages?: {
    prefix: string;
    handler: (request: Request) => Promise<Response>;
  };
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
 * Streamable HTTP as a transport for `server.serve()`: it listens on
 * `http://127.0.0.1:8000/mcp` by default once the server starts it, and
 * stops on SIGINT, SIGTERM or `server.close()`. The port is checked here,
 * the other options when it starts listening.
 *
 * @example
 * ```ts ignore
 * import { createServer, text } from "@forge/toolkit";
 * import { streamableHttp } from "@forge/toolkit/http";
 *
 * const server = createServer({ name: "hello", version: "0.1.0" });
 * server.tool({ name: "ping", description: "Answers pong", handler: () => text("pong") });
 *
 * await server.serve({ transport: streamableHttp({ port: 8080 }) });
 * ```
 */
export function streamableHttp(
  options: ServeHttpOptions = {},
): SessionListener {
  checkPort(options.port ?? 8000);
  return {
    listen(host: SessionHost, listen: ListenOptions = {}): Listening {
      return listenHttp(host, {
        ...options,
        handleSignals: options.handleSignals !== false &&
          listen.handleSignals !== false,
      });
    },
  };
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
  server: SessionHost,
  options: ServeHttpOptions = {},
): HttpServer {
  return listenHttp(server, options);
}

/** The listener both entries start. */
function listenHttp(host: SessionHost, options: ServeHttpOptions): HttpServer {
  const hostname = options.hostname ?? "127.0.0.1";
  const port = checkPort(options.port ?? 8000);
  const allowedHosts = options.allowedHosts ?? defaultHosts(hostname);
  let listener: Deno.HttpServer<Deno.NetAddr> | undefined;
  // The OAuth layer's default resource is this address, never a request's.
  const handler = createHttpHandler(
    host,
    withListenAddress({ ...options, allowedHosts }, () => listener?.addr),
  );
  const pages = options.pages;
  const guard = options.dnsRebindingProtection === false
    ? undefined
    : hostGuard({ ...options, allowedHosts });
  const serve = pages === undefined
    ? handler
    : (request: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) => {
      if (!pathnameOf(request.url).startsWith(pages.prefix)) {
        return handler(request, info);
      }
      return guard === undefined
        ? pages.handler(request)
        : guard(request, pages.handler);
    };
  try {
    listener = Deno.serve(
      { hostname, port, onListen: () => {} },
      (request, info) => serve(request, info),
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
  const stop = async () => {
    await shutdown();
    await finished;
  };
  return { url, addr, finished, shutdown: stop, [Symbol.asyncDispose]: stop };
}

function checkPort(port: number): number {
  return checkWholeNumber("Cannot serve HTTP", "port", port, { max: 65535 });
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
