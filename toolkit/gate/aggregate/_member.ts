// Internal: one server of a gate of many. Each runs behind a gate of its
// own (a RunningGate, with its policy view, pins and fence) whose host side
// is an in-process message channel to the aggregate. A member that cannot
// start, dies or does not answer its initialize goes down alone: the
// aggregate is told, its requests fail, and it is started again after a
// delay that doubles with each failure (_util/backoff.ts, as the client's
// restarting connections do) and starts over once it has stayed up. A member that is up is pinged (the MCP ping
// utility): one that hangs once up (deadlocked, stopped) answers no ping
// and goes down as if it had exited.

import type { JsonRpcId, JsonRpcMessage } from "../../jsonrpc/mod.ts";
import {
  messageChannel,
  type MessageTransport,
} from "../../jsonrpc/_message_channel.ts";
import { messageOf } from "../_log.ts";
import { unrefTimer } from "../../_util/runtime.ts";
import { Backoff, formatWait } from "../../_util/backoff.ts";

/** A gate in front of one server, as a member needs it. */
export interface MemberGate {
  /** Resolves with the exit status once the gate has ended. */
  readonly finished: Promise<number>;
  /** Stops the gate and its server. */
  close(): Promise<number>;
}

/** What a {@linkcode Member} runs with. */
export interface MemberOptions {
  /** Starts the member's gate, its host side `host`. */
  start(host: MessageTransport): Promise<MemberGate>;
  /** The host's `initialize` params once it has sent them (given again to a restarted server). */
  hostInit(): Record<string, unknown> | undefined;
  /** The gate's own lines. */
  log(line: string): void;
  /** How long a server may take to answer `initialize`. */
  startTimeoutMs: number;
  /** How long to wait after an answered ping before the next one; 0: never ping. */
  pingIntervalMs: number;
  /** How long a server may take to answer a ping before it counts as hung. */
  pingTimeoutMs: number;
  /** A request of the server's (or its gate's) for the host. */
  request(member: Member, message: ServerRequest): void;
  /** A notification of the server's for the host. */
  notification(member: Member, message: ServerNotification): void;
  /** The member went down (`why`) or came up. */
  changed(member: Member, why?: string): void;
}

/** A request from a member's side. */
export type ServerRequest = Extract<
  JsonRpcMessage,
  { method: string; id: JsonRpcId }
>;
/** A notification from a member's side. */
export type ServerNotification = Exclude<
  Extract<JsonRpcMessage, { method: string }>,
  { id: JsonRpcId }
>;

/** Where a member is. */
export type MemberState = "starting" | "up" | "down" | "closed";

/** A request to a member whose server went down or never answered. */
export class MemberDown extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MemberDown";
  }
}

/** A request the host cancelled: it gets no answer. */
export class RequestCancelled extends Error {
  constructor() {
    super("The request was cancelled");
    this.name = "RequestCancelled";
  }
}

/** One server behind the aggregate. */
export class Member {
  readonly name: string;
  readonly prefix: string;
  /** The server's names and URIs in its last lists, for routing. */
  readonly listed: {
    tools?: ReadonlySet<string>;
    prompts?: ReadonlySet<string>;
    resources?: ReadonlySet<string>;
    templates?: readonly string[];
  } = {};

  #options: MemberOptions;
  #state: MemberState = "starting";
  #why = "it is starting";
  #end: MessageTransport | undefined;
  #gate: MemberGate | undefined;
  #next = 0;
  #waiting = new Map<
    number,
    { resolve: (m: JsonRpcMessage) => void; reject: (e: Error) => void }
  >();
  #backoff = new Backoff();
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The wait for the next ping, or for the answer to the last one. */
  #pingTimer: ReturnType<typeof setTimeout> | undefined;
  #ready = Promise.withResolvers<void>();

  constructor(
    name: string,
    prefix: string,
    options: MemberOptions,
  ) {
    this.name = name;
    this.prefix = prefix;
    this.#options = options;
  }

  /** Where the member is. */
  get state(): MemberState {
    return this.#state;
  }

  /** Why the member is not up: `it exited with code 1`. */
  get why(): string {
    return this.#why;
  }

  /** Resolves once the first start has succeeded or failed. */
  get ready(): Promise<void> {
    return this.#ready.promise;
  }

  /** Starts the server's gate; a failure takes the member down and schedules a new start. */
  async start(): Promise<void> {
    if (this.#state === "closed") return;
    this.#state = "starting";
    const [ours, theirs] = messageChannel();
    this.#end = ours;
    ours.onmessage = (message) => this.#fromServer(message);
    await ours.start();
    let gate: MemberGate;
    try {
      gate = await this.#options.start(theirs);
    } catch (error) {
      this.#down(`it could not be started: ${messageOf(error)}`);
      return;
    }
    // Closed while it started.
    if ((this.#state as MemberState) === "closed") {
      await gate.close();
      return;
    }
    this.#gate = gate;
    gate.finished.then((code) => {
      if (this.#gate !== gate || this.#state === "closed") return;
      this.#down(
        code === 0
          ? "its server stopped"
          : `its server exited with code ${code}`,
      );
    });
    const init = this.#options.hostInit();
    if (init !== undefined) {
      // A server that comes back is given the host's initialize again.
      try {
        const answer = await this.request("initialize", init, {
          timeoutMs: this.#options.startTimeoutMs,
          starting: true,
        });
        if ("error" in answer) {
          throw new Error(`it refused initialize: ${answer.error.message}`);
        }
        this.notify({ jsonrpc: "2.0", method: "notifications/initialized" });
      } catch (error) {
        if (this.#gate === gate && this.#state === "starting") {
          this.#down(messageOf(error));
          await gate.close();
        }
        return;
      }
    }
    if (this.#state !== "starting" || this.#gate !== gate) return;
    this.#state = "up";
    this.#backoff.up();
    this.#why = "";
    this.#ready.resolve();
    this.#schedulePing(gate);
    this.#options.changed(this);
  }

  /**
   * Sends a request; resolves with its answer. Rejects with
   * {@linkcode MemberDown} when the member is not up or goes down first, or
   * does not answer within `timeoutMs`.
   */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: {
      timeoutMs?: number;
      starting?: boolean;
      sent?: (id: number) => void;
    } = {},
  ): Promise<JsonRpcMessage> {
    const usable = this.#state === "up" ||
      (options.starting === true && this.#state === "starting");
    if (!usable || this.#end === undefined) {
      return Promise.reject(new MemberDown(this.downMessage()));
    }
    const id = ++this.#next;
    const answer = new Promise<JsonRpcMessage>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
    });
    options.sent?.(id);
    this.#end.send({
      jsonrpc: "2.0",
      id,
      method,
      ...(params === undefined ? {} : { params }),
    }).catch(() => {});
    if (options.timeoutMs === undefined) return answer;
    let timer: ReturnType<typeof setTimeout>;
    return Promise.race([
      answer,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          this.#waiting.delete(id);
          reject(
            new MemberDown(
              `it did not answer ${method} within ${options.timeoutMs} ms`,
            ),
          );
        }, options.timeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));
  }

  /** Cancels the request sent as `id`: its answer is not awaited any more. */
  cancel(id: number, reason: unknown): void {
    const waiting = this.#waiting.get(id);
    if (waiting === undefined) return;
    this.#waiting.delete(id);
    waiting.reject(new RequestCancelled());
    this.notify({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: id, ...(reason === undefined ? {} : { reason }) },
    });
  }

  /** Sends a notification, when the member is up or starting. */
  notify(message: JsonRpcMessage): void {
    if (this.#state === "down" || this.#state === "closed") return;
    this.#end?.send(message).catch(() => {});
  }

  /** Answers a request the member's side sent (`id` as it sent it). */
  answer(id: JsonRpcId, reply: JsonRpcMessage): void {
    this.#end?.send({ ...reply, id } as JsonRpcMessage).catch(() => {});
  }

  /** What a call to the member's tools is told while it is not up. */
  downMessage(): string {
    return `Server "${this.name}" is not available: ${this.#why}`;
  }

  /**
   * Takes an up (or starting) member down for `why` (it hangs, or refused
   * the host's initialize): its gate is closed and it is started again
   * later, as after an exit.
   */
  fail(why: string): void {
    if (this.#state !== "up" && this.#state !== "starting") return;
    const gate = this.#gate;
    this.#down(why);
    gate?.close().catch((error) =>
      this.#options.log(
        `server "${this.name}": cannot stop it: ${messageOf(error)}`,
      )
    );
  }

  /** Stops the member for good. */
  async close(): Promise<void> {
    if (this.#state === "closed") return;
    this.#state = "closed";
    this.#why = "the gate is shutting down";
    clearTimeout(this.#timer);
    clearTimeout(this.#pingTimer);
    this.#failWaiting();
    this.#ready.resolve();
    await this.#gate?.close();
  }

  #fromServer(message: JsonRpcMessage): void {
    if (!("method" in message)) {
      if (typeof message.id !== "number") return;
      const waiting = this.#waiting.get(message.id);
      if (waiting === undefined) return;
      this.#waiting.delete(message.id);
      waiting.resolve(message);
      return;
    }
    if ("id" in message) this.#options.request(this, message);
    else this.#options.notification(this, message);
  }

  #down(why: string): void {
    if (this.#state === "closed") return;
    this.#state = "down";
    this.#why = why;
    this.#gate = undefined;
    this.#end = undefined;
    clearTimeout(this.#pingTimer);
    this.#failWaiting();
    this.#ready.resolve();
    const delay = this.#backoff.next();
    this.#why = `${why}; the gate starts it again in ${formatWait(delay)}`;
    this.#options.log(`server "${this.name}" is down: ${this.#why}`);
    this.#options.changed(this, this.#why);
    this.#timer = setTimeout(() => {
      this.start().catch((error) =>
        this.#options.log(
          `server "${this.name}": cannot start it again: ${messageOf(error)}`,
        )
      );
    }, delay);
  }

  /**
   * Pings the member `gate` stands for after the interval, and again after
   * each answer (a result or an error: either says it reads its input); no
   * answer within the timeout takes it down. Pings do not overlap, and the
   * timers keep no process alive.
   */
  #schedulePing(gate: MemberGate): void {
    const { pingIntervalMs, pingTimeoutMs } = this.#options;
    if (pingIntervalMs <= 0) return;
    const current = () => this.#gate === gate && this.#state === "up";
    this.#pingTimer = setTimeout(() => {
      if (!current()) return;
      this.#pingTimer = setTimeout(() => {
        if (current()) {
          this.fail(
            `it did not answer a ping within ${formatWait(pingTimeoutMs)}`,
          );
        }
      }, pingTimeoutMs);
      unrefTimer(this.#pingTimer);
      this.request("ping", undefined).then(() => {
        if (!current()) return;
        clearTimeout(this.#pingTimer);
        this.#schedulePing(gate);
      }, () => {
        // Down before it answered: #down cleared the timer.
      });
    }, pingIntervalMs);
    unrefTimer(this.#pingTimer);
  }

  #failWaiting(): void {
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const { reject } of waiting) {
      reject(new MemberDown(this.downMessage()));
    }
  }
}
