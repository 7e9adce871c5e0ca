// The 2026-07-28 half of a session: requests that carry their protocol
// version and the client's capabilities in `_meta`, with nothing remembered
// between them. `_era.ts` decides that a request is of this era and holds
// the rules of the revision (the `_meta` check, the result decoration, the
// listen filter); this file runs such a request on a session: its `_meta`
// checked, `server/discover` and `subscriptions/listen` answered here, any
// other method from the session's handler table with its result decorated,
// and a handler that asks the client for input answered input-required
// (SEP-2322) instead of with a request the client cannot receive.

import type { AsyncLocalStorage } from "node:async_hooks";
import type { AuthInfo, JsonRpcId, McpTransport } from "../jsonrpc/types.ts";
import { isRecord, jsonType } from "../_util/json_type.ts";
import type { LazyAbort } from "../_util/abort.ts";
import { ProtocolError, RPC_ERROR } from "../jsonrpc/errors.ts";
import { isThenable } from "../_util/thenable.ts";
import {
  acknowledged,
  type CacheHints,
  checkListenFilter,
  checkRequestMeta,
  DEFAULT_CACHE_HINTS,
  INPUT_METHODS,
  type ListenFilter,
  loadRequestSigning,
  logWanted,
  META,
  missingCapability,
  REMOVED_METHODS,
  type RequestMeta,
  requestSigningLoaded,
  RequestStateSigner,
  STATELESS_PROTOCOL_VERSIONS,
  statelessResult,
  wants,
} from "./_era.ts";
import {
  asInputRequest,
  clientCapabilityOf,
  type InputRequest,
} from "./_client_requests.ts";
import type {
  RequestExtra,
  RequestScope,
  SessionOptions,
} from "./_session_types.ts";

/**
 * The client capabilities of the 2026-07-28 request whose handler is
 * running, across its awaits: concurrent requests on one stdio session each
 * declare their own, and none may see another's.
 */
let requestCapabilityStore:
  | AsyncLocalStorage<Record<string, unknown>>
  | undefined;
let loadingCapabilityStore: Promise<void> | undefined;

// node:async_hooks costs a process about 4 MiB: the first 2026-07-28
// request that runs a handler loads it, not every server at start.
function loadCapabilityStore(): Promise<void> {
  return loadingCapabilityStore ??= import("node:async_hooks").then(
    ({ AsyncLocalStorage }) => {
      requestCapabilityStore = new AsyncLocalStorage();
    },
  );
}

/**
 * Signs input-required state when a server gives no signer of its own: one
 * key per process, made on first use (workerd refuses random values at a
 * module's top level, so importing must not draw the key).
 */
let processSigner: RequestStateSigner | undefined;

/** The client capabilities of the 2026-07-28 request whose handler runs now, if any. */
export function requestCapabilities(): Record<string, unknown> | undefined {
  return requestCapabilityStore?.getStore();
}

/** What the stateless half of a session works with. */
export interface StatelessParts<C> {
  transport: McpTransport;
  options: SessionOptions<C>;
}

/** The 2026-07-28 requests of one session, and its open listen streams. */
/**
 * What the stateless path uses of the session it serves: the access token
 * of the request being resumed, and a request's `extra`. Structural, so that
 * this module does not import the session class (which creates it).
 */
export interface SessionSide {
  authInfo: AuthInfo | undefined;
  requestExtra(
    id: JsonRpcId,
    controller: LazyAbort,
    scope?: RequestScope,
  ): RequestExtra;
}

export class StatelessSession<C> {
  readonly #session: SessionSide;
  readonly #transport: McpTransport;
  readonly #options: SessionOptions<C>;
  /** Open `subscriptions/listen` streams, by request id. */
  #listens = new Map<JsonRpcId, ListenFilter>();

  constructor(session: SessionSide, parts: StatelessParts<C>) {
    this.#session = session;
    this.#transport = parts.transport;
    this.#options = parts.options;
  }

  /** Sends a change to the listen streams that asked for it (there is no session to send it to). */
  async broadcast(
    method: string,
    params: Record<string, unknown> | undefined,
  ): Promise<void> {
    await Promise.all(
      [...this.#listens].filter(([, filter]) => wants(filter, method, params))
        .map(([id]) =>
          this.#transport.send({
            jsonrpc: "2.0",
            method,
            params: {
              ...params,
              _meta: {
                ...(params?._meta as Record<string, unknown> | undefined),
                [META.SUBSCRIPTION_ID]: id,
              },
            },
          }, { relatedRequestId: id })
        ),
    );
  }

  /**
   * A 2026-07-28 request: its `_meta` checked, `server/discover` and
   * `subscriptions/listen` answered here, any other method from the table
   * with its result decorated, and a handler that asked the client for
   * input answered with an input-required result instead of a request.
   */
  request(
    id: JsonRpcId,
    method: string,
    params: Record<string, unknown> | undefined,
    controller: LazyAbort,
  ): unknown {
    const meta = checkRequestMeta(method, params);
    const args = params as Record<string, unknown>;
    const hints = this.#options.cache ?? DEFAULT_CACHE_HINTS;
    if (method === "server/discover") return this.#discover(hints);
    const handler = REMOVED_METHODS.has(method)
      ? undefined
      : this.#options.handlers.get(method);
    if (handler === undefined && method !== "subscriptions/listen") {
      throw new ProtocolError(
        RPC_ERROR.METHOD_NOT_FOUND,
        `Method not found: ${method}${
          REMOVED_METHODS.has(method)
            ? ` (removed in ${STATELESS_PROTOCOL_VERSIONS[0]})`
            : ""
        }`,
      );
    }
    if (method === "subscriptions/listen") {
      return this.#listen(id, args, controller);
    }
    const session = this.#session;
    const needsSigning = INPUT_METHODS.has(method) && !requestSigningLoaded();
    if (requestCapabilityStore === undefined || needsSigning) {
      // The token is the message's: set again while the request resumes.
      const authInfo = session.authInfo;
      return Promise.all([
        loadCapabilityStore(),
        needsSigning ? loadRequestSigning() : undefined,
      ]).then(() => {
        session.authInfo = authInfo;
        try {
          return this.request(id, method, params, controller);
        } finally {
          session.authInfo = undefined;
        }
      });
    }
    const round = this.#inputRound(method, args, meta);
    const finish = (result: unknown) =>
      this.#inputRequired(method, args, round) ??
        statelessResult(method, result, hints);
    const fail = (error: unknown) => {
      const needed = this.#inputRequired(method, args, round);
      if (needed !== undefined) return needed;
      throw statelessError(method, args, error);
    };
    let outcome: unknown;
    try {
      // Per request, across the handler's awaits: no request sees another's.
      outcome = requestCapabilityStore.run(
        meta.clientCapabilities,
        () =>
          handler!(
            args,
            session.requestExtra(id, controller, round),
            this.#options.context,
          ),
      );
    } catch (error) {
      return fail(error);
    }
    return isThenable(outcome)
      ? Promise.resolve(outcome).then(finish, fail)
      : finish(outcome);
  }

  #discover(hints: CacheHints): Record<string, unknown> {
    return {
      resultType: "complete",
      supportedVersions: [...STATELESS_PROTOCOL_VERSIONS],
      capabilities: this.#options.capabilities,
      ...(this.#options.instructions === undefined
        ? {}
        : { instructions: this.#options.instructions }),
      ttlMs: hints.ttlMs,
      cacheScope: hints.cacheScope,
      _meta: { [META.SERVER_INFO]: this.#options.info },
    };
  }

  /** The answers a request brings: those signed into its `requestState`, then its `inputResponses`. */
  #inputRound(
    method: string,
    params: Record<string, unknown>,
    meta: RequestMeta,
  ): InputRound {
    const round = new InputRound(meta);
    if (!INPUT_METHODS.has(method)) return round;
    const signer = this.#options.signer ??
      (processSigner ??= new RequestStateSigner());
    if (params.requestState !== undefined) {
      Object.assign(
        round.answers,
        signer.verify(subjectOf(method, params), params.requestState),
      );
    }
    const responses = params.inputResponses;
    if (responses !== undefined) {
      if (!isRecord(responses)) {
        throw new ProtocolError(
          RPC_ERROR.INVALID_PARAMS,
          `Invalid params for ${method}: inputResponses: expected an object of answers by key, got ${
            jsonType(responses)
          }`,
        );
      }
      Object.assign(round.answers, responses);
    }
    return round;
  }

  /** An input-required result when the handler asked for input it has no answer to. */
  #inputRequired(
    method: string,
    params: Record<string, unknown>,
    round: InputRound,
  ): Record<string, unknown> | undefined {
    if (Object.keys(round.asked).length === 0) return undefined;
    const signer = this.#options.signer ??
      (processSigner ??= new RequestStateSigner());
    return {
      resultType: "input_required",
      inputRequests: round.asked,
      requestState: signer.sign(subjectOf(method, params), round.used),
    };
  }

  /** `subscriptions/listen`: acknowledged first, then open until the client cancels or leaves. */
  #listen(
    id: JsonRpcId,
    params: Record<string, unknown>,
    controller: LazyAbort,
  ): Promise<unknown> {
    const filter = checkListenFilter(params);
    const subscribe = this.#options.handlers.get("resources/subscribe");
    if (subscribe !== undefined) {
      const extra = this.#session.requestExtra(id, controller);
      for (const uri of filter.resourceSubscriptions) {
        try {
          subscribe({ uri }, extra, this.#options.context);
        } catch {
          // A server without resources has no updates to send.
        }
      }
    }
    this.#listens.set(id, filter);
    this.#transport.send({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: {
        notifications: acknowledged(filter),
        _meta: { [META.SUBSCRIPTION_ID]: id },
      },
    }, { relatedRequestId: id }).catch((error) =>
      this.#transport.onerror?.(error)
    );
    return new Promise((resolve) =>
      controller.onabort(() => {
        this.#listens.delete(id);
        resolve({
          resultType: "complete",
          _meta: { [META.SUBSCRIPTION_ID]: id },
        });
      })
    );
  }
}

/**
 * What one 2026-07-28 request's handler may ask of the client, and what it
 * hears: its `_meta`, and the answers to its input requests across rounds.
 */
class InputRound implements RequestScope {
  readonly meta: RequestMeta;
  /** The answers the client has given, by key, across rounds. */
  readonly answers: Record<string, unknown> = {};
  /** Answers this round's handler used, carried to the next round. */
  readonly used: Record<string, unknown> = {};
  /** Input requests this round's handler made that have no answer yet. */
  readonly asked: Record<string, InputRequest> = {};
  /** How many requests of each kind the handler made, for their default keys. */
  readonly #counts = new Map<string, number>();

  constructor(meta: RequestMeta) {
    this.meta = meta;
  }

  /** Log messages only at the level the request asked for, none if it asked for none. */
  mutes(
    notification: { method: string; params: Record<string, unknown> },
  ): boolean {
    return notification.method === "notifications/message" &&
      !logWanted(this.meta.logLevel, notification.params.level);
  }

  /**
   * 2026-07-28 has no requests to the client: the answer comes from the
   * request's `inputResponses` when the client already gave it, and
   * otherwise the request is answered input-required with this one among
   * its `inputRequests` (and the promise rejects, so the handler ends).
   */
  ask(
    request: { method: string; params: Record<string, unknown> },
  ): Promise<Record<string, unknown>> {
    const { method } = request;
    const capability = clientCapabilityOf(method);
    if (
      capability !== undefined &&
      this.meta.clientCapabilities[capability] === undefined
    ) {
      return Promise.reject(missingCapability(capability, method));
    }
    const { named, asked } = asInputRequest(request);
    const kind = capability ?? method;
    const count = (this.#counts.get(kind) ?? 0) + 1;
    this.#counts.set(kind, count);
    const key = typeof named === "string"
      ? named
      : count === 1
      ? kind
      : `${kind}-${count}`;
    if (Object.hasOwn(this.answers, key)) {
      const answer = this.answers[key];
      if (!isRecord(answer)) {
        return Promise.reject(
          new ProtocolError(
            RPC_ERROR.INVALID_PARAMS,
            `Invalid params: inputResponses.${key}: expected the ${method} result object, got ${
              jsonType(answer)
            }`,
          ),
        );
      }
      this.used[key] = answer;
      return Promise.resolve(answer);
    }
    this.asked[key] = asked;
    // The handler stops here; the request is answered input-required, and
    // the client's retry runs the handler again with the answer.
    return Promise.reject(
      new ProtocolError(
        RPC_ERROR.INTERNAL_ERROR,
        `Input required: ${method} is asked of the client as input request ${
          JSON.stringify(key)
        }`,
      ),
    );
  }
}

/**
 * An error as 2026-07-28 words it: an unknown resource is -32602 with its
 * URI in `data` (SEP-2164), where 2025-11-25 said -32002.
 */
function statelessError(
  method: string,
  params: Record<string, unknown>,
  error: unknown,
): unknown {
  if (
    method === "resources/read" &&
    (error as { code?: unknown } | null)?.code === RPC_ERROR.RESOURCE_NOT_FOUND
  ) {
    return new ProtocolError(
      RPC_ERROR.INVALID_PARAMS,
      (error as Error).message,
      { data: { uri: params.uri } },
    );
  }
  return error;
}

/** Names the request a `requestState` belongs to: the method and the tool, prompt or resource. */
function subjectOf(method: string, params: Record<string, unknown>): string {
  return `${method} ${String(params.name ?? params.uri ?? "")}`;
}
