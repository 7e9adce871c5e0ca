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
 * import { createServer } from "@forge/toolkit";
 * import { RPC_ERROR } from "@forge/toolkit/jsonrpc";
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
  /** MCP's code for a resource that does not exist (2025-11-25; 2026-07-28 uses -32602). */
  RESOURCE_NOT_FOUND: -32002,
  /** 2026-07-28: an HTTP header disagrees with the body, or a required one is missing. */
  HEADER_MISMATCH: -32020,
  /** 2026-07-28: the request needs a client capability its `_meta` did not declare. */
  MISSING_CLIENT_CAPABILITY: -32021,
  /** 2026-07-28: the request's protocol version is not one this server speaks. */
  UNSUPPORTED_PROTOCOL_VERSION: -32022,
} as const;

/**
 * Options for {@linkcode ProtocolError}.
 *
 * @example
 * ```ts
 * import type { ProtocolErrorOptions } from "@forge/toolkit/jsonrpc";
 *
 * const options: ProtocolErrorOptions = { data: { uri: "notes://missing" } };
 * ```
 */
export interface ProtocolErrorOptions {
  /**
   * The error's `data`, sent to the client as it is.
   *
   * @default {undefined}
   */
  data?: unknown;
}

/**
 * A JSON-RPC error: thrown from a resource or prompt callback (or by the
 * toolkit) it is answered as a JSON-RPC error with this code.
 *
 * @example
 * ```ts
 * import { ProtocolError, RPC_ERROR } from "@forge/toolkit/jsonrpc";
 *
 * function unknownPrompt(name: string): never {
 *   throw new ProtocolError(RPC_ERROR.INVALID_PARAMS, `Unknown prompt: ${JSON.stringify(name)}`);
 * }
 * ```
 */
export class ProtocolError extends Error {
  /** The JSON-RPC error code. */
  readonly code: number;
  /** The error's `data`, if any. */
  readonly data: unknown;
  /**
   * Creates the error.
   *
   * @param code The JSON-RPC error code.
   * @param message What went wrong.
   * @param options The error's `data`.
   */
  constructor(
    code: number,
    message: string,
    options: ProtocolErrorOptions = {},
  ) {
    super(message);
    this.name = "ProtocolError";
    this.code = code;
    this.data = options.data;
  }
}
