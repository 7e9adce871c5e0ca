// The requests a server sends its client (sampling, elicitation, roots),
// seen from both places that send one: the session (2025: a real request;
// 2026-07-28: an input request of an input-required result) and a detached
// task (an input request the task waits in). One table says which client
// capability each needs; one rule says how a handler's request becomes an
// input request and under which key.

import { META, STATELESS_PROTOCOL_VERSIONS } from "../jsonrpc/_versions.ts";

/**
 * Where a handler's request to the client would go: a 2025 session's client
 * (declared at `initialize`), a 2026-07-28 request's input-required result
 * (declared in the request's `_meta`), or nowhere, for a 2025 request over
 * stateless HTTP, which has no session to carry it.
 */
export type AskingEra = "session" | "request" | "sessionless";

/**
 * Why a request to the client cannot go, for an error message: `what` (such
 * as `the roots capability`) is not declared where this era declares it.
 */
export function undeclared(era: AskingEra, what: string): string {
  const stateless = STATELESS_PROTOCOL_VERSIONS[0];
  switch (era) {
    case "request":
      return `the request's _meta["${META.CLIENT_CAPABILITIES}"] does not declare ${what} (a ${stateless} request declares the client's capabilities itself, in each request's _meta)`;
    case "sessionless":
      return `stateless HTTP serves each request without a session, so a request to the client can be neither sent nor answered (serve HTTP with sessions, or use a ${stateless} client, whose requests carry their input round trips)`;
    default:
      return `the client did not declare ${what}`;
  }
}

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
