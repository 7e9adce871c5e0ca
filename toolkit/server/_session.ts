/**
 * One MCP session over one transport: the JSON-RPC request/response
 * machinery and the `initialize` handshake, without the SDK's protocol layer.
 *
 * The SDK's `Server` zod-parses every message (about 30 µs of CPU per call)
 * and its module graph costs ~180 ms of start-up; the toolkit checks the
 * params of the methods it owns itself, so it needs neither. Transports
 * (the toolkit's stdio one, the SDK's Streamable HTTP one) plug in through
 * the SDK-compatible {@linkcode McpTransport} shape.
 *
 * @module
 */

import type {
  JsonRpcId,
  JsonRpcMessage,
  McpTransport,
} from "../jsonrpc/types.ts";
import { isRecord, jsonType } from "../_util/json_type.ts";
import { LazyAbort } from "../_util/abort.ts";
import { ProtocolError, RPC_ERROR } from "../jsonrpc/errors.ts";
import { isThenable } from "../_util/thenable.ts";
import { AsyncLocalStorage } from "node:async_hooks";
import type { AuthInfo } from "./context.ts";
import {
  acknowledged,
  type CacheHints,
  checkListenFilter,
  checkRequestMeta,
  DEFAULT_CACHE_HINTS,
  INPUT_KEY_META,
  INPUT_METHODS,
  isStatelessRequest,
  type ListenFilter,
  loadRequestSigning,
  logWanted,
  META,
  missingCapability,
  REMOVED_METHODS,
  type RequestMeta,
  requestSigningLoaded,
  RequestStateSigner,
  SESSION_PROTOCOL_VERSIONS,
  STATELESS_PROTOCOL_VERSIONS,
  statelessResult,
  wants,
} from "./_era.ts";

/** The newest protocol version, answered when the client asks for one this server does not know. */
export const LATEST_PROTOCOL_VERSION = "2025-11-25";

/** Protocol versions `initialize` negotiates, newest first (2026-07-28 is spoken per request, without it). */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] =
  SESSION_PROTOCOL_VERSIONS;

/**
 * The client capabilities of the 2026-07-28 request whose handler is
 * running, across its awaits: concurrent requests on one stdio session each
 * declare their own, and none may see another's.
 */
const REQUEST_CAPABILITIES = new AsyncLocalStorage<Record<string, unknown>>();

/** Signs input-required state when a server gives no signer of its own: one key per process. */
const PROCESS_SIGNER = new RequestStateSigner();

/** How long a request to the client (sampling, elicitation) may take by default. */
const REQUEST_TIMEOUT_MS = 60_000;

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
}

/** What a 2026-07-28 request carries beyond its params: its `_meta`, and the answers to its input requests. */
interface StatelessCall {
  meta: RequestMeta;
  /** The answers the client has given, by key, across rounds. */
  answers: Record<string, unknown>;
  /** Answers this round's handler used, carried to the next round. */
  used: Record<string, unknown>;
  /** Input requests this round's handler made that have no answer yet. */
  asked: Record<string, Record<string, unknown>>;
  /** How many requests of each kind the handler made, for their default keys. */
  counts: Map<string, number>;
}

interface Pending {
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

/** One MCP session on one transport. */
export class Session<C = unknown> {
  /** The client's capabilities, once initialised. */
  #clientCapabilities: Record<string, unknown> | undefined;
  #transport: McpTransport;
  #options: SessionOptions<C>;
  #running = new Map<JsonRpcId, LazyAbort>();
  #pending = new Map<JsonRpcId, Pending>();
  #nextId = 0;
  #closed = false;
  /** Set once `initialize` has been answered: until then only `ping` is served. */
  #initialized = false;
  /** The verified token of the message being received, for its `Extra`. */
  authInfo: AuthInfo | undefined;
  /** Open `subscriptions/listen` streams (2026-07-28), by request id. */
  #listens = new Map<JsonRpcId, ListenFilter>();
  /** Set by the first 2026-07-28 request: notifications then go to listen streams only. */
  #stateless = false;

  constructor(transport: McpTransport, options: SessionOptions<C>) {
    this.#transport = transport;
    this.#options = options;
  }

  /** Whether it serves 2026-07-28 requests (its notifications go to listen streams). */
  get stateless(): boolean {
    return this.#stateless;
  }

  /**
   * The client's capabilities: those `initialize` declared, or inside a
   * 2026-07-28 request's handler, those of that request's `_meta`.
   */
  get clientCapabilities(): Record<string, unknown> | undefined {
    return REQUEST_CAPABILITIES.getStore() ?? this.#clientCapabilities;
  }

  set clientCapabilities(value: Record<string, unknown> | undefined) {
    this.#clientCapabilities = value;
  }

  /** The transport's session id. */
  get sessionId(): string | undefined {
    return this.#transport.sessionId;
  }

  /** Starts the transport and begins answering. */
  async start(): Promise<void> {
    const transport = this.#transport;
    // Handlers a transport's owner set before (the HTTP layer tracks closes) keep running.
    const { onmessage, onclose, onerror } = transport;
    transport.onmessage = (message, extra) => {
      onmessage?.(message, extra);
      // Per message, not per session: a client may send a new token any time.
      this.authInfo = extra?.authInfo as AuthInfo | undefined;
      try {
        this.#receive(message);
      } finally {
        this.authInfo = undefined;
      }
    };
    transport.onclose = () => {
      onclose?.();
      this.#onclose();
    };
    transport.onerror = onerror ??
      ((error) => console.error(`MCP transport error: ${error.message}`));
    await transport.start();
  }

  /** Sends a notification to the client. */
  async notify(
    method: string,
    params?: Record<string, unknown>,
    relatedRequestId?: JsonRpcId,
  ): Promise<void> {
    if (this.#closed) return;
    if (this.#stateless && relatedRequestId === undefined) {
      // No session to send to: a change reaches the listen streams that asked for it.
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
      return;
    }
    await this.#transport.send(
      { jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) },
      relatedRequestId === undefined ? undefined : { relatedRequestId },
    );
  }

  /** Closes the transport (which ends the session). */
  async close(): Promise<void> {
    await this.#transport.close();
    this.#onclose();
  }

  #onclose(): void {
    if (this.#closed) return;
    this.#closed = true;
    // Built only when something waits: an error's stack trace costs more
    // than the rest of closing a per-request session.
    if (this.#running.size > 0 || this.#pending.size > 0) {
      const gone = new ProtocolError(
        RPC_ERROR.CONNECTION_CLOSED,
        "Connection closed",
      );
      for (const controller of this.#running.values()) controller.abort(gone);
      for (const pending of this.#pending.values()) pending.reject(gone);
      this.#running.clear();
      this.#pending.clear();
    }
    this.#options.onclose?.();
  }

  #receive(message: JsonRpcMessage): void {
    if ("method" in message) {
      if ("id" in message) {
        this.#request(message.id, message.method, message.params);
      } else this.#notification(message.method, message.params);
      return;
    }
    const pending = message.id === null
      ? undefined
      : this.#pending.get(message.id);
    if (pending === undefined) return;
    this.#pending.delete(message.id!);
    if ("error" in message) {
      pending.reject(
        new ProtocolError(message.error.code, message.error.message),
      );
    } else pending.resolve(message.result);
  }

  #notification(
    method: string,
    params: Record<string, unknown> | undefined,
  ): void {
    if (method === "notifications/cancelled") {
      const id = params?.requestId as JsonRpcId | undefined;
      const controller = id === undefined ? undefined : this.#running.get(id);
      controller?.abort(params?.reason ?? "Cancelled by the client");
    }
    // initialized, roots/list_changed and others need no answer.
  }

  #request(
    id: JsonRpcId,
    method: string,
    params: Record<string, unknown> | undefined,
  ): void {
    const controller = new LazyAbort();
    let outcome: unknown;
    try {
      outcome = this.#run(id, method, params, controller);
    } catch (error) {
      this.#reply(errorAnswer(id, error), controller);
      return;
    }
    if (!isThenable(outcome)) {
      // Answered at once: nothing of the request outlives this turn, and a
      // cancellation cannot arrive before the answer.
      this.#reply(resultAnswer(id, outcome), controller);
      return;
    }
    this.#running.set(id, controller);
    Promise.resolve(outcome).then(
      (result) => this.#settle(id, resultAnswer(id, result), controller),
      (error) => this.#settle(id, errorAnswer(id, error), controller),
    );
  }

  #run(
    id: JsonRpcId,
    method: string,
    params: Record<string, unknown> | undefined,
    controller: LazyAbort,
  ): unknown {
    if (
      !this.#initialized &&
      isStatelessRequest(
        method,
        params,
        this.#transport.perRequestMeta === true,
      )
    ) {
      return this.#statelessRequest(id, method, params, controller);
    }
    if (method === "initialize") return this.#initialize(params ?? {});
    if (method === "ping") return {};
    if (!this.#initialized && this.#transport.stateless !== true) {
      // The lifecycle: nothing but ping before the handshake.
      throw new ProtocolError(
        RPC_ERROR.INVALID_REQUEST,
        `Server not initialized: send initialize before ${method} (only ping may come first), or speak ${
          STATELESS_PROTOCOL_VERSIONS[0]
        } with _meta.${META.PROTOCOL_VERSION} on every request`,
      );
    }
    const handler = this.#options.handlers.get(method);
    if (handler === undefined) {
      throw new ProtocolError(
        RPC_ERROR.METHOD_NOT_FOUND,
        `Method not found: ${method}`,
      );
    }
    if (params !== undefined && !isRecord(params)) {
      throw new ProtocolError(
        RPC_ERROR.INVALID_PARAMS,
        `Invalid params for ${method}: expected an object, got ${
          jsonType(params)
        }`,
      );
    }
    return handler(
      params ?? {},
      new Extra(this, id, controller),
      this.#options.context,
    );
  }

  /**
   * A 2026-07-28 request: its `_meta` checked, `server/discover` and
   * `subscriptions/listen` answered here, any other method from the table
   * with its result decorated, and a handler that asked the client for
   * input answered with an input-required result instead of a request.
   */
  #statelessRequest(
    id: JsonRpcId,
    method: string,
    params: Record<string, unknown> | undefined,
    controller: LazyAbort,
  ): unknown {
    this.#stateless = true;
    // Spoken to, so broadcasts may come (its listen streams pick them), but
    // outside a handler it declares nothing: no request's capabilities stay.
    this.#clientCapabilities ??= {};
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
    if (INPUT_METHODS.has(method) && !requestSigningLoaded()) {
      // The token is the message's: set again while the request resumes.
      const authInfo = this.authInfo;
      return loadRequestSigning().then(() => {
        this.authInfo = authInfo;
        try {
          return this.#statelessRequest(id, method, params, controller);
        } finally {
          this.authInfo = undefined;
        }
      });
    }
    const call = this.#inputRound(method, args, meta);
    const finish = (result: unknown) =>
      this.#inputRequired(method, args, call) ??
        statelessResult(method, result, hints);
    const fail = (error: unknown) => {
      const needed = this.#inputRequired(method, args, call);
      if (needed !== undefined) return needed;
      throw statelessError(method, args, error);
    };
    let outcome: unknown;
    try {
      // Per request, across the handler's awaits: no request sees another's.
      outcome = REQUEST_CAPABILITIES.run(
        meta.clientCapabilities,
        () =>
          handler!(
            args,
            new Extra(this, id, controller, call),
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
  ): StatelessCall {
    const call: StatelessCall = {
      meta,
      answers: {},
      used: {},
      asked: {},
      counts: new Map(),
    };
    if (!INPUT_METHODS.has(method)) return call;
    const signer = this.#options.signer ?? PROCESS_SIGNER;
    if (params.requestState !== undefined) {
      Object.assign(
        call.answers,
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
      Object.assign(call.answers, responses);
    }
    return call;
  }

  /** An input-required result when the handler asked for input it has no answer to. */
  #inputRequired(
    method: string,
    params: Record<string, unknown>,
    call: StatelessCall,
  ): Record<string, unknown> | undefined {
    if (Object.keys(call.asked).length === 0) return undefined;
    const signer = this.#options.signer ?? PROCESS_SIGNER;
    return {
      resultType: "input_required",
      inputRequests: call.asked,
      requestState: signer.sign(subjectOf(method, params), call.used),
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
      const extra = new Extra(this, id, controller);
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

  #settle(
    id: JsonRpcId,
    message: JsonRpcMessage,
    controller: LazyAbort,
  ): void {
    this.#running.delete(id);
    this.#reply(message, controller);
  }

  #reply(message: JsonRpcMessage, controller: LazyAbort): void {
    // A cancelled request gets no answer, as MCP says.
    if (controller.aborted || this.#closed) return;
    this.#transport.send(message).catch((error) =>
      this.#transport.onerror?.(error)
    );
  }

  #initialize(params: Record<string, unknown>): Record<string, unknown> {
    const requested = params.protocolVersion;
    if (typeof requested !== "string") {
      throw new ProtocolError(
        RPC_ERROR.INVALID_PARAMS,
        "Invalid params for initialize: protocolVersion: expected string",
      );
    }
    const protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
      ? requested
      : LATEST_PROTOCOL_VERSION;
    this.clientCapabilities = (params.capabilities ?? {}) as Record<
      string,
      unknown
    >;
    this.#transport.setProtocolVersion?.(protocolVersion);
    this.#initialized = true;
    // A client that discovered first and then chose a session gets a session's notifications.
    this.#stateless = false;
    return {
      protocolVersion,
      capabilities: this.#options.capabilities,
      serverInfo: this.#options.info,
      ...(this.#options.instructions === undefined
        ? {}
        : { instructions: this.#options.instructions }),
    };
  }

  /** Sends a request to the client on behalf of request `relatedRequestId`. */
  outgoing(
    method: string,
    params: Record<string, unknown>,
    relatedRequestId: JsonRpcId,
    abort: LazyAbort,
  ): Promise<Record<string, unknown>> {
    const signal = abort.signal;
    const capability = method === "sampling/createMessage"
      ? "sampling"
      : method === "elicitation/create"
      ? "elicitation"
      : method === "roots/list"
      ? "roots"
      : undefined;
    if (
      capability !== undefined &&
      this.clientCapabilities?.[capability] === undefined
    ) {
      return Promise.reject(
        new Error(
          `Client does not support ${capability} (required for ${method})`,
        ),
      );
    }
    if (signal.aborted) return Promise.reject(signal.reason);
    // Ids of our own requests live in a namespace of their own.
    const id = `forge-${this.#nextId++}`;
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.#pending.delete(id);
      };
      const onAbort = () => {
        done();
        reject(signal.reason);
        this.notify("notifications/cancelled", {
          requestId: id,
          reason: String(signal.reason),
        })
          .catch(() => {});
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new ProtocolError(
            RPC_ERROR.REQUEST_TIMEOUT,
            `Request timed out: ${method} got no answer in ${REQUEST_TIMEOUT_MS} ms`,
          ),
        );
      }, REQUEST_TIMEOUT_MS);
      signal.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(id, {
        resolve: (result) => (done(), resolve(result)),
        reject: (error) => (done(), reject(error)),
      });
      this.#transport.send({ jsonrpc: "2.0", id, method, params }, {
        relatedRequestId,
      })
        .catch((error) => (done(), reject(error)));
    });
  }
}

/** A request's `extra`: one object, methods on the prototype, the signal made on demand. */
class Extra<C> implements RequestExtra {
  readonly requestId: JsonRpcId;
  readonly authInfo: AuthInfo | undefined;
  readonly #session: Session<C>;
  readonly #abort: LazyAbort;
  /** Set for a 2026-07-28 request. */
  readonly #call: StatelessCall | undefined;

  constructor(
    session: Session<C>,
    requestId: JsonRpcId,
    abort: LazyAbort,
    call?: StatelessCall,
  ) {
    this.#session = session;
    this.requestId = requestId;
    // Made while its message is received (synchronously), so this is its token.
    this.authInfo = session.authInfo;
    this.#abort = abort;
    this.#call = call;
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  get sessionId(): string | undefined {
    return this.#session.sessionId;
  }

  onabort(listener: (reason: unknown) => void): void {
    this.#abort.onabort(listener);
  }

  sendNotification(
    notification: { method: string; params: Record<string, unknown> },
  ): Promise<void> {
    if (this.#abort.aborted) return Promise.resolve();
    if (
      this.#call !== undefined &&
      notification.method === "notifications/message" &&
      !logWanted(this.#call.meta.logLevel, notification.params.level)
    ) {
      // 2026-07-28: log messages only at the level the request asked for, none if it asked for none.
      return Promise.resolve();
    }
    return this.#session.notify(
      notification.method,
      notification.params,
      this.requestId,
    );
  }

  sendRequest(
    request: { method: string; params: Record<string, unknown> },
  ): Promise<Record<string, unknown>> {
    if (this.#call !== undefined) return this.#input(this.#call, request);
    return this.#session.outgoing(
      request.method,
      request.params,
      this.requestId,
      this.#abort,
    );
  }

  /**
   * 2026-07-28 has no requests to the client: the answer comes from the
   * request's `inputResponses` when the client already gave it, and
   * otherwise the request is answered input-required with this one among
   * its `inputRequests` (and the promise rejects, so the handler ends).
   */
  #input(
    call: StatelessCall,
    request: { method: string; params: Record<string, unknown> },
  ): Promise<Record<string, unknown>> {
    const { method } = request;
    const capability = CAPABILITY_OF[method];
    if (
      capability !== undefined &&
      call.meta.clientCapabilities[capability] === undefined
    ) {
      return Promise.reject(missingCapability(capability, method));
    }
    const { [INPUT_KEY_META]: named, ...meta } =
      (request.params?._meta ?? {}) as Record<string, unknown>;
    const kind = capability ?? method;
    const count = (call.counts.get(kind) ?? 0) + 1;
    call.counts.set(kind, count);
    const key = typeof named === "string"
      ? named
      : count === 1
      ? kind
      : `${kind}-${count}`;
    if (Object.hasOwn(call.answers, key)) {
      const answer = call.answers[key];
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
      call.used[key] = answer;
      return Promise.resolve(answer);
    }
    const { _meta: _, ...params } = request.params ?? {};
    call.asked[key] = {
      method,
      params: Object.keys(meta).length === 0
        ? params
        : { ...params, _meta: meta },
    };
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

/** The client capability each server-to-client request needs. */
const CAPABILITY_OF: Record<string, string> = {
  "sampling/createMessage": "sampling",
  "elicitation/create": "elicitation",
  "roots/list": "roots",
};

/** Names the request a `requestState` belongs to: the method and the tool, prompt or resource. */
function subjectOf(method: string, params: Record<string, unknown>): string {
  return `${method} ${String(params.name ?? params.uri ?? "")}`;
}

function resultAnswer(id: JsonRpcId, result: unknown): JsonRpcMessage {
  return {
    jsonrpc: "2.0",
    id,
    result: (result ?? {}) as Record<string, unknown>,
  };
}

/**
 * A thrown error with a numeric `code` keeps it; anything else is -32603.
 * A `ProtocolError` with `data` (such as -32042's elicitations) keeps that too.
 */
function errorAnswer(id: JsonRpcId, error: unknown): JsonRpcMessage {
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
