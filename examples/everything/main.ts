/**
 * Runs the everything server: over stdio by default, or over Streamable
 * HTTP with `--http [host:]port` (loopback unless a host is given).
 *
 * ```sh
 * deno run -A examples/everything/main.ts                       # stdio
 * deno run -A examples/everything/main.ts --http 127.0.0.1:3000 # http://127.0.0.1:3000/mcp
 * deno run -A examples/everything/main.ts --http 3000 --stateless
 * ```
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
}

const USAGE =
  "Usage: main.ts [--http [host:]port] [--stateless]\n  --http [host:]port  serve Streamable HTTP at http://host:port/mcp (host defaults to 127.0.0.1)\n  --stateless         with --http: no sessions, each request served on its own";

/** Parses the command line; a `TypeError` names what was wrong. */
export function parseArgs(args: readonly string[]): Command {
  const command: Command = { stateless: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--stateless") command.stateless = true;
    else if (arg === "--http" || arg.startsWith("--http=")) {
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
  const server = createEverythingServer();
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
