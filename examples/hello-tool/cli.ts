/**
 * Command-line parsing for hello-tool: `--http [host:]port` and `--help`.
 *
 * @module
 */

/** The usage text, printed by `--help` and after a command-line error. */
export const USAGE: string = `Usage: main.ts [--http [host:]port] [--help]

Serves the hello-tool MCP server on stdio, or over Streamable HTTP with
--http (host defaults to 127.0.0.1; port 0 picks a free one).

Environment:
  HELLO_ROOT    directory the file tools work in (default: a new empty
                directory, named on stderr at start)
  HELLO_CONFIG  JSON config file, {"greeting": "Hello"} (default: config.json
                beside main.ts); edits apply without a restart`;

/** Where to listen for Streamable HTTP. */
export interface HttpAddress {
  /** The host name or address, such as `127.0.0.1` or `::1`. */
  hostname: string;
  /** The TCP port, 0 for any free one. */
  port: number;
}

/** What the command line asks for. */
export type Command =
  | { kind: "help" }
  | { kind: "stdio" }
  | { kind: "http"; address: HttpAddress };

/** A command line that cannot be understood; the message says why. */
export class UsageError extends Error {
  /**
   * Creates a usage error.
   *
   * @param message What was wrong and what was expected.
   */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

const PORT = /^\d{1,5}$/;

/**
 * Parses hello-tool's arguments.
 *
 * @example
 * ```ts
 * import { parseCommandLine } from "./cli.ts";
 *
 * parseCommandLine(["--http", "127.0.0.1:8080"]);
 * // { kind: "http", address: { hostname: "127.0.0.1", port: 8080 } }
 * ```
 *
 * @param args The arguments after the script name.
 * @returns What to do.
 * @throws {UsageError} For an unknown flag, a missing or bad address.
 */
export function parseCommandLine(args: readonly string[]): Command {
  let command: Command = { kind: "stdio" };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--help" || arg === "-h") return { kind: "help" };
    if (arg === "--http" || arg.startsWith("--http=")) {
      const value = arg === "--http" ? args[++i] : arg.slice("--http=".length);
      if (value === undefined || value === "" || value.startsWith("-")) {
        throw new UsageError(
          "Invalid --http: missing address: expected [host:]port, such as 8080 or 127.0.0.1:8080",
        );
      }
      command = { kind: "http", address: parseAddress(value) };
      continue;
    }
    throw new UsageError(
      `Invalid argument: ${
        JSON.stringify(arg)
      }: expected --http [host:]port or --help`,
    );
  }
  return command;
}

function parseAddress(value: string): HttpAddress {
  let hostname = "127.0.0.1";
  let port = value;
  const colon = value.lastIndexOf(":");
  if (colon !== -1) {
    hostname = value.slice(0, colon);
    port = value.slice(colon + 1);
    // IPv6 literals come bracketed, as in URLs: [::1]:8080.
    const bracketed = hostname.startsWith("[") && hostname.endsWith("]");
    if (bracketed) hostname = hostname.slice(1, -1);
    if (hostname === "") {
      throw new UsageError(
        `Invalid --http address: ${
          JSON.stringify(value)
        }: the host is empty: expected [host:]port, such as 127.0.0.1:8080`,
      );
    }
    if (!bracketed && hostname.includes(":")) {
      throw new UsageError(
        `Invalid --http address: ${
          JSON.stringify(value)
        }: an IPv6 host must be in brackets: expected [::1]:8080`,
      );
    }
  }
  const number = Number(port);
  if (!PORT.test(port) || number > 65535) {
    throw new UsageError(
      `Invalid --http address: ${
        JSON.stringify(value)
      }: port must be a whole number from 0 to 65535, got ${
        JSON.stringify(port)
      }`,
    );
  }
  return { hostname, port: number };
}
