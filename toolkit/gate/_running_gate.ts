// Internal: one running gate. It wires the relay (_relay.ts) to the
// decisions (_gatekeeper.ts) and runs the gate's life: a host EOF or
// close() stops the calls still being decided and the server, and the
// server's exit answers whatever is left and settles `finished`.

import { RPC_ERROR } from "../jsonrpc/mod.ts";
import { ApprovalRounds, type SharedRounds } from "./_approval_round.ts";
import type { AuditCaller, AuditSink } from "./audit/_audit.ts";
import { Gatekeeper } from "./_gatekeeper.ts";
import type { CallerApprovals } from "./_approval_routes.ts";
import { messageOf } from "./_log.ts";
import { PendingCalls } from "./_pending_calls.ts";
import type { Pins } from "./pins/_pins.ts";
import type { PolicySource } from "./policy/_policy_source.ts";
import { Relay } from "./_relay.ts";
import { ServerRoots } from "./_roots.ts";
import type { ServerProcess } from "./upstream/_server_process.ts";
import { serverExit, stopServer } from "./upstream/_shutdown.ts";
import type { GateTelemetry } from "./_telemetry.ts";
import type { MessageTransport } from "../jsonrpc/_message_channel.ts";
import { ToolList } from "./pins/_tool_list.ts";
import type { FlowSession } from "./policy/_flows.ts";
import type { FlowStore } from "./_flow_store.ts";
import type { RememberedStore } from "./_remembered_store.ts";
import { visibleTools } from "./policy/_visible.ts";

/** How long answers still in the server's pipe are awaited once it exited. */
const DRAIN_MS = 1000;
const SHUTTING_DOWN = "the gate is shutting down";

/** What a {@linkcode RunningGate} runs with, once started. */
export interface RunningGateOptions {
  /** The policy in force. */
  source: PolicySource;
  /** Where each decided call is recorded. */
  audit: AuditSink | undefined;
  /** The gate's own lines. */
  log: (line: string) => void;
  /** The tools' pins, when the gate keeps them. */
  pins?: Pins;
  /** How long the server, and calls still being decided, get to finish. */
  graceMs: number;
  /** How long a 2026-07-28 host may take to answer an approval question. */
  approvalTtlMs?: number;
  /**
   * The key and spent nonces of approval rounds that the gates of an HTTP
   * gate share (every instance's, with `--redis`), and the caller this
   * gate's rounds are for; a key of this gate's own when absent.
   */
  rounds?: SharedRounds;
  /** The host's messages; this process's stdin when absent. */
  readable?: ReadableStream<Uint8Array>;
  /** The host's answers; this process's stdout when absent. */
  writable?: WritableStream<Uint8Array>;
  /** The host as a connection of parsed messages, instead of the streams. */
  host?: MessageTransport;
  /** What each host request is traced with, when telemetry is on. */
  telemetry?: GateTelemetry;
  /** The session's flows, shared by the servers of an aggregate. */
  flows?: FlowSession;
  /** Where the caller's flow history lives instead, shared by gate instances (`--redis`). */
  flowStore?: FlowStore;
  /** Where remembered approvals live instead of memory, shared by gate instances (`--redis`). */
  rememberedStore?: RememberedStore;
  /**
   * Whether an approval may last (the host's "remember" answer); off for
   * a gate that many callers share.
   *
   * @default {true}
   */
  remember?: boolean;
  /** The server's name and prefix in an aggregate. */
  server?: { name: string; prefix: string };
  /** The approval page of a gate served over HTTP, for this gate's caller. */
  approvals?: CallerApprovals;
  /** Who calls, as each audit line names them (a gate made for a caller, `auth:`). */
  caller?: () => AuditCaller;
  /**
   * Whether the host's `tools/list` leaves out the tools its policy
   * refuses whatever the arguments (_visible.ts): on for a gate made for
   * a caller (`auth:`); their calls are still refused by the rule.
   *
   * @default {false}
   */
  hideNeverRun?: boolean;
  /**
   * Whether the gate's end closes the policy source, the audit and the
   * pins; an aggregate's servers share them and leave them open.
   *
   * @default {true}
   */
  closeShared?: boolean;
}

/**
 * A running gate between the host and the server `child`: what
 * `startGate()` returns as its `Gate` (checked there, structurally, so that
 * this module need not import gate.ts).
 */
export class RunningGate {
  readonly finished: Promise<number>;

  #child: ServerProcess;
  #source: PolicySource;
  #audit: AuditSink | undefined;
  #log: (line: string) => void;
  #graceMs: number;
  #relay: Relay;
  #pending: PendingCalls;
  #tools: ToolList;
  #gatekeeper: Gatekeeper;
  #roots: ServerRoots;
  #pins: Pins | undefined;
  #resolveFinished!: (code: number) => void;
  #closing: Promise<number> | undefined;
  // Aborted when close() comes during a shutdown that the host's EOF began:
  // the host is signalling now, and the waits are over.
  #hurry = new AbortController();
  // The host's initialize, given again to a server that replaces the first.
  #hostInit: Record<string, unknown> | undefined;
  // Servers replaced on purpose: their exit is not the gate's end.
  #retired = new WeakSet<ServerProcess>();
  #restarting: Promise<void> = Promise.resolve();
  #closeShared: boolean;
  #hideNeverRun: boolean;

  constructor(child: ServerProcess, options: RunningGateOptions) {
    this.#child = child;
    this.#source = options.source;
    this.#audit = options.audit;
    this.#log = options.log;
    this.#graceMs = options.graceMs;
    this.finished = new Promise((resolve) => this.#resolveFinished = resolve);
    this.#relay = new Relay(
      {
        server: child.transport,
        hostReadable: options.readable,
        hostWritable: options.writable,
        host: options.host,
      },
      options.log,
      { telemetry: options.telemetry },
    );
    this.#pending = new PendingCalls(this.#relay);
    this.#pins = options.pins;
    this.#tools = new ToolList(
      (method, params) => this.#relay.requestServer(method, params).answer,
      options.pins,
    );
    this.#gatekeeper = new Gatekeeper(this.#relay, this.#pending, {
      source: options.source,
      tools: this.#tools,
      audit: options.audit,
      log: options.log,
      rounds: new ApprovalRounds({
        ttlMs: options.approvalTtlMs,
        ...(options.rounds === undefined ? {} : {
          key: options.rounds.key,
          spent: options.rounds.spent,
          // A state counts for the caller and server it was asked for.
          bound: JSON.stringify([
            options.rounds.bound,
            options.server?.name ?? null,
          ]),
        }),
      }),
      pins: options.pins,
      flows: options.flows,
      flowStore: options.flowStore,
      rememberedStore: options.rememberedStore,
      server: options.server,
      caller: options.caller,
      remember: options.remember,
      approvals: options.approvals,
    });
    this.#closeShared = options.closeShared ?? true;
    this.#hideNeverRun = options.hideNeverRun ?? false;
    this.#roots = new ServerRoots(() => options.source.current().mapping.roots);
  }

  /** The (current) server's process id. */
  get pid(): number {
    return this.#child.pid;
  }

  /** Starts relaying both ways. */
  start(): void {
    this.#relay.start({
      call: (message) => {
        // Before the call is decided by roots the server has not been given.
        const changed = this.#roots.refresh();
        if (changed !== undefined) this.#relay.toServer(changed);
        this.#gatekeeper.call(message);
      },
      read: (message) => this.#gatekeeper.read(message),
      cancel: (requestId, reason) =>
        this.#pending.cancelByHost(requestId, reason),
      initialize: (params) => {
        this.#hostInit = params;
        this.#gatekeeper.hostInitialized(params);
      },
      forwarding: (method, params) => this.#roots.params(method, params),
      serverRequest: (method) => this.#roots.answer(method),
      rootsChanged: () => this.#roots.hostChanged(),
      toolsListed: (result) => {
        // The whole page is learned: a hidden tool's call is refused by its rule.
        const shown = this.#tools.learn(result);
        if (!this.#hideNeverRun) return shown;
        const visible = (page: Record<string, unknown>) =>
          Array.isArray(page.tools)
            ? {
              ...page,
              tools: visibleTools(this.#source.current(), page.tools),
            }
            : page;
        return shown === undefined
          ? Promise.resolve(visible(result))
          : shown.then(visible);
      },
      toolsChanged: () => this.#tools.clear(),
      hostEnded: () => {
        this.#shutdown("host").catch((error) => this.#log(messageOf(error)));
      },
    });
    this.#watchExit(this.#child);
  }

  #watchExit(child: ServerProcess): void {
    child.status.then((status) => {
      if (!this.#retired.has(child)) this.#serverExited(status);
    });
  }

  /**
   * Replaces the server with the one `spawn` starts, once the calls under
   * way have finished: the host's new requests wait meanwhile and go to
   * the new server, which is given the host's `initialize` again. The old
   * server stops as at the gate's end. Nothing happens once the gate is
   * closing; a server that cannot be started ends the gate, as a server
   * that died.
   */
  restartServer(spawn: () => Promise<ServerProcess>): Promise<void> {
    this.#restarting = this.#restarting.then(() => this.#restart(spawn))
      .catch((error) =>
        this.#log(`cannot restart the server: ${messageOf(error)}`)
      );
    return this.#restarting;
  }

  async #restart(spawn: () => Promise<ServerProcess>): Promise<void> {
    if (this.#closing !== undefined) return;
    this.#relay.hold();
    try {
      // Calls being decided may still forward theirs: then wait for those.
      await this.#pending.settled();
      await this.#relay.idle();
      if (this.#closing !== undefined) return;
      const old = this.#child;
      this.#retired.add(old);
      await this.#relay.flushed();
      await old.closeStdin();
      await stopServer(old, { graceMs: this.#graceMs, log: this.#log });
      old.dispose();
      let next: ServerProcess;
      try {
        next = await spawn();
      } catch (error) {
        this.#log(`cannot start the server again: ${messageOf(error)}`);
        this.#retired.delete(old);
        await this.#serverExited(await old.status);
        return;
      }
      this.#child = next;
      await this.#relay.replaceServer(next.transport);
      this.#watchExit(next);
      this.#tools.clear();
      if (this.#hostInit !== undefined) {
        const answer = await this.#relay.requestServer(
          "initialize",
          this.#hostInit,
        ).answer;
        if ("error" in answer) {
          this.#log(
            `the new server refused initialize: ${answer.error.message}`,
          );
        }
        this.#relay.toServer({
          jsonrpc: "2.0",
          method: "notifications/initialized",
        });
      }
    } finally {
      this.#relay.release();
    }
  }

  close(): Promise<number> {
    if (this.#closing !== undefined) {
      this.#pending.refuse(SHUTTING_DOWN);
      this.#hurry.abort();
    }
    return this.#shutdown("close");
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** The host went away (EOF) or `close()` was called. */
  #shutdown(why: "host" | "close"): Promise<number> {
    this.#closing ??= (async () => {
      this.#relay.beginClosing();
      // A call waiting on the user cannot be answered by a host that left
      // (or a gate that stops); calls waiting on a probe finish first, so a
      // host that writes its calls and closes stdin still gets answers.
      this.#pending.refuse(
        SHUTTING_DOWN,
        (call) => why === "close" || call.elicitId !== undefined,
      );
      // A probe the server never answers must not hold the shutdown: after
      // graceMs the calls still being decided are refused.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const hurry = this.#hurry.signal;
      const hurried = new Promise((resolve) =>
        hurry.addEventListener("abort", resolve, { once: true })
      );
      await Promise.race([
        this.#pending.settled(),
        new Promise((resolve) => timer = setTimeout(resolve, this.#graceMs)),
        hurried,
      ]);
      clearTimeout(timer);
      this.#pending.refuse(SHUTTING_DOWN);
      await this.#relay.flushed();
      await this.#child.closeStdin();
      await stopServer(this.#child, {
        graceMs: this.#graceMs,
        log: this.#log,
        hurry,
      });
      return await this.finished;
    })();
    return this.#closing;
  }

  async #serverExited(status: Deno.CommandStatus): Promise<void> {
    // Answers still in the pipe are passed on before anyone is told.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.#relay.serverEnded,
      new Promise((resolve) => timer = setTimeout(resolve, DRAIN_MS)),
    ]);
    clearTimeout(timer);
    // Whatever the server left in its process group goes with it.
    this.#child.dispose();
    const exit = serverExit(status, this.#relay.markDone());
    if (exit.logLine !== undefined) this.#log(exit.logLine);
    const error = { code: RPC_ERROR.CONNECTION_CLOSED, message: exit.reason };
    this.#relay.failForwarded(error);
    this.#pending.failAll(exit.reason, error);
    this.#relay.failOwn(exit.reason);
    await this.#relay.close();
    if (this.#closeShared) {
      await this.#source.close().catch(() => {});
      await this.#pins?.close();
      await this.#audit?.close();
    }
    this.#resolveFinished(exit.code);
  }
}
