// Internal: the relay between the host and the server. It passes every
// message through both ways with ids kept straight (see _ids.ts), sends the
// gate's own requests on the same connections and routes their answers
// back, and hands the few messages the gate acts on (a host's tools/call,
// its cancellations, its initialize, the server's tool list, the roots) to
// the handlers it is started with. It decides nothing. The server's answers
// reach the host only for a request the relay forwarded, once each: an
// answer under any other id (a call still being decided) is dropped.

import type { JsonRpcId, JsonRpcMessage } from "../jsonrpc/mod.ts";
import { RPC_ERROR } from "../jsonrpc/mod.ts";
import { PendingRequests } from "../jsonrpc/_pending_requests.ts";
import type { MessageTransport } from "../jsonrpc/_message_channel.ts";
import { StdioTransport } from "../stdio/mod.ts";
import { IdSpace } from "./_ids.ts";
import type { GateTelemetry } from "./_telemetry.ts";

/** How much of an id a log line quotes: a server chooses its length. */
const ID_IN_LOG = 80;
/**
 * Dropped answers said one line each, then one line per this many: a
 * server that sprays answers must not flood the host's stderr.
 */
const DROPS_SAID_EACH = 10;
const DROPS_PER_LINE = 1000;

/** A request from the host. */
export type HostRequest = Extract<
  JsonRpcMessage,
  { method: string; id: JsonRpcId }
>;

/** The body of an answer the gate gives the host itself. */
export type Reply =
  | { result: Record<string, unknown> }
  | { error: { code: number; message: string; data?: unknown } };

/**
 * Where the relay is: `running`, then `closing` once the host has gone or
 * the gate is closed (new host requests are refused), then `done` once the
 * server has exited (nothing more is sent to it).
 */
export type Phase = "running" | "closing" | "done";

/** What the relay hands on instead of (or besides) passing it through. */
export interface RelayHandlers {
  /** A host's `tools/call`: the handler answers or forwards it, in its own time. */
  call(message: HostRequest): void;
  /**
   * A host's `resources/read`: `true` when the handler decides it (a
   * `file://` URI) and answers or forwards it in its own time.
   */
  read?(message: HostRequest): boolean;
  /** A host's cancellation of `requestId`; `true` when the handler owned that call. */
  cancel(requestId: JsonRpcId, reason: unknown): boolean;
  /** The params of the host's `initialize` (forwarded as well). */
  initialize(params: Record<string, unknown> | undefined): void;
  /** The params of a host's request `method` as the server gets them. */
  forwarding(
    method: string,
    params: Record<string, unknown> | undefined,
  ): Record<string, unknown> | undefined;
  /** A server's request the gate answers itself; `undefined` passes it to the host. */
  serverRequest(method: string): Reply | undefined;
  /** The host's `notifications/roots/list_changed`: `true` passes it on. */
  rootsChanged(): boolean;
  /**
   * The result of a host's `tools/list`, passed on as it is, or as the
   * promise returned says (the host's answers wait for it, in order).
   */
  toolsListed(
    result: Record<string, unknown>,
  ): Promise<Record<string, unknown>> | undefined;
  /** The server's `notifications/tools/list_changed` (passed on as well). */
  toolsChanged(): void;
  /** The host closed its side. */
  hostEnded(): void;
}

/** The connections of both sides. */
export interface RelayStreams {
  /**
   * The server, as parsed messages (a spawned server's StdioTransport, a
   * remote session's transport); closing the relay closes this end only.
   */
  server: MessageTransport;
  /** The host's messages; this process's stdin when absent. */
  hostReadable?: ReadableStream<Uint8Array>;
  /** The host's answers; this process's stdout when absent. */
  hostWritable?: WritableStream<Uint8Array>;
  /** The host as a connection of parsed messages, instead of the streams. */
  host?: MessageTransport;
}

/** A request the gate sent, and the promise of its answer. */
export interface OwnRequest {
  /** The id it went out under. */
  id: string;
  /** The answer (a result or an error). */
  answer: Promise<JsonRpcMessage>;
}

/** The two connections of a gate and the messages between them. */
export class Relay {
  /** What each host request is traced with, when telemetry is on. */
  readonly telemetry: GateTelemetry | undefined;

  #host: MessageTransport;
  #server: MessageTransport;
  #log: (line: string) => void;
  #drops = 0;
  #phase: Phase = "running";
  #endServer!: () => void;
  #serverEnded: Promise<void>;
  #handlers: RelayHandlers | undefined;
  // Set while the server is replaced: the host's requests and
  // notifications wait here, in order, and go to the new server.
  #held: JsonRpcMessage[] | undefined;
  // Told when nothing sent to the server waits for its answer.
  #idleWaiters: (() => void)[] = [];
  #lastServerSend: Promise<unknown> = Promise.resolve();
  // Set while an answer to the host waits on a review: later messages queue.
  #hostWait: Promise<void> | undefined;

  // Ids sent to the server and to the host.
  #serverIds = new IdSpace();
  #hostIds = new IdSpace();
  // Host requests forwarded to the server, by the id they went out under.
  #forwarded = new Map<JsonRpcId, { hostId: JsonRpcId; method: string }>();
  // What a forwarded request's params become (RelayHandlers.forwarding).
  #forwarding: RelayHandlers["forwarding"] | undefined;
  // The gate's own requests, by id.
  #ownToServer = new PendingRequests<string>();
  #ownToHost = new PendingRequests<string>();

  constructor(
    streams: RelayStreams,
    log: (line: string) => void,
    options: { telemetry?: GateTelemetry } = {},
  ) {
    this.#log = log;
    this.telemetry = options.telemetry;
    this.#serverEnded = new Promise((resolve) => this.#endServer = resolve);
    this.#server = streams.server;
    // Without streams, the host is this process's stdin and stdout, which
    // StdioTransport reads and writes on the event loop when they are pipes.
    this.#host = streams.host ?? new StdioTransport({
      readable: streams.hostReadable,
      writable: streams.hostWritable,
    });
  }

  /** Resolves when the (current) server's connection has ended. */
  get serverEnded(): Promise<void> {
    return this.#serverEnded;
  }

  /** Where the relay is; see {@linkcode Phase}. */
  get phase(): Phase {
    return this.#phase;
  }

  /** From `running` to `closing`: host requests are refused from now on. */
  beginClosing(): void {
    if (this.#phase === "running") this.#phase = "closing";
  }

  /** To `done`, once the server has exited; `true` when it was still `running`. */
  markDone(): boolean {
    const wasRunning = this.#phase === "running";
    this.#phase = "done";
    return wasRunning;
  }

  /** Starts reading both sides. */
  start(handlers: RelayHandlers): void {
    this.#forwarding = handlers.forwarding;
    this.#handlers = handlers;
    this.#listenToServer(handlers);
    this.#host.onmessage = (message) => {
      // The host's answers (to the gate's approval questions) pass: the
      // calls the server's replacement waits for may need them.
      if (this.#held !== undefined && "method" in message) {
        this.#held.push(message);
      } else this.#fromHost(message, handlers);
    };
    this.#host.onerror = (error) => {
      if (this.#phase !== "done") {
        this.#log(`host connection: ${error.message}`);
      }
    };
    this.#host.onend = () => handlers.hostEnded();
    this.#server.start();
    this.#host.start();
  }

  #listenToServer(handlers: RelayHandlers): void {
    this.#server.onmessage = (message) => this.#fromServer(message, handlers);
    this.#server.onerror = (error) => {
      if (this.#phase === "running") {
        this.#log(`server connection: ${error.message}`);
      }
    };
    this.#server.onend = () => this.#endServer();
  }

  // ---- replacing the server --------------------------------------------

  /** From now on the host's requests and notifications wait for {@linkcode release}. */
  hold(): void {
    this.#held ??= [];
  }

  /** Resolves once no request sent to the server (the host's or the gate's) waits for an answer. */
  idle(): Promise<void> {
    if (this.#forwarded.size === 0 && this.#ownToServer.size === 0) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #checkIdle(): void {
    if (this.#forwarded.size > 0 || this.#ownToServer.size > 0) return;
    for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }

  /**
   * Speaks to a new server from now on (the old one's connection is closed,
   * no longer read); call it while held and idle.
   */
  async replaceServer(server: MessageTransport): Promise<void> {
    const old = this.#server;
    old.onmessage = undefined;
    old.onerror = undefined;
    old.onend = undefined;
    await old.close().catch(() => {});
    this.#serverEnded = new Promise((resolve) => this.#endServer = resolve);
    this.#server = server;
    this.#listenToServer(this.#handlers!);
    this.#server.start();
  }

  /** Passes on what the host sent while held, in order. */
  release(): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const message of held) this.#fromHost(message, this.#handlers!);
  }

  // ---- host → server -------------------------------------------------

  #fromHost(message: JsonRpcMessage, handlers: RelayHandlers): void {
    if ("method" in message) {
      if (!("id" in message)) this.#hostNotification(message, handlers);
      else if (this.telemetry === undefined) {
        this.#hostRequest(message, handlers);
      } else {
        this.telemetry.request(
          message,
          () => this.#hostRequest(message, handlers),
        );
      }
    } else {
      this.#hostResponse(message);
    }
  }

  #hostRequest(message: HostRequest, handlers: RelayHandlers): void {
    if (this.#phase !== "running") {
      this.answerHost(message.id, {
        error: {
          code: RPC_ERROR.INTERNAL_ERROR,
          message: "The gate is shutting down",
        },
      });
      return;
    }
    if (message.method === "initialize") handlers.initialize(message.params);
    if (message.method === "tools/call") {
      handlers.call(message);
      return;
    }
    if (message.method === "resources/read" && handlers.read?.(message)) {
      return;
    }
    this.forward(message);
  }

  /** Sends a host's request on to the server, under an id the gate keeps straight. */
  forward(request: HostRequest): void {
    const message = this.telemetry?.forward(request) ?? request;
    const id = this.#serverIds.forward(message.id);
    this.#forwarded.set(id, { hostId: message.id, method: message.method });
    const params = this.#forwarding?.(message.method, message.params) ??
      message.params;
    this.toServer(
      id === message.id && params === message.params
        ? message
        : { ...message, id, params } as HostRequest,
    );
  }

  #hostNotification(
    message: Extract<JsonRpcMessage, { method: string }>,
    handlers: RelayHandlers,
  ): void {
    if (
      message.method === "notifications/roots/list_changed" &&
      !handlers.rootsChanged()
    ) return;
    if (message.method === "notifications/cancelled") {
      const requestId = message.params?.requestId as JsonRpcId;
      // A cancelled request gets no answer: its span ends here.
      this.telemetry?.cancelled(requestId);
      if (handlers.cancel(requestId, message.params?.reason)) return;
      const sentAs = this.#serverIds.sentAs(requestId);
      if (this.#forwarded.has(sentAs)) {
        // A cancelled request gets no answer; forget it now.
        this.#forwarded.delete(sentAs);
        this.#serverIds.settle(sentAs);
        this.#checkIdle();
      }
      if (sentAs !== requestId) {
        this.toServer({
          ...message,
          params: { ...message.params, requestId: sentAs },
        });
        return;
      }
    }
    this.toServer(message);
  }

  #hostResponse(message: Exclude<JsonRpcMessage, { method: string }>): void {
    const { id } = message;
    if (id === null) {
      this.#log(
        `the host answered a message it could not read: ${
          "error" in message ? message.error.message : ""
        }`,
      );
      return;
    }
    if (this.#hostIds.isOwn(id)) {
      this.#ownToHost.settle(id, message);
      return;
    }
    const original = this.#hostIds.settle(id);
    if (original === undefined) return;
    this.toServer(original === id ? message : { ...message, id: original });
  }

  // ---- server → host -------------------------------------------------

  #fromServer(message: JsonRpcMessage, handlers: RelayHandlers): void {
    if ("method" in message) {
      if ("id" in message) {
        const reply = handlers.serverRequest(message.method);
        if (reply !== undefined) {
          this.toServer(
            { jsonrpc: "2.0", id: message.id, ...reply } as JsonRpcMessage,
          );
          return;
        }
        const id = this.#hostIds.forward(message.id);
        this.toHost(id === message.id ? message : { ...message, id });
        return;
      }
      if (message.method === "notifications/tools/list_changed") {
        handlers.toolsChanged();
      } else if (message.method === "notifications/cancelled") {
        const requestId = message.params?.requestId as JsonRpcId;
        const sentAs = this.#hostIds.sentAs(requestId);
        if (sentAs !== requestId) {
          this.#hostIds.settle(sentAs);
          this.toHost({
            ...message,
            params: { ...message.params, requestId: sentAs },
          });
          return;
        }
      }
      this.toHost(message);
      return;
    }
    const { id } = message;
    if (id === null) {
      this.#log(
        `the server answered a message it could not read: ${
          "error" in message ? message.error.message : ""
        }`,
      );
      return;
    }
    if (this.#serverIds.isOwn(id)) {
      this.#ownToServer.settle(id, message);
      this.#checkIdle();
      return;
    }
    // Matched by exact id, type and value (a Map's keys): "39" is not 39.
    const forwarded = this.#forwarded.get(id);
    if (forwarded === undefined) {
      // Not a request the gate forwarded and still waits on: one cancelled
      // or answered already, or a call still being decided (never sent).
      // A host would take it for the answer, unreviewed: it is dropped.
      this.#dropped(id);
      return;
    }
    this.#forwarded.delete(id);
    this.#serverIds.settle(id);
    this.#checkIdle();
    this.telemetry?.forwardAnswered(forwarded.hostId, message);
    if (forwarded.method === "tools/list" && "result" in message) {
      const shown = handlers.toolsListed(message.result);
      if (shown !== undefined) {
        this.#toHostWhen(
          shown.then(
            (result) => ({ ...message, id: forwarded.hostId, result }),
            // A list the gate could not review is not shown unreviewed.
            (error) => ({
              jsonrpc: "2.0",
              id: forwarded.hostId,
              error: {
                code: RPC_ERROR.INTERNAL_ERROR,
                message: `The gate could not check the tool list: ${error}`,
              },
            }),
          ),
        );
        return;
      }
    }
    this.toHost(
      forwarded.hostId === id ? message : { ...message, id: forwarded.hostId },
    );
  }

  // ---- the gate's own requests ---------------------------------------

  /** Sends a request of the gate's own to the server; it fails once the server has stopped. */
  requestServer(method: string, params: Record<string, unknown>): OwnRequest {
    const id = this.#serverIds.own();
    const answer = this.#phase === "done"
      ? Promise.reject(new Error("The server has stopped"))
      : this.#ownToServer.expect(id);
    const traced = this.telemetry?.own({ to: "server", id, method, params });
    this.toServer({
      jsonrpc: "2.0",
      id,
      method,
      params: traced?.params ?? params,
    });
    traced?.until(answer);
    return { id, answer };
  }

  /** Sends a request of the gate's own to the host. */
  requestHost(method: string, params: Record<string, unknown>): OwnRequest {
    const id = this.#hostIds.own();
    // The host's answer removes it (#hostResponse); nothing else settles it.
    const answer = this.#ownToHost.expect(id);
    this.telemetry?.own({ to: "host", id, method, params }).until(answer);
    this.toHost({ jsonrpc: "2.0", id, method, params });
    return { id, answer };
  }

  // ---- sending -------------------------------------------------------

  /** Sends a message to the server, unless it has stopped. */
  toServer(message: JsonRpcMessage): void {
    if (this.#phase === "done") return;
    const sent = this.#server.send(message).catch(() => {});
    this.#lastServerSend = sent;
  }

  /** Sends a message to the host, after any answer still under review. */
  toHost(message: JsonRpcMessage): void {
    if (this.#hostWait === undefined) {
      this.#sendHost(message);
      return;
    }
    this.#toHostWhen(Promise.resolve(message));
  }

  /** Sends `message` once it resolves, keeping the host's messages in order. */
  #toHostWhen(message: Promise<JsonRpcMessage>): void {
    const turn: Promise<void> = (this.#hostWait ?? Promise.resolve())
      .then(() => message)
      .then(
        (ready) => this.#sendHost(ready),
        (error) => this.#log(`cannot pass an answer on: ${error}`),
      )
      .finally(() => {
        if (this.#hostWait === turn) this.#hostWait = undefined;
      });
    this.#hostWait = turn;
  }

  #sendHost(message: JsonRpcMessage): void {
    // Every answer the host gets is to a request of its own.
    if (!("method" in message)) this.telemetry?.answered(message);
    this.#host.send(message).catch(() => {});
  }

  /** Answers the host's request `id` with `reply`. */
  answerHost(id: JsonRpcId, reply: Reply): void {
    this.toHost({ jsonrpc: "2.0", id, ...reply } as JsonRpcMessage);
  }

  /** Resolves once the last message to the server has been written. */
  flushed(): Promise<unknown> {
    return this.#lastServerSend;
  }

  /** Says that an answer under `id` was dropped: each of the first few, then a count. */
  #dropped(id: JsonRpcId): void {
    const drops = ++this.#drops;
    if (drops <= DROPS_SAID_EACH) {
      this.#log(
        `dropped an answer from the server under id ${
          describeId(id)
        }: no request forwarded under that id waits for it${
          drops === DROPS_SAID_EACH
            ? ` (further ones are counted, a line per ${DROPS_PER_LINE})`
            : ""
        }`,
      );
    } else if ((drops - DROPS_SAID_EACH) % DROPS_PER_LINE === 0) {
      this.#log(
        `dropped ${DROPS_PER_LINE} more answers from the server that no request waits for (${drops} in all)`,
      );
    }
  }

  // ---- the end ---------------------------------------------------------

  /** Answers every host request still waiting on the server with `error`. */
  failForwarded(error: { code: number; message: string }): void {
    for (const { hostId } of this.#forwarded.values()) {
      this.answerHost(hostId, { error });
    }
    this.#forwarded.clear();
    this.#checkIdle();
  }

  /** Fails every request of the gate's own still waiting on the server. */
  failOwn(reason: string): void {
    this.#ownToServer.failAll(reason);
    this.#checkIdle();
  }

  /** Closes both connections (not the server's stdin). */
  async close(): Promise<void> {
    await this.#server.close().catch(() => {});
    await this.#host.close().catch(() => {});
  }
}

/** An id for a log line: JSON, so that "39" and 39 differ, and cut short. */
function describeId(id: JsonRpcId): string {
  const text = JSON.stringify(id);
  return text.length > ID_IN_LOG ? `${text.slice(0, ID_IN_LOG)}…` : text;
}
