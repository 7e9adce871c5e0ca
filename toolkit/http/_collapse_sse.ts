// Internal: an SSE answer turned into one JSON body, for `jsonResponse`.

import { CODE, rpcError, SESSION_HEADER } from "./_response.ts";

/**
 * An SSE response turned into one JSON body: the JSON-RPC responses it
 * carried (an array for a batch), without notifications and priming events.
 * A stream that ends with no answer (its session closed) is a 503.
 */
export async function collapseToJson(
  response: Response,
  batch: boolean,
): Promise<Response> {
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) {
    return response;
  }
  const answers: unknown[] = [];
  for (const line of (await response.text()).split("\n")) {
    if (!line.startsWith("data:")) continue;
    const data = line.slice(5).trim();
    if (data === "") continue;
    const message = JSON.parse(data);
    if ("result" in message || "error" in message) answers.push(message);
  }
  if (answers.length === 0) {
    return rpcError(
      503,
      CODE.TRANSPORT,
      "Service Unavailable: the session closed before the request was answered",
    );
  }
  const headers: Record<string, string> = {
    "content-type": "application/json",
  };
  const session = response.headers.get(SESSION_HEADER);
  if (session !== null) headers[SESSION_HEADER] = session;
  return new Response(JSON.stringify(batch ? answers : answers[0]), {
    status: response.status,
    headers,
  });
}
