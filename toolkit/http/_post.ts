// Internal: what every MCP POST passes before its message is looked at, on
// both paths (a 2025 session's and a 2026-07-28 request's): Accept, then
// Content-Type, then the body, read under the body limit and parsed as JSON.

import { readBodyText } from "./_body.ts";
import { CODE, rpcError } from "./_response.ts";

/** The parsed body, or the answer that refuses the request. */
export type PostMessage =
  | { message: unknown; refusal?: undefined }
  | { refusal: Response };

/**
 * Checks the headers and parses the body; `headerCode` is the JSON-RPC code
 * of a 406 or 415 answer, which the two paths report differently.
 */
export async function readPostMessage(
  request: Request,
  headerCode: number,
): Promise<PostMessage> {
  const accept = request.headers.get("accept") ?? "";
  if (
    !accept.includes("application/json") ||
    !accept.includes("text/event-stream")
  ) {
    return {
      refusal: rpcError(
        406,
        headerCode,
        "Not Acceptable: Accept must list application/json and text/event-stream",
      ),
    };
  }
  const type = request.headers.get("content-type");
  if (!isJsonMediaType(type)) {
    return {
      refusal: rpcError(
        415,
        headerCode,
        `Unsupported Media Type: Content-Type must be application/json, got ${
          type || "none"
        }`,
      ),
    };
  }
  // A body limit in front makes this read fail; the failure is its to answer
  // (413, 408), not a parse error.
  const body = await readBodyText(request);
  try {
    return { message: JSON.parse(body) };
  } catch (error) {
    return {
      refusal: rpcError(
        400,
        CODE.PARSE_ERROR,
        `Parse error: ${(error as Error).message}`,
      ),
    };
  }
}

function isJsonMediaType(value: string | null): boolean {
  if (value === null) return false;
  const semicolon = value.indexOf(";");
  const type = (semicolon === -1 ? value : value.slice(0, semicolon)).trim();
  return type.toLowerCase() === "application/json";
}
