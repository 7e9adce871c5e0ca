// Internal: the client side of one MCP session (2025-11-25): the
// handshake, requests matched to their answers, cancellation and progress
// of each request, the server's four lists (every page), fetched again when
// the server says one changed, and the end of the session (the server
// exited or closed the connection, or close() was called), after which
// every request fails with a ServerUnavailable naming why. A connection made
// to restart starts its server again (a new session) after an end of its
// own, with the waits of _util/backoff.ts, until close().

import type { JsonRpcId, JsonRpcMessage } from "../jsonrpc/types.ts";
import { ProtocolError, RPC_ERROR } from "../jsonrpc/errors.ts";
import { PendingRequests } from "../jsonrpc/_pending_requests.ts";
import { errorAnswer } from "../jsonrpc/_error_answer.ts";
import type { MessageTransport } from "../jsonrpc/_message_channel.ts";
import { isRecord } from "../_util/json_type.ts";
import { withResolvers } from "../_util/runtime.ts";
import { Backoff, formatWait } from "../_util/backoff.ts";
import type { ServerProcess } from "./_command.ts";
import type {
  ListName,
  McpClientConnection,
  ServerRequestOptions,
} from "./types.ts";
import { messageOf } from "../_util/errors.ts";

/** The revision the client asks for. */
export const CLIENT_PROTOCOL_VERSION = "2025-11-25";
/** What the client calls itself in `initialize`. */
const CLIENT_INFO = { name: "forge-toolkit-client", version: "0.1.0" };
/** The most pages of one list the client follows. */
const MAX_PAGES = 100;
/** How long close() waits for the server to exit after its stdin ends, then after SIGTERM. */
const EXIT_GRACE_MS = 2000;
/** How long the end of a started server's stdout and its exit may lie apart. */
const EXIT_WAIT_MS = 500;
/** Progress tokens of the client's own, one per request that asked for progress. */
const PROGRESS_TOKEN_PREFIX = "forge-client:";
/** What stands in for the answer to a request given up (cancelled, timed out). */
const GAVE_UP: JsonRpcMessage = {
  jsonrpc: "2.0",
  id: null,
  error: { code: 0, message: "" },
};

/** What each list is read from. */
const LIST_METHODS = {
  tools: [["tools/list", "tools"]],
  prompts: [["prompts/list", "prompts"]],
  resources: [
    ["resources/list", "resources"],
    ["resources/templates/list", "resourceTemplates"],
  ],
} as const;

type ListKey = "tools" | "prompts" | "resources" | "resourceTemplates";

/**
 * Answers a request the server sends the client: its result, or a throw.
 * `context` is the one given with the request of ours that the server's
 * came with, where the transport tells (a Streamable HTTP answer stream).
 */
export type ServerRequestHandler = (
  method: string,
  params: Record<string, unknown>,
  context: unknown,
) => Promise<Record<string, unknown>>;

/** {@linkcode ServerRequestOptions}, and what the server's requests that come with this one are told. */
export interface ContextRequestOptions extends ServerRequestOptions {
  /** Given to the server-request handler for each request the server sends about this one. */
  context?: unknown;
}

/** The server's requests a connection passes on, by the capability that allows each. */
const METHOD_OF: ReadonlyMap<string, string> = new Map([
  ["elicitation", "elicitation/create"],
  ["sampling", "sampling/createMessage"],
]);
const CAPABILITY_OF: ReadonlyMap<string, string> = new Map(
  [...METHOD_OF].map(([capability, method]) => [method, capability]),
);

/** What a session runs over: the transport, and the process of a started server. */
export interface ServerLink {
  /** The messages to and from the server. */
  transport: MessageTransport;
  /** The server's process, when the connection started it. */
  process?: ServerProcess;
}

/** A request to a server whose session has ended. */
export class ServerUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ServerUnavailable";
  }
}

/** One session with one server. */
export class ClientConnection implements McpClientConnection {
  /** Set once a server mounts it: a connection is mounted once. */
  mounted = false;

  #name: string | undefined;
  #link: ServerLink;
  /** Makes a new link after an end of the session's own; none: the end is final. */
  #relink: (() => ServerLink) | undefined;
  #backoff = new Backoff();
  #restartTimer: ReturnType<typeof setTimeout> | undefined;
  /** Set by close(): no end restarts the server any more. */
  #closed = false;
  /** Whether the first session came up: only an up session's end restarts. */
  #opened = false;
  /** Whether a new session's handshake is under way (the old one's end still in force). */
  #starting = false;
  #timeoutMs: number;
  #pending = new PendingRequests<number>();
  #nextId = 0;
  #progress = new Map<string, (params: Record<string, unknown>) => void>();
  #initialize: Record<string, unknown> = {};
  #lists: Record<ListKey, Record<string, unknown>[]> = {
    tools: [],
    prompts: [],
    resources: [],
    resourceTemplates: [],
  };
  #listeners = new Set<(list: ListName) => void>();
  #capabilities: Record<string, unknown>;
  #serverRequests: ServerRequestHandler | undefined;
  /** The contexts of our requests under way, by id. */
  #contexts = new Map<JsonRpcId, unknown>();
  /** A list being fetched again, and whether another change came meanwhile. */
  #refreshing = new Map<ListName, { again: boolean }>();
  #ended = withResolvers<void>();
  #why: string | undefined;
  #closing: Promise<void> | undefined;
  #exitTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    link: ServerLink,
    options: {
      name?: string;
      timeoutMs: number;
      capabilities?: Record<string, unknown>;
      relink?: () => ServerLink;
    },
  ) {
    this.#link = link;
    this.#relink = options.relink;
    this.#name = options.name;
    this.#timeoutMs = options.timeoutMs;
    this.#capabilities = options.capabilities ?? {};
  }

  /**
   * Answers the server's requests of the capabilities the connection
   * declared (`elicitation/create`, `sampling/createMessage`) with
   * `handler`: what the server that mounts it passes them on with.
   */
  onServerRequest(handler: ServerRequestHandler): void {
    this.#serverRequests = handler;
  }

  get name(): string {
    const info = this.#initialize.serverInfo;
    return this.#name ??
      (isRecord(info) && typeof info.name === "string" ? info.name : "server");
  }

  get serverInfo(): Record<string, unknown> {
    const info = this.#initialize.serverInfo;
    return isRecord(info) ? info : {};
  }

  get capabilities(): Record<string, unknown> {
    const capabilities = this.#initialize.capabilities;
    return isRecord(capabilities) ? capabilities : {};
  }

  get instructions(): string | undefined {
    const text = this.#initialize.instructions;
    return typeof text === "string" ? text : undefined;
  }

  get protocolVersion(): string {
    return this.#initialize.protocolVersion as string;
  }

  get tools(): readonly Record<string, unknown>[] {
    return this.#lists.tools;
  }

  get prompts(): readonly Record<string, unknown>[] {
    return this.#lists.prompts;
  }

  get resources(): readonly Record<string, unknown>[] {
    return this.#lists.resources;
  }

  get resourceTemplates(): readonly Record<string, unknown>[] {
    return this.#lists.resourceTemplates;
  }

  /** The process id of a server the connection started. */
  get pid(): number | undefined {
    return this.#link.process?.pid;
  }

  get closed(): Promise<void> {
    return this.#ended.promise;
  }

  /** Starts the session: the handshake, then every list the server offers. */
  async open(): Promise<void> {
    await this.#open(this.#link);
    this.#opened = true;
    this.#backoff.up();
  }

  async #open(link: ServerLink): Promise<void> {
    const { transport, process } = link;
    transport.onmessage = (message, related) => this.#receive(message, related);
    transport.onerror = (error) =>
      console.error(`Server ${JSON.stringify(this.name)}: ${error.message}`);
    const ended = (why: string) => this.#linkEnded(link, why);
    if (process === undefined) {
      transport.onend = () => ended("it closed the connection");
    } else {
      const exited = process.status.then(exitReason);
      // Its stdout ends as it exits: the exit status says why.
      transport.onend = () => {
        const timer = setTimeout(
          () => ended("it closed its stdout"),
          EXIT_WAIT_MS,
        );
        exited.then((why) => {
          clearTimeout(timer);
          ended(why);
        });
      };
      // What it wrote before it exited is read first; a stdout that another
      // process keeps open does not hold the end back.
      exited.then((why) => {
        if (link !== this.#link) return;
        clearTimeout(this.#exitTimer);
        this.#exitTimer = setTimeout(() => ended(why), EXIT_WAIT_MS);
      });
    }
    await transport.start();
    const result = await this.#request("initialize", {
      protocolVersion: CLIENT_PROTOCOL_VERSION,
      capabilities: this.#capabilities,
      clientInfo: CLIENT_INFO,
    }, { timeoutMs: this.#timeoutMs });
    if (
      typeof result.protocolVersion !== "string" ||
      !isRecord(result.capabilities)
    ) {
      throw new Error(
        "its initialize result has no protocolVersion string or no capabilities object",
      );
    }
    this.#initialize = result;
    await this.#send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await Promise.all(
      (["tools", "prompts", "resources"] as const).filter((list) =>
        this.capabilities[list] !== undefined
      ).map((list) => this.#fetch(list)),
    );
  }

  request(
    method: string,
    params: Record<string, unknown> = {},
    options: ContextRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    if (this.#why !== undefined) {
      return Promise.reject(new ServerUnavailable(this.#unavailable()));
    }
    return this.#request(method, params, options);
  }

  /** Sends a request on the link as it is: the handshake's while the session starts. */
  #request(
    method: string,
    params: Record<string, unknown>,
    options: ContextRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    const { signal, onprogress, timeoutMs } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = ++this.#nextId;
    if (options.context !== undefined) this.#contexts.set(id, options.context);
    let sent = params;
    const token = `${PROGRESS_TOKEN_PREFIX}${id}`;
    if (onprogress !== undefined) {
      const meta = isRecord(params._meta) ? params._meta : {};
      sent = { ...params, _meta: { ...meta, progressToken: token } };
      this.#progress.set(token, onprogress);
    }
    const answer = this.#pending.expect(id);
    this.#send({ jsonrpc: "2.0", id, method, params: sent }).catch((error) =>
      this.#pending.settle(id, {
        jsonrpc: "2.0",
        id,
        error: {
          code: RPC_ERROR.INTERNAL_ERROR,
          message: `Cannot send ${method} to server ${
            JSON.stringify(this.name)
          }: ${messageOf(error)}`,
        },
      })
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onabort: (() => void) | undefined;
    let gaveUp: { reason: unknown } | undefined;
    const giveUp = (reason: unknown) => {
      // The answer is not awaited any more: its entry goes, a late one is dropped.
      if (!this.#pending.settle(id, GAVE_UP)) return;
      gaveUp = { reason };
      this.#notify("notifications/cancelled", {
        requestId: id,
        reason: messageOf(reason),
      });
    };
    if (signal !== undefined) {
      onabort = () => giveUp(signal.reason);
      signal.addEventListener("abort", onabort, { once: true });
    }
    if (timeoutMs !== undefined) {
      timer = setTimeout(
        () =>
          giveUp(
            new Error(`it did not answer ${method} within ${timeoutMs} ms`),
          ),
        timeoutMs,
      );
    }
    return answer.then((message) => {
      if (gaveUp !== undefined) throw gaveUp.reason;
      if ("error" in message) {
        throw new ProtocolError(message.error.code, message.error.message, {
          data: message.error.data,
        });
      }
      if (!("result" in message) || !isRecord(message.result)) {
        throw new ProtocolError(
          RPC_ERROR.INTERNAL_ERROR,
          `Server ${
            JSON.stringify(this.name)
          } answered ${method} with no result object`,
        );
      }
      return message.result;
    }, (error: Error) => {
      // Only the end of the session fails a wait.
      throw new ServerUnavailable(error.message);
    }).finally(() => {
      this.#contexts.delete(id);
      this.#progress.delete(token);
      clearTimeout(timer);
      if (onabort !== undefined) signal?.removeEventListener("abort", onabort);
    });
  }

  onListChanged(listener: (list: ListName) => void): () => void {
    if (typeof listener !== "function") {
      throw new TypeError(
        `Cannot listen for list changes: expected a function, got ${typeof listener}`,
      );
    }
    const entry = (list: ListName) => listener(list);
    this.#listeners.add(entry);
    return () => this.#listeners.delete(entry);
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #shutdown(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#restartTimer);
    this.#end("the connection was closed");
    // A start under way fails its handshake and stops its own link.
    this.#pending.failAll(this.#unavailable());
    this.#ended.resolve();
    await this.#stop(this.#link);
  }

  /** Closes `link` and stops its server: its stdin ends, then signals. */
  async #stop(link: ServerLink): Promise<void> {
    await link.transport.close().catch(() => {});
    const child = link.process;
    if (child === undefined) return;
    await child.closeStdin();
    // Its stdin has ended, which ends a stdio server; one that lingers is stopped.
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), EXIT_GRACE_MS);
      });
      const tooLate = await Promise.race([
        child.status.then(() => false),
        late,
      ]);
      clearTimeout(timer);
      if (!tooLate) return;
      child.kill(signal);
    }
    await child.status;
  }

  #unavailable(): string {
    return `Server ${JSON.stringify(this.name)} is not available: ${this.#why}`;
  }

  /** `link` ended: the session, or the start of one under way. */
  #linkEnded(link: ServerLink, why: string): void {
    if (link !== this.#link) return;
    if (this.#why === undefined) this.#end(why);
    // A start under way: its handshake fails, and the next is scheduled.
    else this.#pending.failAll(why);
  }

  /** The session is over: requests fail, the lists empty (and say so). */
  #end(why: string): void {
    if (this.#why !== undefined) return;
    this.#why = why;
    clearTimeout(this.#exitTimer);
    this.#pending.failAll(this.#unavailable());
    this.#progress.clear();
    const emptied: ListName[] = [];
    for (const list of ["tools", "prompts", "resources"] as const) {
      const keys = LIST_METHODS[list].map(([, key]) => key);
      if (keys.every((key) => this.#lists[key].length === 0)) continue;
      for (const key of keys) this.#lists[key] = [];
      emptied.push(list);
    }
    for (const list of emptied) this.#changed(list);
    if (this.#relink === undefined || this.#closed || !this.#opened) {
      this.#ended.resolve();
    } else this.#restartLater(why);
  }

  /** Schedules the next start of the server, after the backoff's wait. */
  #restartLater(why: string): void {
    const wait = this.#backoff.next();
    this.#why = `${why}; it is started again in ${formatWait(wait)}`;
    console.error(`Server ${JSON.stringify(this.name)} is down: ${this.#why}`);
    this.#restartTimer = setTimeout(() => this.#restart(why), wait);
  }

  /** A new session with the server: up again, or the next start scheduled. */
  async #restart(lastWhy: string): Promise<void> {
    await this.#stop(this.#link);
    if (this.#closed) return;
    let link: ServerLink;
    try {
      link = this.#relink!();
    } catch (error) {
      this.#restartLater(`${lastWhy}, and ${messageOf(error)}`);
      return;
    }
    this.#link = link;
    this.#starting = true;
    try {
      await this.#open(link);
    } catch (error) {
      if (this.#closed) return;
      this.#restartLater(`it could not be started again: ${messageOf(error)}`);
      return;
    } finally {
      this.#starting = false;
    }
    if (this.#closed) return;
    this.#why = undefined;
    this.#backoff.up();
    for (const list of ["tools", "prompts", "resources"] as const) {
      if (this.capabilities[list] !== undefined) this.#changed(list);
    }
  }

  #send(message: JsonRpcMessage): Promise<void> {
    return this.#link.transport.send(message);
  }

  #notify(method: string, params: Record<string, unknown>): void {
    if (this.#why !== undefined) return;
    this.#send({ jsonrpc: "2.0", method, params }).catch(() => {});
  }

  #receive(message: JsonRpcMessage, related: JsonRpcId | undefined): void {
    if (!("method" in message)) {
      if (typeof message.id === "number") {
        this.#pending.settle(message.id, message);
      }
      return;
    }
    if ("id" in message) {
      this.#answerServer(
        message.id,
        message.method,
        message.params ?? {},
        related === undefined ? undefined : this.#contexts.get(related),
      );
      return;
    }
    const { method, params } = message;
    const list = /^notifications\/(tools|prompts|resources)\/list_changed$/
      .exec(method)?.[1] as ListName | undefined;
    if (list !== undefined) {
      this.#refresh(list);
      return;
    }
    if (method === "notifications/progress") {
      const token = params?.progressToken;
      if (typeof token === "string") this.#progress.get(token)?.(params!);
    }
  }

  /**
   * Answers a request of the server: ping, and the methods of the
   * capabilities it declared, through the handler; nothing else.
   */
  async #answerServer(
    id: JsonRpcId,
    method: string,
    params: Record<string, unknown>,
    context: unknown,
  ): Promise<void> {
    const capability = CAPABILITY_OF.get(method);
    const handler = this.#serverRequests;
    let reply: JsonRpcMessage;
    if (method === "ping") {
      reply = { jsonrpc: "2.0", id, result: {} };
    } else if (
      capability === undefined || handler === undefined ||
      !Object.hasOwn(this.#capabilities, capability)
    ) {
      reply = {
        jsonrpc: "2.0",
        id,
        error: {
          code: RPC_ERROR.METHOD_NOT_FOUND,
          message: `Method not found: ${method}: this client answers ${
            [...METHOD_OF].filter(([c]) =>
              handler !== undefined && Object.hasOwn(this.#capabilities, c)
            ).map(([, m]) => m).concat("ping").join(", ")
          } only`,
        },
      };
    } else {
      try {
        reply = {
          jsonrpc: "2.0",
          id,
          result: await handler(method, params, context),
        };
      } catch (error) {
        reply = errorAnswer(id, error);
      }
    }
    // An ended session answers nothing; a new one answers during its handshake.
    if (this.#why !== undefined && !this.#starting) return;
    this.#send(reply).catch(() => {});
  }

  /** Fetches `list` again, once for any number of changes while it is fetched. */
  async #refresh(list: ListName): Promise<void> {
    const running = this.#refreshing.get(list);
    if (running !== undefined) {
      running.again = true;
      return;
    }
    const state = { again: true };
    this.#refreshing.set(list, state);
    try {
      while (state.again && this.#why === undefined) {
        state.again = false;
        try {
          await this.#fetch(list);
        } catch (error) {
          if (this.#why !== undefined) return;
          console.error(
            `Server ${
              JSON.stringify(this.name)
            }: cannot list its ${list} again: ${messageOf(error)}`,
          );
          return;
        }
        this.#changed(list);
      }
    } finally {
      this.#refreshing.delete(list);
    }
  }

  /** Reads every page of `list` (resources: with their templates). */
  async #fetch(list: ListName): Promise<void> {
    const read = await Promise.all(
      LIST_METHODS[list].map(async ([method, key]) => {
        const items: Record<string, unknown>[] = [];
        let cursor: unknown;
        for (let page = 0; page < MAX_PAGES; page++) {
          let result: Record<string, unknown>;
          try {
            result = await this.#request(
              method,
              cursor === undefined ? {} : { cursor },
              { timeoutMs: this.#timeoutMs },
            );
          } catch (error) {
            // A server with resources but no templates may not know the method.
            if (
              method === "resources/templates/list" &&
              error instanceof ProtocolError &&
              error.code === RPC_ERROR.METHOD_NOT_FOUND
            ) break;
            throw error;
          }
          const entries = result[key];
          if (Array.isArray(entries)) items.push(...entries.filter(isRecord));
          cursor = result.nextCursor;
          if (typeof cursor !== "string") break;
        }
        return [key, items] as const;
      }),
    );
    // An ended session keeps its lists empty; a new one being started fills them.
    if (this.#why !== undefined && !this.#starting) return;
    for (const [key, items] of read) this.#lists[key] = items;
  }

  #changed(list: ListName): void {
    for (const listener of this.#listeners) {
      try {
        listener(list);
      } catch (error) {
        // One listener's bug must not stop the others.
        console.error("A list-changed listener failed:", error);
      }
    }
  }
}

function exitReason(status: Deno.CommandStatus): string {
  return status.signal === null
    ? `it exited with code ${status.code}`
    : `it was stopped by ${status.signal}`;
}
