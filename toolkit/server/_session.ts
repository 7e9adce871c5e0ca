/**
 * One MCP session over one transport: the JSON-RPC request/response
 * machinery, the 2025 session lifecycle (`initialize`, and only `ping`
 * before it) and the dispatch of every other method to the server's handler
 * table, without the SDK's protocol layer. A request of the stateless
 * 2026-07-28 revision (`_meta` on every request, no `initialize`) is handed
 * to `_stateless_session.ts`, which serves it from the same table.
 *
 * The SDK's `Server` zod-parses every message (about 30 µs of CPU per call)
 * and its module graph costs ~180 ms of start-up; the toolkit checks the
 * params of the methods it owns itself, so it needs neither. Transports
 * (the toolkit's stdio one, the SDK's Streamable HTTP one) plug in through
 * the SDK-compatible {@linkcode McpTransport} shape.
 *
 * The path of one plain `tools/call` (a 2025 session over stdio):
 *
 * 1. `stdio/stdio.ts`: `StdioTransport` reads a line, checks it is one
 *    JSON-RPC message (`jsonrpc/_check.ts`) and calls `onmessage`.
 * 2. `server/server.ts`: the `onmessage` that `connect()` set looks for
 *    `notifications/roots/list_changed` and passes the message on.
 * 3. `server/_session.ts` (here): `Session` receives it and `#run` runs it:
 *    `_era.ts`'s `isStatelessRequest()` says it is of the session era, the
 *    lifecycle check passes (`initialize` was answered), and the handler of
 *    `tools/call` comes from the table.
 * 4. `server/_router.ts`: the table's `tools/call` entry checks `name` and
 *    calls the pipeline.
 * 5. `server/_call.ts`: `CallPipeline.run` finds the tool
 *    (`server/_registry.ts`), makes its `CallContext` (`server/_context.ts`)
 *    and runs the call layers (`server/layer.ts`), then
 *    `patterns/_probe_guard.ts` (a probe ends here), then decodes the
 *    arguments (`args/decode.ts`), runs the handler and checks its result
 *    (`result/result.ts`: a `ToolError` or `error()` is an `isError` result).
 * 6. Back here: the result, or the error as JSON-RPC, goes to
 *    `transport.send()`, which writes the line (`stdio/stdio.ts`).
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
import { errorAnswer } from "../jsonrpc/_error_answer.ts";
import { isThenable } from "../_util/thenable.ts";
import type { AuthInfo } from "./context.ts";
import {
  isStatelessRequest,
  META,
  SESSION_PROTOCOL_VERSIONS,
  sessionCapabilities,
  STATELESS_PROTOCOL_VERSIONS,
} from "./_era.ts";
import {
  type AskingEra,
  clientCapabilityOf,
  undeclared,
} from "./_client_requests.ts";
import { requestCapabilities, StatelessSession } from "./_stateless_session.ts";
import { runLayered } from "./_request_layers.ts";
import type { RequestLayer } from "./layer.ts";
import type {
  RequestExtra,
  RequestScope,
  SessionOptions,
} from "./_session_types.ts";

/** The newest protocol version, answered when the client asks for one this server does not know. */
export const LATEST_PROTOCOL_VERSION = "2025-11-25";

/** Protocol versions `initialize` negotiates, newest first (2026-07-28 is spoken per request, without it). */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] =
  SESSION_PROTOCOL_VERSIONS;

/** How long a request to the client (sampling, elicitation) may take by default. */
const REQUEST_TIMEOUT_MS = 60_000;

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
  /** The revision `initialize` negotiated. */
  #protocolVersion: string | undefined;
  /** The verified token of the message being received, for its `Extra`. */
  authInfo: AuthInfo | undefined;
  /** Set by the first 2026-07-28 request: notifications then go to listen streams only. */
  #stateless = false;
  /** The 2026-07-28 requests and their listen streams, made by the first such request. */
  #perRequest: StatelessSession<C> | undefined;

  constructor(transport: McpTransport, options: SessionOptions<C>) {
    this.#transport = transport;
    this.#options = options;
  }

  /** Whether it serves 2026-07-28 requests (its notifications go to listen streams). */
  get stateless(): boolean {
    return this.#stateless;
  }

  /**
   * Whether the request whose handler runs now is a 2026-07-28 one: its
   * capabilities came in its `_meta`, and it may use the extensions only
   * that revision defines (tasks).
   */
  get statelessRequest(): boolean {
    return requestCapabilities() !== undefined;
  }

  /** Where a request to the client from the handler running now would go. */
  get askingEra(): AskingEra {
    if (this.statelessRequest) return "request";
    return this.#transport.stateless === true && !this.#initialized
      ? "sessionless"
      : "session";
  }

  /**
   * The client's capabilities: those `initialize` declared, or inside a
   * 2026-07-28 request's handler, those of that request's `_meta`.
   */
  get clientCapabilities(): Record<string, unknown> | undefined {
    return requestCapabilities() ?? this.#clientCapabilities;
  }

  set clientCapabilities(value: Record<string, unknown> | undefined) {
    this.#clientCapabilities = value;
  }

  /** The transport's session id. */
  get sessionId(): string | undefined {
    return this.#transport.sessionId;
  }

  /** The revision `initialize` negotiated, if it has been. */
  get protocolVersion(): string | undefined {
    return this.#protocolVersion;
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
      await this.#perRequest?.broadcast(method, params);
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
    const layers = this.#options.requestLayers;
    let outcome: unknown;
    try {
      outcome = layers === undefined || layers.length === 0
        ? this.#run(id, method, params, controller)
        : this.#layered(layers, id, method, params, controller);
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

  /** `#run` inside the server's request layers. */
  #layered(
    layers: readonly RequestLayer[],
    id: JsonRpcId,
    method: string,
    params: Record<string, unknown> | undefined,
    controller: LazyAbort,
  ): unknown {
    const authInfo = this.authInfo;
    return runLayered(layers, this, { id, method, params }, () => {
      // A layer may serve after an await: the message's token goes with it.
      const outer = this.authInfo;
      this.authInfo = authInfo;
      try {
        return this.#run(id, method, params, controller);
      } finally {
        this.authInfo = outer;
      }
    });
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
      this.#stateless = true;
      // Spoken to, so broadcasts may come (its listen streams pick them), but
      // outside a handler it declares nothing: no request's capabilities stay.
      this.#clientCapabilities ??= {};
      this.#perRequest ??= new StatelessSession(this, {
        transport: this.#transport,
        options: this.#options,
      });
      return this.#perRequest.request(id, method, params, controller);
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

  /** A request's `extra`; `scope` set for a 2026-07-28 request, which asks and logs its own way. */
  requestExtra(
    id: JsonRpcId,
    controller: LazyAbort,
    scope?: RequestScope,
  ): RequestExtra {
    return new Extra(this, id, controller, scope);
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
    this.#protocolVersion = protocolVersion;
    this.#initialized = true;
    // A client that discovered first and then chose a session gets a session's notifications.
    this.#stateless = false;
    return {
      protocolVersion,
      capabilities: sessionCapabilities(this.#options.capabilities),
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
    if (this.askingEra === "sessionless") {
      return Promise.reject(
        new Error(`Cannot send ${method}: ${undeclared("sessionless", "")}`),
      );
    }
    const capability = clientCapabilityOf(method);
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
  /** Set for a 2026-07-28 request: its input requests and its log level. */
  readonly #scope: RequestScope | undefined;

  constructor(
    session: Session<C>,
    requestId: JsonRpcId,
    abort: LazyAbort,
    scope?: RequestScope,
  ) {
    this.#session = session;
    this.requestId = requestId;
    // Made while its message is received (synchronously), so this is its token.
    this.authInfo = session.authInfo;
    this.#abort = abort;
    this.#scope = scope;
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
    if (this.#scope?.mutes(notification)) return Promise.resolve();
    return this.#session.notify(
      notification.method,
      notification.params,
      this.requestId,
    );
  }

  sendRequest(
    request: { method: string; params: Record<string, unknown> },
  ): Promise<Record<string, unknown>> {
    if (this.#scope !== undefined) return this.#scope.ask(request);
    return this.#session.outgoing(
      request.method,
      request.params,
      this.requestId,
      this.#abort,
    );
  }
}

function resultAnswer(id: JsonRpcId, result: unknown): JsonRpcMessage {
  return {
    jsonrpc: "2.0",
    id,
    result: (result ?? {}) as Record<string, unknown>,
  };
}
