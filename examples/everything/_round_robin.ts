/**
 * A small round-robin HTTP reverse proxy, for proving that 2026-07-28
 * requests need no sticky routing: each request goes to the next upstream
 * in turn, its body and the answer streamed both ways (SSE included), its
 * `Host` and `Origin` kept as the client sent them, as a load balancer
 * configured to pass the host on does. A test and CI helper, not a
 * production proxy: no retries, no health checks, one upstream down is a
 * 502 for the requests it is dealt.
 *
 * ```sh
 * deno run -A examples/everything/_round_robin.ts http://127.0.0.1:3001 http://127.0.0.1:3002
 * # prints: round-robin: listening on http://127.0.0.1:PORT
 * ```
 *
 * @module
 */

import http from "node:http";
import { Readable } from "node:stream";

/** A running proxy. */
export interface RoundRobin {
  /** Where it listens, `http://127.0.0.1:PORT` (no path: paths pass through). */
  readonly url: string;
  /** How many requests each upstream was dealt, in the order given. */
  readonly counts: readonly number[];
  /** Stops listening and ends the streams still open. */
  close(): Promise<void>;
}

/** Options for {@linkcode roundRobin}. */
export interface RoundRobinOptions {
  /**
   * The address to listen on.
   *
   * @default {"127.0.0.1"}
   */
  hostname?: string;
  /**
   * The port; `0` picks a free one.
   *
   * @default {0}
   */
  port?: number;
}

// Hop-by-hop headers (RFC 9110 §7.6.1) are the proxy's own, never forwarded.
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/**
 * Starts a proxy that deals each request to the next of `upstreams`
 * (origins such as `http://127.0.0.1:3001`; the request's path and query
 * are kept).
 *
 * @example
 * ```ts ignore
 * const proxy = roundRobin(["http://127.0.0.1:3001", "http://127.0.0.1:3002"]);
 * await fetch(`${proxy.url}/mcp`, { method: "POST", body: "{}" });
 * console.log(proxy.counts); // [1, 0]
 * await proxy.close();
 * ```
 */
export function roundRobin(
  upstreams: readonly string[],
  options: RoundRobinOptions = {},
): RoundRobin {
  if (upstreams.length === 0) {
    throw new RangeError(
      "Cannot start round-robin proxy: expected at least one upstream, got none",
    );
  }
  const targets = upstreams.map((upstream) => {
    if (!URL.canParse(upstream)) {
      throw new TypeError(
        `Cannot start round-robin proxy: expected an http:// origin, got ${
          JSON.stringify(upstream)
        }`,
      );
    }
    const url = new URL(upstream);
    if (url.protocol !== "http:") {
      throw new TypeError(
        `Cannot start round-robin proxy: expected an http:// origin, got ${
          JSON.stringify(upstream)
        }`,
      );
    }
    return url;
  });
  const counts = targets.map(() => 0);
  const open = new Set<http.ClientRequest>();
  let next = 0;
  const listener = Deno.serve({
    hostname: options.hostname ?? "127.0.0.1",
    port: options.port ?? 0,
    onListen() {},
  }, (request) => {
    const index = next;
    next = (next + 1) % targets.length;
    counts[index]++;
    return forward(request, targets[index], open);
  });
  const addr = listener.addr;
  return {
    url: `http://${
      addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname
    }:${addr.port}`,
    counts,
    async close() {
      for (const request of open) request.destroy();
      await listener.shutdown();
    },
  };
}

function forward(
  request: Request,
  target: URL,
  open: Set<http.ClientRequest>,
): Promise<Response> {
  const url = new URL(request.url);
  const headers: Record<string, string> = {};
  for (const [name, value] of request.headers) {
    if (!HOP_BY_HOP.has(name)) headers[name] = value;
  }
  // Streams pass through as they come: nothing to decompress on the way.
  headers["accept-encoding"] = "identity";
  return new Promise((resolve) => {
    // node:http rather than fetch, which would replace the client's Host.
    const upstream = http.request({
      hostname: target.hostname.replace(/^\[|\]$/g, ""),
      port: target.port === "" ? 80 : Number(target.port),
      method: request.method,
      path: url.pathname + url.search,
      headers,
    });
    open.add(upstream);
    upstream.on("close", () => open.delete(upstream));
    upstream.on("error", (error) => {
      resolve(
        new Response(`Bad gateway: ${target.origin}: ${error.message}`, {
          status: 502,
        }),
      );
    });
    upstream.on("response", (answer) => {
      const out = new Headers();
      const raw = answer.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) {
        if (!HOP_BY_HOP.has(raw[i].toLowerCase())) {
          out.append(raw[i], raw[i + 1]);
        }
      }
      const status = answer.statusCode ?? 502;
      const empty = request.method === "HEAD" || status === 204 ||
        status === 304;
      // A client that goes away (a closed listen stream) cancels this
      // body, which destroys the upstream's answer and so its connection.
      resolve(
        new Response(
          empty ? null : Readable.toWeb(answer) as ReadableStream<Uint8Array>,
          { status, statusText: answer.statusMessage, headers: out },
        ),
      );
    });
    pipeBody(request.body, upstream);
  });
}

async function pipeBody(
  body: ReadableStream<Uint8Array> | null,
  upstream: http.ClientRequest,
): Promise<void> {
  if (body === null) {
    upstream.end();
    return;
  }
  try {
    for await (const chunk of body) {
      if (!upstream.write(chunk)) {
        await new Promise((resolve) => upstream.once("drain", resolve));
      }
    }
    upstream.end();
  } catch (error) {
    upstream.destroy(error as Error);
  }
}

if (import.meta.main) {
  try {
    const proxy = roundRobin(Deno.args);
    console.error(`round-robin: listening on ${proxy.url}`);
    const stop = () => {
      console.error(`round-robin: requests per upstream: ${proxy.counts}`);
      proxy.close().then(() => Deno.exit(0));
    };
    Deno.addSignalListener("SIGINT", stop);
    Deno.addSignalListener("SIGTERM", stop);
  } catch (error) {
    console.error(
      `${(error as Error).message}\nUsage: _round_robin.ts UPSTREAM...`,
    );
    Deno.exit(2);
  }
}
