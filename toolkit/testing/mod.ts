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
