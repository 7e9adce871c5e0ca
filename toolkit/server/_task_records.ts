// Internal: a task's record as a TaskStore keeps it, and as clients see it.
// The default store (this process's memory), the statuses that end a task,
// and the views: the CreateTaskResult that answers the call, and the task
// with what its status carries, for tasks/get and status notifications.

import type { StoredTask, TaskStore } from "./tasks.ts";

/** The statuses a task never leaves. */
export const FINAL_STATUSES: ReadonlySet<string> = new Set([
  "completed",
  "failed",
  "cancelled",
]);

/** The default store: this process's memory, expired tasks swept now and then. */
export class MemoryTaskStore implements TaskStore {
  #tasks = new Map<string, StoredTask>();
  #sweptAt = Date.now();

  put(task: StoredTask): void {
    this.#tasks.set(task.taskId, structuredClone(task));
    const now = Date.now();
    if (now - this.#sweptAt < 60_000) return;
    this.#sweptAt = now;
    for (const [id, kept] of this.#tasks) {
      if (
        FINAL_STATUSES.has(kept.status) && kept.expiresAt !== null &&
        kept.expiresAt <= now
      ) {
        this.#tasks.delete(id);
      }
    }
  }

  get(taskId: string): StoredTask | undefined {
    const task = this.#tasks.get(taskId);
    return task === undefined ? undefined : structuredClone(task);
  }

  delete(taskId: string): void {
    this.#tasks.delete(taskId);
  }
}

/** Back to `working` once every input request is answered. */
export function settleInputs(
  task: StoredTask,
  pending: Record<string, { method: string; params: Record<string, unknown> }>,
): void {
  if (Object.keys(pending).length > 0) {
    task.inputRequests = pending;
    return;
  }
  delete task.inputRequests;
  task.status = "working";
}

/** The fields every view of a task has. */
function base(task: StoredTask): Record<string, unknown> {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined
      ? {}
      : { statusMessage: task.statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
  };
}

/** The answer to the `tools/call` that created a task: flat, no result yet. */
export function createResult(task: StoredTask): Record<string, unknown> {
  return { resultType: "task", ...base(task) };
}

/** A status notification's params, and `tasks/get`'s answer: the task with what its status carries. */
export function detailed(task: StoredTask): Record<string, unknown> {
  const view = base(task);
  if (task.status === "input_required") {
    view.inputRequests = task.inputRequests ?? {};
  }
  if (task.status === "completed") view.result = task.result;
  if (task.status === "failed") view.error = task.error;
  return view;
}
