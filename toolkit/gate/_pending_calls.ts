// Internal: the host's calls while the gate decides them. Each waits on the
// gate's own requests (a tool list, a probe, an elicitation); a host's
// cancellation, a shutdown or the server's exit stops the wait at once,
// tells the peer that was asked, and the call's decision ends with
// `Cancelled` instead of an answer.

import type { JsonRpcId, JsonRpcMessage } from "../jsonrpc/mod.ts";
import { RPC_ERROR } from "../jsonrpc/mod.ts";
import { messageOf } from "./_log.ts";
import type { Relay } from "./_relay.ts";

/** Why a decision stopped: its call was cancelled; the host is answered already, or never. */
export class Cancelled extends Error {}

/** One call being decided. */
export interface PendingCall {
  /** The host's id of the call. */
  readonly hostId: JsonRpcId;
  /** Whether it has been cancelled. */
  cancelled: boolean;
  /** The id of the probe (or tool list) it waits on, sent to the server. */
  probeId?: string;
  /** The id of the elicitation it waits on, sent to the host. */
  elicitId?: string;
  /** Rejects what it waits on now. */
  cancel?: (error: Error) => void;
  /** Resolves once its decision has ended, however it ended. */
  readonly done: Promise<void>;
}

const SHUTTING_DOWN = {
  code: RPC_ERROR.INTERNAL_ERROR,
  message: "The gate is shutting down",
};

/** The calls being decided, by the host's id. */
export class PendingCalls {
  #relay: Relay;
  #calls = new Map<JsonRpcId, PendingCall>();

  constructor(relay: Relay) {
    this.#relay = relay;
  }

  /**
   * Decides the host's call `hostId` with `decide`, tracked until it ends;
   * a failure other than {@linkcode Cancelled} is the host's answer.
   */
  run(hostId: JsonRpcId, decide: (call: PendingCall) => Promise<void>): void {
    let finish!: () => void;
    const call: PendingCall = {
      hostId,
      cancelled: false,
      done: new Promise((resolve) => finish = resolve),
    };
    this.#calls.set(hostId, call);
    decide(call)
      .catch((error) => {
        if (error instanceof Cancelled) return;
        this.#relay.answerHost(hostId, {
          error: { code: RPC_ERROR.INTERNAL_ERROR, message: messageOf(error) },
        });
      })
      .finally(() => {
        if (this.#calls.get(hostId) === call) this.#calls.delete(hostId);
        finish();
      });
  }

  /** The host cancelled `hostId`; `false` when it is not a call being decided. */
  cancelByHost(hostId: JsonRpcId, reason: unknown): boolean {
    const call = this.#calls.get(hostId);
    if (call === undefined) return false;
    this.#cancel(call, reason);
    return true;
  }

  /** Cancels the calls (those `which` picks) and answers each with a shutdown error. */
  refuse(
    reason: string,
    which: (call: PendingCall) => boolean = () => true,
  ): void {
    this.failAll(reason, SHUTTING_DOWN, which);
  }

  /** Cancels the calls (those `which` picks) and answers each with `error`. */
  failAll(
    reason: string,
    error: { code: number; message: string },
    which: (call: PendingCall) => boolean = () => true,
  ): void {
    for (const call of [...this.#calls.values()]) {
      if (!which(call)) continue;
      this.#cancel(call, reason);
      this.#relay.answerHost(call.hostId, { error });
    }
  }

  /** Resolves once every call being decided now has ended. */
  settled(): Promise<unknown> {
    return Promise.all([...this.#calls.values()].map((call) => call.done));
  }

  /** Sends `call`'s probe to the server: cancelling the call cancels it. */
  requestServer(
    call: PendingCall,
    method: string,
    params: Record<string, unknown>,
  ): Promise<JsonRpcMessage> {
    const { id, answer } = this.#relay.requestServer(method, params);
    call.probeId = id;
    const done = answer.finally(() => {
      if (call.probeId === id) call.probeId = undefined;
    });
    return this.withCancel(call, done);
  }

  /** Sends `call`'s question to the host: cancelling the call cancels it. */
  requestHost(
    call: PendingCall,
    method: string,
    params: Record<string, unknown>,
  ): Promise<JsonRpcMessage> {
    const { id, answer } = this.#relay.requestHost(method, params);
    call.elicitId = id;
    const done = answer.finally(() => {
      if (call.elicitId === id) call.elicitId = undefined;
    });
    return this.withCancel(call, done);
  }

  /** `work`, or a rejection with `Cancelled` as soon as the call is cancelled. */
  withCancel<T>(call: PendingCall, work: Promise<T>): Promise<T> {
    if (call.cancelled) return Promise.reject(new Cancelled("cancelled"));
    return new Promise<T>((resolve, reject) => {
      call.cancel = reject;
      work.then(resolve, reject).finally(() => {
        if (call.cancel === reject) call.cancel = undefined;
      });
    });
  }

  #cancel(call: PendingCall, reason: unknown): void {
    call.cancelled = true;
    this.#calls.delete(call.hostId);
    const why = typeof reason === "string"
      ? reason
      : "the host cancelled the call";
    if (call.probeId !== undefined) {
      this.#relay.toServer({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: call.probeId, reason: why },
      });
    }
    if (call.elicitId !== undefined) {
      this.#relay.toHost({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: call.elicitId, reason: why },
      });
    }
    call.cancel?.(new Cancelled(why));
  }
}
