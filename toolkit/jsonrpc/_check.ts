// Internal: the shape check both transports apply to each parsed message, so
// that stdio and HTTP refuse the same things with the same codes and words.

import type { JsonRpcId } from "./types.ts";
import { isRecord, jsonType } from "../_util/json_type.ts";

/** Whether a value can be a JSON-RPC id (MCP allows no null id on requests). */
export function isId(value: unknown): value is JsonRpcId {
  return typeof value === "string" ||
    (typeof value === "number" && Number.isFinite(value));
}

/** What is wrong with one message's shape, and the id to answer with. */
export interface MessageProblem {
  /** The message's id when it has a usable one, else null. */
  id: JsonRpcId | null;
  /** What was wrong and what was expected. */
  problem: string;
}

/** Checks one parsed message (not a batch) against JSON-RPC 2.0. */
export function checkMessage(value: unknown): MessageProblem | undefined {
  if (!isRecord(value)) {
    return {
      id: null,
      problem: `expected a JSON-RPC object, got ${jsonType(value)}`,
    };
  }
  const id = isId(value.id) ? value.id : null;
  if (value.jsonrpc !== "2.0") {
    return {
      id,
      problem: `expected "jsonrpc": "2.0", got ${
        JSON.stringify(value.jsonrpc) ?? "none"
      }`,
    };
  }
  // An error response may carry id null (the request could not be read).
  if (
    "id" in value && !isId(value.id) && !(value.id === null && "error" in value)
  ) {
    return {
      id: null,
      problem: `expected id to be a string or number, got ${
        jsonType(value.id)
      }`,
    };
  }
  if ("method" in value) {
    if (typeof value.method !== "string") {
      return {
        id,
        problem: `expected method to be a string, got ${
          jsonType(value.method)
        }`,
      };
    }
    if (value.params !== undefined && !isRecord(value.params)) {
      return {
        id,
        problem: `expected params to be an object, got ${
          jsonType(value.params)
        }`,
      };
    }
    return undefined;
  }
  if (!("id" in value)) {
    return {
      id: null,
      problem:
        "expected a method (request or notification) or an id (response)",
    };
  }
  if (("result" in value) === ("error" in value)) {
    return {
      id,
      problem: "expected a response to carry exactly one of result and error",
    };
  }
  return undefined;
}
