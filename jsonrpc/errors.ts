/**
 * The JSON-RPC error codes the toolkit answers with, and the error that
 * carries one.
 *
 * @module
 */

/**
 * JSON-RPC error codes the toolkit answers with.
 *
 * @example Assert that an unknown tool is a protocol error
 * ```ts
 * import { createServer, RPC_ERROR } from "@forge/toolkit";
 * import { connect, RpcError } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * await using client = await connect(createServer({ name: "s", version: "1" }));
 * await assert.rejects(
 *   client.call("missing"),
 *   (e) => e instanceof RpcError && e.code === RPC_ERROR.INVALID_PARAMS,
 * );
 * ```
 */
export const RPC_ERROR = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  CONNECTION_CLOSED: -32000,
  REQUEST_TIMEOUT: -32001,
  /** MCP's code for a resource that does not exist (2025-11-25). */
  RESOURCE_NOT_FOUND: -32002,
} as const;

/**
 * A JSON-RPC error: thrown from a resource or prompt callback (or by the
 * toolkit) it is answered as a JSON-RPC error with this code.
 *
 * @example
 * ```ts
 * import { ProtocolError, RPC_ERROR } from "@forge/toolkit";
 *
 * function unknownPrompt(name: string): never {
 *   throw new ProtocolError(RPC_ERROR.INVALID_PARAMS, `Unknown prompt: ${JSON.stringify(name)}`);
 * }
 * ```
 */
export class ProtocolError extends Error {
  /** The JSON-RPC error code. */
  readonly code: number;
  /**
   * Creates the error.
   *
   * @param code The JSON-RPC error code.
   * @param message What went wrong.
   */
  constructor(code: number, message: string) {
    super(message);
    this.name = "ProtocolError";
    this.code = code;
  }
}
