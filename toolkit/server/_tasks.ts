// Internal: the running tasks of one server (SEP-2663), and tasks/get,
// tasks/update and tasks/cancel. A task's record (`_task_records.ts`) lives
// in its TaskStore, so any instance sharing the store answers tasks/get; the
// handler runs on the instance that created it, detached from the request
// that started it, which keeps its abort and its unanswered input requests
// here. Every change of one task goes through one queue, so a result that
// arrives as the client cancels cannot overwrite the cancellation: a final
// status is final.

import type { LazyAbort } from "../_util/abort.ts";
import { jsonType } from "../_util/json_type.ts";
import { ProtocolError, RPC_ERROR } from "../jsonrpc/errors.ts";
import type { CallToolResult } from "../result/result.ts";
import type { RequestExtra } from "./_session_types.ts";
import {
  asInputRequest,
  clientCapabilityOf,
  undeclared,
} from "./_client_requests.ts";
import type { TaskMode } from "./_task_checks.ts";
import {
  createResult,
  detailed,
  FINAL_STATUSES,
  MemoryTaskStore,
  settleInputs,
} from "./_task_records.ts";
import type { StoredTask, TaskStore } from "./tasks.ts";
import {
  sharesMemoryBetweenRequests,
  withResolvers,
} from "../_util/runtime.ts";

/** Why a cancelled task's signal aborted: not a ProtocolError, so the call pipeline reports nothing. */
export class TaskCancelled extends Error {
  constructor(taskId: string) {
    super(`Task ${taskId} was cancelled by the client`);
    this.name = "TaskCancelled";
  }
}

interface Waiting {
  request: { method: string; params: Record<string, unknown> };
  resolve: (answer: Record<string, unknown>) => void;
  reject: (reason: unknown) => void;
}

/** A task whose handler runs here. */
interface LocalRun {
  abort: LazyAbort;
  mode: TaskMode;
  capabilities: Record<string, unknown>;
  waiting: Map<string, Waiting>;
  asked: number;
  /** The latest progress not yet written as the status message. */
  progress: string | undefined;
  /** The write of `progress` under way: one at a time, the latest wins. */
  progressWrite: Promise<void> | undefined;
  /** Stops hearing of a cancel or answers another instance writes. */
  unwatch: (() => void) | undefined;
}

/** What a new task needs to know about the call that starts it. */
export interface TaskStart {
  toolName: string;
  mode: TaskMode;
  owner: string | undefined;
  abort: LazyAbort;
  /** The client's capabilities when the call came, for its input requests. */
  capabilities: Record<string, unknown>;
}

/** The tasks of one server. */
export class TaskManager {
  readonly #store: TaskStore;
  /** Whether other instances may share the store (then running tasks re-read it). */
  readonly #shared: boolean;
  #local = new Map<string, LocalRun>();
  #queues = new Map<string, Promise<unknown>>();
  /** Told every change this instance makes, as a status notification's params. */
  readonly #broadcast: (params: Record<string, unknown>) => void;

  constructor(
    store: TaskStore | undefined,
    broadcast: (params: Record<string, unknown>) => void = () => {},
  ) {
    this.#shared = store !== undefined;
    this.#store = store ?? new MemoryTaskStore();
    this.#broadcast = broadcast;
  }

  /** How many tasks run here. */
  get running(): number {
    return this.#local.size;
  }

  /** Creates a task and resolves once the store holds it, with its CreateTaskResult. */
  async create(start: TaskStart): Promise<Record<string, unknown>> {
    if (!sharesMemoryBetweenRequests()) {
      // The handler would be cancelled with the request that answered the
      // task, and polls would be lost: a clear refusal, not a task that
      // never ends.
      throw new Error(
        "tasks run on after the call's response, which Cloudflare Workers cancel (and no memory is shared between their requests): serve task tools from Deno, Node or Bun, or call the tool without a task",
      );
    }
    const now = new Date();
    const { mode } = start;
    const task: StoredTask = {
      taskId: crypto.randomUUID(),
      status: "working",
      createdAt: now.toISOString(),
      lastUpdatedAt: now.toISOString(),
      ttlMs: mode.ttlMs,
      pollIntervalMs: mode.pollIntervalMs,
      expiresAt: mode.ttlMs === null ? null : now.getTime() + mode.ttlMs,
      toolName: start.toolName,
      ...(start.owner === undefined ? {} : { owner: start.owner }),
    };
    const run: LocalRun = {
      abort: start.abort,
      mode,
      capabilities: structuredClone(start.capabilities),
      waiting: new Map(),
      asked: 0,
      progress: undefined,
      progressWrite: undefined,
      unwatch: undefined,
    };
    this.#local.set(task.taskId, run);
    try {
      await this.#store.put(task);
    } catch (cause) {
      this.#local.delete(task.taskId);
      throw cause;
    }
    if (this.#shared) run.unwatch = this.#watchStore(task.taskId, mode);
    return createResult(task);
  }

  /** The `RequestExtra` a detached handler gets: its input requests become the task's. */
  extra(taskId: string, base: RequestExtra): RequestExtra {
    const run = this.#local.get(taskId);
    if (run === undefined) throw new Error(`Task ${taskId} does not run here`);
    return {
      get signal() {
        return run.abort.signal;
      },
      onabort: (listener) => run.abort.onabort(listener),
      requestId: base.requestId,
      sessionId: base.sessionId,
      authInfo: base.authInfo,
      // The request is answered, so its progress token and log stream are
      // gone: progress becomes the task's status message, logs reach stderr only.
      sendNotification: (notification) =>
        notification.method === "notifications/progress"
          ? this.#progress(taskId, run, notification.params ?? {})
          : Promise.resolve(),
      sendRequest: (request) => this.#ask(taskId, run, request),
    };
  }

  /** Records a handler's result; nothing if the task already ended (cancelled). */
  complete(taskId: string, result: CallToolResult): Promise<void> {
    return this.#end(taskId, (task) => {
      task.status = "completed";
      task.result = result;
    });
  }

  /** Records why a handler failed: a ProtocolError's code, else -32603. */
  fail(taskId: string, cause: unknown): Promise<void> {
    return this.#end(taskId, (task) => {
      task.status = "failed";
      task.error = cause instanceof ProtocolError
        ? {
          code: cause.code,
          message: cause.message,
          ...(cause.data === undefined ? {} : { data: cause.data }),
        }
        : {
          code: RPC_ERROR.INTERNAL_ERROR,
          message: cause instanceof Error ? cause.message : String(cause),
        };
    });
  }

  /** `tasks/get`: the task as the client sees it. */
  async get(
    taskId: string,
    owner: string | undefined,
  ): Promise<Record<string, unknown>> {
    return {
      resultType: "complete",
      ...detailed(await this.#load(taskId, owner, "get")),
    };
  }

  /** `tasks/update`: answers to the task's input requests; unknown keys are ignored. */
  async update(
    taskId: string,
    responses: Record<string, Record<string, unknown>>,
    owner: string | undefined,
  ): Promise<void> {
    await this.#load(taskId, owner, "update");
    const run = this.#local.get(taskId);
    await this.#change(taskId, (task) => {
      if (task.status !== "input_required") return false;
      const pending = task.inputRequests ?? {};
      const answered = Object.keys(responses).filter((key) =>
        Object.hasOwn(pending, key)
      );
      if (answered.length === 0) return false;
      for (const key of answered) delete pending[key];
      if (run === undefined) {
        // Another instance runs it: the answers wait in the record for it.
        task.inputResponses = {
          ...task.inputResponses,
          ...Object.fromEntries(answered.map((key) => [key, responses[key]])),
        };
      }
      settleInputs(task, pending);
      return true;
    });
    if (run !== undefined) deliver(run, responses);
  }

  /** `tasks/cancel`: a running task becomes `cancelled` and its handler's signal aborts. */
  async cancel(taskId: string, owner: string | undefined): Promise<void> {
    await this.#load(taskId, owner, "cancel");
    const cancelled = await this.#change(taskId, (task) => {
      if (FINAL_STATUSES.has(task.status)) return false;
      task.status = "cancelled";
      task.statusMessage = "Cancelled by the client";
      delete task.inputRequests;
      delete task.inputResponses;
      return true;
    });
    if (cancelled) this.#stop(taskId, new TaskCancelled(taskId));
  }

  /** A task, or -32602 when it is unknown, expired or someone else's. */
  async #load(
    taskId: unknown,
    owner: string | undefined,
    method: string,
  ): Promise<StoredTask> {
    if (typeof taskId !== "string") {
      throw new ProtocolError(
        RPC_ERROR.INVALID_PARAMS,
        `Invalid params for tasks/${method}: taskId: expected string, got ${
          taskId === undefined ? "nothing" : jsonType(taskId)
        }`,
      );
    }
    const task = await this.#store.get(taskId);
    // Someone else's task answers as an unknown one: its id says nothing.
    if (task === undefined || task.owner !== owner || this.#expired(task)) {
      throw new ProtocolError(
        RPC_ERROR.INVALID_PARAMS,
        `Invalid params for tasks/${method}: unknown task ${
          JSON.stringify(taskId)
        } (never created, expired, or not yours)`,
      );
    }
    return task;
  }

  /** Expired: past `expiresAt`, unless its handler still runs here. */
  #expired(task: StoredTask): boolean {
    if (task.expiresAt === null || task.expiresAt > Date.now()) return false;
    if (this.#local.has(task.taskId)) return false;
    // Forgetting it is the store's housekeeping: a failure must not fail the read.
    try {
      Promise.resolve(this.#store.delete(task.taskId)).catch(() => {});
    } catch {
      // A store whose delete throws keeps the task; it stays expired.
    }
    return true;
  }

  /**
   * Applies `mutate` to the stored task, in this task's queue; resolves
   * whether it changed (`mutate` returns false to leave it).
   */
  #change(
    taskId: string,
    mutate: (task: StoredTask) => boolean | void,
  ): Promise<boolean> {
    const previous = this.#queues.get(taskId) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(async () => {
      const task = await this.#store.get(taskId);
      if (task === undefined || mutate(task) === false) return false;
      const now = Date.now();
      task.lastUpdatedAt = new Date(now).toISOString();
      task.expiresAt = task.ttlMs === null ? null : now + task.ttlMs;
      await this.#store.put(task);
      // A 2026-07-28 client hears a change on the listen streams that name
      // the task: there is no session to tell.
      this.#broadcast(detailed(task));
      return true;
    });
    this.#queues.set(taskId, next);
    next.finally(() => {
      if (this.#queues.get(taskId) === next) this.#queues.delete(taskId);
    }).catch(() => {});
    return next;
  }

  async #end(
    taskId: string,
    finish: (task: StoredTask) => void,
  ): Promise<void> {
    const run = this.#local.get(taskId);
    try {
      await this.#change(taskId, (task) => {
        if (FINAL_STATUSES.has(task.status)) return false;
        delete task.inputRequests;
        delete task.inputResponses;
        delete task.statusMessage;
        finish(task);
        return true;
      });
    } finally {
      if (run !== undefined) this.#forget(taskId, run);
    }
  }

  /** Aborts a running task's handler and whatever it waits for. */
  #stop(taskId: string, reason: unknown): void {
    const run = this.#local.get(taskId);
    if (run === undefined) return;
    for (const waiting of run.waiting.values()) waiting.reject(reason);
    run.waiting.clear();
    run.abort.abort(reason);
  }

  /** A store that can say when another instance wrote the task spares re-reading it. */
  #watchStore(taskId: string, mode: TaskMode): () => void {
    const changed = () => void this.#watch(taskId);
    if (typeof this.#store.watch === "function") {
      return this.#store.watch(taskId, changed);
    }
    const timer = setInterval(changed, mode.pollIntervalMs);
    return () => clearInterval(timer);
  }

  #forget(taskId: string, run: LocalRun): void {
    run.unwatch?.();
    for (const waiting of run.waiting.values()) {
      waiting.reject(new Error(`Task ${taskId} has ended`));
    }
    if (this.#local.get(taskId) === run) this.#local.delete(taskId);
  }

  /**
   * A detached handler's progress, as the task's `statusMessage`. A handler
   * may report far faster than a store writes, so only the latest report
   * waiting is written; each call resolves once a write at least as new as
   * its report is done. A store that fails here fails the task's end too,
   * where it is reported; progress itself never fails the handler.
   */
  #progress(
    taskId: string,
    run: LocalRun,
    params: Record<string, unknown>,
  ): Promise<void> {
    run.progress = progressText(params);
    run.progressWrite ??= (async () => {
      try {
        while (run.progress !== undefined) {
          const text = run.progress;
          run.progress = undefined;
          await this.#change(taskId, (task) => {
            if (
              FINAL_STATUSES.has(task.status) || task.statusMessage === text
            ) {
              return false;
            }
            task.statusMessage = text;
          }).catch(() => {});
        }
      } finally {
        run.progressWrite = undefined;
      }
    })();
    return run.progressWrite;
  }

  /** A detached handler's request to the client: the task waits for it in input_required. */
  #ask(
    taskId: string,
    run: LocalRun,
    request: { method: string; params: Record<string, unknown> },
  ): Promise<Record<string, unknown>> {
    if (run.abort.aborted) return Promise.reject(run.abort.reason);
    const capability = clientCapabilityOf(request.method);
    if (
      capability !== undefined && run.capabilities[capability] === undefined
    ) {
      return Promise.reject(
        new Error(
          `Cannot send ${request.method}: ${
            undeclared("request", `the ${capability} capability`)
          }`,
        ),
      );
    }
    const { named, asked } = asInputRequest(request);
    const kind = capability ?? request.method.replace(/\W/g, "_");
    const key = typeof named === "string" && !run.waiting.has(named)
      ? named
      : `${kind}-${++run.asked}`;
    const answer = withResolvers<Record<string, unknown>>();
    run.waiting.set(key, { request: asked, ...answer });
    this.#change(taskId, (task) => {
      if (FINAL_STATUSES.has(task.status) || !run.waiting.has(key)) {
        return false;
      }
      task.status = "input_required";
      task.inputRequests = { ...task.inputRequests, [key]: asked };
      return true;
    }).catch((cause) => answer.reject(cause));
    return answer.promise;
  }

  /** For a shared store: a cancel or answers written by another instance. */
  async #watch(taskId: string): Promise<void> {
    const run = this.#local.get(taskId);
    if (run === undefined) return;
    let task: StoredTask | undefined;
    try {
      task = await this.#store.get(taskId);
    } catch {
      return; // The store is unreachable for now: look again next time.
    }
    if (task?.status === "cancelled") {
      this.#stop(taskId, new TaskCancelled(taskId));
      return;
    }
    const responses = task?.inputResponses;
    if (responses === undefined) return;
    await this.#change(taskId, (stored) => {
      delete stored.inputResponses;
    });
    deliver(run, responses);
  }
}

/** A progress notification's params as a status message: `Copying (3/10)`. */
function progressText(params: Record<string, unknown>): string {
  const { progress, total, message } = params;
  const count = total === undefined ? `${progress}` : `${progress}/${total}`;
  return typeof message === "string" && message !== ""
    ? `${message} (${count})`
    : `Progress: ${count}`;
}

/** Resolves the input requests that `responses` answer. */
function deliver(
  run: LocalRun,
  responses: Record<string, Record<string, unknown>>,
): void {
  for (const [key, answer] of Object.entries(responses)) {
    const waiting = run.waiting.get(key);
    if (waiting === undefined) continue;
    run.waiting.delete(key);
    waiting.resolve(answer);
  }
}
