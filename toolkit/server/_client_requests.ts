// The requests a server sends its client (sampling, elicitation, roots),
// seen from both places that send one: the session (2025: a real request;
// 2026-07-28: an input request of an input-required result) and a detached
// task (an input request the task waits in). One table says which client
// capability each needs; one rule says how a handler's request becomes an
// input request and under which key.

/** The `_meta` key a handler sets on an elicitation or sampling request to name its input request. */
export const INPUT_KEY_META = "forge.input_key";

/** The client capability each server-to-client request needs. */
const CLIENT_CAPABILITY_OF: ReadonlyMap<string, string> = new Map([
  ["sampling/createMessage", "sampling"],
  ["elicitation/create", "elicitation"],
  ["roots/list", "roots"],
]);

/** The client capability `method` needs, if it is one that needs any. */
export function clientCapabilityOf(method: string): string | undefined {
  return CLIENT_CAPABILITY_OF.get(method);
}

/** A request to the client as an input request: what the client is asked. */
export interface InputRequest {
  method: string;
  params: Record<string, unknown>;
}

/**
 * Splits a handler's request to the client into the key it names (its
 * `_meta[INPUT_KEY_META]`, if any) and the input request the client sees,
 * without that key (and without `_meta` when nothing else was in it).
 */
export function asInputRequest(
  request: { method: string; params?: Record<string, unknown> },
): { named: unknown; asked: InputRequest } {
  const { _meta: raw, ...params } = request.params ?? {};
  const { [INPUT_KEY_META]: named, ...meta } = (raw ?? {}) as Record<
    string,
    unknown
  >;
  return {
    named,
    asked: {
      method: request.method,
      params: Object.keys(meta).length === 0
        ? params
        : { ...params, _meta: meta },
    },
  };
}
