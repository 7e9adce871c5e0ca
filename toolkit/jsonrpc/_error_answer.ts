// Internal: the JSON-RPC error answer to a request whose handler threw,
// for every side that answers requests (a server's session, a client's
// connection answering its server).

import { ProtocolError, RPC_ERROR } from "./errors.ts";
import type { JsonRpcId, JsonRpcMessage } from "./types.ts";

/**
 * The error answer to request `id` for `error`: a thrown error with a
 * numeric `code` keeps it, anything else is -32603; a `ProtocolError`
 * with `data` (such as -32042's elicitations) keeps that too.
 */
export function errorAnswer(id: JsonRpcId, error: unknown): JsonRpcMessage {
  const code = (error as { code?: unknown } | null)?.code;
  const data = error instanceof ProtocolError
    ? (error as { data?: unknown }).data
    : undefined;
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: Number.isSafeInteger(code)
        ? code as number
        : RPC_ERROR.INTERNAL_ERROR,
      message: error instanceof Error ? error.message : String(error),
      ...(data === undefined ? {} : { data }),
    },
  };
}
