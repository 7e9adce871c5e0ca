// Internal: the JSON-RPC error bodies every layer answers with, and the
// option checks the layer factories share.

import { RPC_ERROR } from "../jsonrpc/errors.ts";
import type { JsonRpcId } from "../jsonrpc/types.ts";
import { checkWholeNumber } from "../_util/whole_number.ts";

/** The header that carries a Streamable HTTP session's id. */
export const SESSION_HEADER = "mcp-session-id";

/** JSON-RPC error codes used in HTTP error bodies: the transport's own beside the standard ones. */
export const CODE = {
  TRANSPORT: -32000,
  SESSION_NOT_FOUND: -32001,
  PARSE_ERROR: RPC_ERROR.PARSE_ERROR,
  INVALID_REQUEST: RPC_ERROR.INVALID_REQUEST,
  INTERNAL_ERROR: RPC_ERROR.INTERNAL_ERROR,
} as const;

/** What else a JSON-RPC error response carries. */
export interface RpcErrorOptions {
  /** The id of the request it answers; null when it could not be read. */
  id?: JsonRpcId | null;
  /** Headers beside `content-type`. */
  headers?: Record<string, string>;
}

/** A JSON-RPC error response with an HTTP status. */
export function rpcError(
  status: number,
  code: number,
  message: string,
  options: RpcErrorOptions = {},
): Response {
  return new Response(
    JSON.stringify({
      jsonrpc: "2.0",
      id: options.id ?? null,
      error: { code, message },
    }),
    {
      status,
      headers: { "content-type": "application/json", ...options.headers },
    },
  );
}

/** The 503 every layer answers once it is shutting down. */
export function shuttingDown(): Response {
  return rpcError(
    503,
    CODE.TRANSPORT,
    "Service Unavailable: the server is shutting down",
    { headers: { connection: "close" } },
  );
}

/** The 404 for a request outside the MCP endpoint. */
export function notFound(path: string): Response {
  return rpcError(
    404,
    CODE.TRANSPORT,
    `Not Found: the MCP endpoint is ${path}`,
  );
}

/** `value`, or `fallback` when it is undefined; a RangeError unless a whole number >= 1. */
export function positiveInteger(
  name: string,
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  return checkWholeNumber("Cannot create HTTP handler", name, value, {
    min: 1,
  });
}

/** The same response, calling `done` once its body has been sent or dropped. */
export function onBodyEnd(response: Response, done: () => void): Response {
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
