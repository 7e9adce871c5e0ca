// The shapes a session and its request handlers share: kept apart from
// _session.ts so that the handler table (_router.ts, _call.ts) and the
// 2026-07-28 path (_stateless_session.ts) import the types, not the class.

import type { AuthInfo, JsonRpcId } from "../jsonrpc/types.ts";
import type { CacheHints, RequestStateSigner } from "./_era.ts";
import type { RequestLayer } from "./layer.ts";
/** What a request handler learns about its request. */
export interface RequestExtra {
  /** Aborted when the client cancels the request or the session closes. */
  readonly signal: AbortSignal;
  /** Calls `listener` on that abort, without creating the signal. */
  onabort(listener: (reason: unknown) => void): void;
  /** The request's id. */
  requestId: JsonRpcId;
  /** The transport's session id, if it has sessions. */
  sessionId: string | undefined;
  /** The request's verified access token, on HTTP behind `oauthResource`. */
  readonly authInfo?: AuthInfo;
  /** Sends a notification tied to this request (on HTTP: on its stream). */
  sendNotification: (
    notification: { method: string; params: Record<string, unknown> },
  ) => Promise<void>;
  /** Sends a request to the client, tied to this request; resolves with its result. */
  sendRequest: (
    request: { method: string; params: Record<string, unknown> },
  ) => Promise<Record<string, unknown>>;
}

/**
 * A request handler: params in, result out; a thrown error with a numeric
 * `code` keeps it. `context` is the session's own (its subscriptions, its
 * log level), so that one handler table serves every session.
 */
export type RequestHandler<C> = (
  params: Record<string, unknown>,
  extra: RequestExtra,
  context: C,
) => unknown;

/** What a session needs to answer `initialize`. */
export interface SessionOptions<C> {
  /** `serverInfo`. */
  info: Record<string, unknown>;
  /** `capabilities`. */
  capabilities: Record<string, unknown>;
  /** `instructions`, if any. */
  instructions?: string;
  /** Handlers by method, shared by every session of a server. */
  handlers: ReadonlyMap<string, RequestHandler<C>>;
  /** What the handlers get as `context` for this session. */
  context: C;
  /** Called once when the transport has closed. */
  onclose?: () => void;
  /** Caching hints of list and read results to 2026-07-28 requests. */
  cache?: CacheHints;
  /** Signs and checks the `requestState` of input-required results. */
  signer?: RequestStateSigner;
  /** Middleware around every request; the server's own list, so later additions count. */
  requestLayers?: readonly RequestLayer[];
}

/**
 * What a request's era changes in its `extra`: a 2026-07-28 request asks
 * the client through its input-required result, and hears logs only at the
 * level its `_meta` asked for.
 */
export interface RequestScope {
  /** Whether this notification is not for this request. */
  mutes(
    notification: { method: string; params: Record<string, unknown> },
  ): boolean;
  /** Answers a request to the client. */
  ask(
    request: { method: string; params: Record<string, unknown> },
  ): Promise<Record<string, unknown>>;
}
