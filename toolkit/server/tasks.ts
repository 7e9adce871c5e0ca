/**
 * Tasks (MCP's `io.modelcontextprotocol/tasks` extension, SEP-2663): a long
 * tool call answered at once with a task id, then run in the background
 * while the client polls `tasks/get`, answers its input requests with
 * `tasks/update` and may stop it with `tasks/cancel`. A tool opts in with
 * `task` in its definition; where tasks are kept is a {@linkcode TaskStore}.
 *
 * @module
 */

import type { CallToolResult } from "../result/result.ts";

/**
 * How a tool runs as a task, for {@linkcode ToolDefinition.task}
 * (`task: true` is `{}`, `task: "required"` is `{ support: "required" }`).
 *
 * @example A report that runs as a task, kept for a day
 * ```ts
 * import { createServer, text } from "@forge/toolkit";
 * import type { TaskOptions } from "@forge/toolkit/server";
 *
 * const task: TaskOptions = { ttlMs: 86_400_000, pollIntervalMs: 2_000 };
 * createServer({ name: "reports", version: "1" }).tool({
 *   name: "report",
 *   description: "Builds the monthly report",
 *   task,
 *   handler: async (_args, ctx) => {
 *     await new Promise((resolve) => setTimeout(resolve, 10));
 *     return text(ctx.signal.aborted ? "stopped" : "report ready");
 *   },
 * });
 * ```
 */
export interface TaskOptions {
  /**
   * `"optional"`: a 2026-07-28 client that declared the tasks extension
   * gets a task, any other the plain answer. `"required"`: a 2026-07-28
   * client without it is refused with -32021 and nothing runs. A 2025-11-25
   * session is not offered tasks: its calls run to their end either way.
   *
   * @default {"optional"}
   */
  support?: "optional" | "required";
  /**
   * How long a task stays readable after its last change, in milliseconds;
   * `null` keeps it until the store drops it. Never shorter: a task is not
   * removed before `ttlMs` has passed since it last changed.
   *
   * @default {3600000}
   */
  ttlMs?: number | null;
  /**
   * How often the client is told to poll, in milliseconds; with a shared
   * `taskStore`, also how often the instance running the task re-reads it.
   *
   * @default {1000}
   */
  pollIntervalMs?: number;
  /**
   * `"start"`: the task starts with the call. `"manual"`: the handler runs
   * within the request (so its input requests are the request's own
   * round trips) until it calls `ctx.detach()`, and the rest of it runs as
   * the task; a handler that never calls it answers the call itself.
   *
   * @default {"start"}
   */
  detach?: "start" | "manual";
}

/**
 * A task as a {@linkcode TaskStore} keeps it: plain JSON, so a store may
 * write it anywhere. The server writes each change whole with `put`.
 *
 * @example What a finished task holds
 * ```ts
 * import type { StoredTask } from "@forge/toolkit/server";
 *
 * const task: StoredTask = {
 *   taskId: "0b5e…",
 *   status: "completed",
 *   createdAt: "2026-08-01T10:00:00.000Z",
 *   lastUpdatedAt: "2026-08-01T10:00:04.000Z",
 *   ttlMs: 3_600_000,
 *   pollIntervalMs: 1_000,
 *   expiresAt: Date.parse("2026-08-01T11:00:04.000Z"),
 *   toolName: "report",
 *   result: { content: [{ type: "text", text: "report ready" }] },
 * };
 * ```
 */
export interface StoredTask {
  /** The task's id: unguessable, minted by the server. */
  taskId: string;
  /** Where the task is; `completed`, `failed` and `cancelled` are final. */
  status: "working" | "input_required" | "completed" | "failed" | "cancelled";
  /** A sentence for people about the status, if any. */
  statusMessage?: string;
  /** When the task was created (ISO 8601). */
  createdAt: string;
  /** When it last changed (ISO 8601). */
  lastUpdatedAt: string;
  /** How long it stays readable after its last change; `null`: no limit. */
  ttlMs: number | null;
  /** How often the client should poll, in milliseconds. */
  pollIntervalMs: number;
  /** When a store may drop it, in milliseconds since the epoch; `null`: never. */
  expiresAt: number | null;
  /** The tool that runs it. */
  toolName: string;
  /** Whom it belongs to (the access token's subject or client), if the call was authenticated. */
  owner?: string;
  /** While `input_required`: the requests the client has not answered, by key. */
  inputRequests?: Record<
    string,
    { method: string; params: Record<string, unknown> }
  >;
  /** Answers `tasks/update` delivered for the instance running the task to pick up. */
  inputResponses?: Record<string, Record<string, unknown>>;
  /** When `completed`: the tool's result (`isError` for a tool error). */
  result?: CallToolResult;
  /** When `failed`: the JSON-RPC error that ended it. */
  error?: { code: number; message: string; data?: unknown };
}

/**
 * Where a server keeps its tasks. The default keeps them in memory; one
 * of your own (a database, Deno KV, Redis) lets a task outlive the process
 * and be read by every instance behind a load balancer. `get` of an expired
 * task may return it: the server checks `expiresAt` itself.
 *
 * @example A store over a Map, as a database-backed one would be written
 * ```ts
 * import { createServer } from "@forge/toolkit";
 * import type { StoredTask, TaskStore } from "@forge/toolkit/server";
 *
 * const rows = new Map<string, string>();
 * const store: TaskStore = {
 *   put: (task: StoredTask) => void rows.set(task.taskId, JSON.stringify(task)),
 *   get: (taskId: string) => {
 *     const row = rows.get(taskId);
 *     return row === undefined ? undefined : JSON.parse(row);
 *   },
 *   delete: (taskId: string) => void rows.delete(taskId),
 * };
 * createServer({ name: "s", version: "1" }, { taskStore: store });
 * ```
 */
export interface TaskStore {
  /** Creates or replaces a task; the server answers only after it settles. */
  put(task: StoredTask): void | Promise<void>;
  /** The task with this id, or `undefined`. */
  get(taskId: string): StoredTask | undefined | Promise<StoredTask | undefined>;
  /** Forgets a task (expired, or never to be read again). */
  delete(taskId: string): void | Promise<void>;
  /**
   * Optional, for a store shared by instances: the instance running a task
   * calls it once the task is stored, and the store calls `changed` each
   * time another instance writes that task (a cancel, an answer), until the
   * function it returns is called. Without it, that instance re-reads the
   * task every `pollIntervalMs`.
   */
  watch?(taskId: string, changed: () => void): () => void;
}
