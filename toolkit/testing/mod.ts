/**
 * An in-memory MCP client for unit-testing a server's tools without spawning
 * a process. It speaks real JSON-RPC to the server (every message is
 * serialised, as on a wire) and performs the `initialize` handshake.
 *
 * @example
 * ```ts
 * import { createServer, text } from "@forge/toolkit";
 * import { connect } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * const server = createServer({ name: "hello", version: "0.1.0" });
 * server.tool({ name: "ping", description: "Answers pong", handler: () => text("pong") });
 *
 * await using client = await connect(server);
 * const result = await client.call("ping");
 * assert.deepEqual(result, { content: [{ type: "text", text: "pong" }] });
 * ```
 *
 * {@linkcode spawnStdio} does the same for a server run as a child process,
 * over newline-delimited JSON-RPC on its stdin and stdout, as a host would.
 *
 * @example A server process over stdio
 * ```ts ignore
 * import { spawnStdio } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = spawnStdio(Deno.execPath(), ["run", "server.ts"]);
 * await server.initialize();
 * const result = await server.call("ping");
 * assert.deepEqual(result, { content: [{ type: "text", text: "pong" }] });
 * assert.deepEqual(server.violations, []); // stdout held JSON-RPC only
 * ```
 *
 * @module
 */

export {
  type CallOptions,
  connect,
  type ConnectOptions,
  type ProbeAnswer,
  type ReceivedNotification,
  RpcError,
  TEST_PROTOCOL_VERSION,
  type TestClient,
} from "./testing.ts";
export {
  type InitializeOptions,
  type RequestOptions,
  type RpcMessage,
  spawnStdio,
  type SpawnStdioOptions,
  type StdioClient,
  type WaitOptions,
} from "./stdio_client.ts";
