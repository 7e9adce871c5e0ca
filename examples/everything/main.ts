/**
 * Runs the everything server: over stdio by default, or over Streamable
 * HTTP with `--http [host:]port` (loopback unless a host is given).
 *
 * ```sh
 * deno run -A examples/everything/main.ts                       # stdio
 * deno run -A examples/everything/main.ts --http 127.0.0.1:3000 # http://127.0.0.1:3000/mcp
 * deno run -A examples/everything/main.ts --http 3000 --stateless
 * deno run -A examples/everything/main.ts --http 3000 --redis redis://127.0.0.1:6379
 * ```
 *
 * Instances behind a load balancer (`nginx.conf` beside this file) share
 * the key that signs 2026-07-28 multi-round request state, so that one can
 * resume a request another began: set `EVERYTHING_REQUEST_STATE_KEY` to the
 * same Base64 of at least 32 random bytes in each (`openssl rand -base64
 * 32`). With `--redis URL` they also share their tasks (any of them answers
 * a poll, an answer or a cancel) and their notifications (a listen stream
 * on one hears a list change made through another); without it, tasks are
 * kept in memory and the Redis client is never loaded.
 * `EVERYTHING_LEASE_MS` sets how soon the task of a stopped instance is
 * marked failed (default 10000).
 *
 * @module
 */

import { streamableHttp } from "@forge/toolkit/http";
import { createEverythingServer } from "./server.ts";

/** What the command line asked for. */
export interface Command {
  /** Serve HTTP on this address; stdio when undefined. */
  http?: { hostname: string; port: number };
  /** Serve HTTP without sessions. */
  stateless: boolean;
  /** Share tasks and notifications through the Redis at this URL. */
  redis?: string;
}

/** The variable that holds the shared `requestStateKey`, in Base64. */
export const REQUEST_STATE_KEY_VARIABLE = "EVERYTHING_REQUEST_STATE_KEY";

/** The variable that sets the task lease with `--redis`, in milliseconds. */
export const LEASE_MS_VARIABLE = "EVERYTHING_LEASE_MS";

/**
 * Decodes the `requestStateKey` from its variable's value; `undefined` when
 * unset or empty (each process then makes its own). A `TypeError` names
 * what was wrong; a short key is the server's `RangeError`.
 */
export function decodeRequestStateKey(
  value: string | undefined,
): Uint8Array | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  let binary: string;
  try {
    binary = atob(value.trim());
  } catch {
    throw new TypeError(
      `Invalid ${REQUEST_STATE_KEY_VARIABLE}: expected Base64 of at least 32 bytes, got characters outside Base64`,
    );
  }
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

const USAGE =
  "Usage: main.ts [--http [host:]port] [--stateless] [--redis URL]\n  --http [host:]port  serve Streamable HTTP at http://host:port/mcp (host defaults to 127.0.0.1)\n  --stateless         with --http: no sessions, each request served on its own\n  --redis URL         with --http: tasks and notifications shared through Redis (redis://host:port)";

/** Parses the command line; a `TypeError` names what was wrong. */
export function parseArgs(args: readonly string[]): Command {
  const command: Command = { stateless: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--stateless") command.stateless = true;
    else if (arg === "--redis" || arg.startsWith("--redis=")) {
      const value = arg === "--redis"
        ? args[++i]
        : arg.slice("--redis=".length);
      if (value === undefined || !/^rediss?:\/\/./.test(value)) {
        throw new TypeError(
          `Invalid arguments: --redis expects a redis://host:port URL, got ${
            value === undefined ? "nothing" : JSON.stringify(value)
          }`,
        );
      }
      command.redis = value;
    } else if (arg === "--http" || arg.startsWith("--http=")) {
      const value = arg === "--http" ? args[++i] : arg.slice("--http=".length);
      if (value === undefined) {
        throw new TypeError("Invalid arguments: --http needs [host:]port");
      }
      command.http = parseAddress(value);
    } else {
      throw new TypeError(`Invalid arguments: unknown option: ${arg}`);
    }
  }
  if (command.stateless && command.http === undefined) {
    throw new TypeError("Invalid arguments: --stateless needs --http");
  }
  if (command.redis !== undefined && command.http === undefined) {
    throw new TypeError("Invalid arguments: --redis needs --http");
  }
  return command;
}

function parseAddress(value: string): { hostname: string; port: number } {
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]]+):)?(\d{1,5})$/.exec(value);
  const port = match === null ? NaN : Number(match[2]);
  if (match === null || port > 65535) {
    throw new TypeError(
      `Invalid arguments: --http expects [host:]port with a port from 0 to 65535, got ${
        JSON.stringify(value)
      }`,
    );
  }
  const host = match[1] ?? "127.0.0.1";
  return {
    hostname: host.startsWith("[") ? host.slice(1, -1) : host,
    port,
  };
}

if (import.meta.main) {
  let command: Command;
  try {
    command = parseArgs(Deno.args);
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    Deno.exit(2);
  }
  let server;
  try {
    // Imported only when asked for: a stdio server never loads the client.
    const redis = command.redis === undefined
      ? undefined
      : await (await import("@forge/toolkit/redis")).connectRedis(
        command.redis,
        { leaseMs: Number(Deno.env.get(LEASE_MS_VARIABLE) || 10_000) },
      );
    server = createEverythingServer({
      requestStateKey: decodeRequestStateKey(
        Deno.env.get(REQUEST_STATE_KEY_VARIABLE),
      ),
      taskStore: redis?.taskStore,
      notificationBus: redis?.notificationBus,
    });
  } catch (error) {
    console.error((error as Error).message);
    Deno.exit(2);
  }
  await server.serve(
    command.http === undefined ? {} : {
      transport: streamableHttp({
        ...command.http,
        stateless: command.stateless,
        // Lets a client that lost an SSE stream resume it (SEP-1699).
        eventHistory: 200,
        retryMs: 500,
      }),
    },
  );
}
