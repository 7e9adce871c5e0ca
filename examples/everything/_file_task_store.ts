/**
 * A {@linkcode TaskStore} over a directory, one JSON file per task, so that
 * everything-server processes on one machine (or sharing a volume) can read
 * each other's tasks: the example of a shared store that the scale-out test
 * runs behind its round-robin proxy. A database or Deno KV plays this part
 * in a real deployment.
 *
 * @module
 */

import type { StoredTask, TaskStore } from "@forge/toolkit/server";

// Task ids are minted by the server, but `get` is asked with whatever id a
// client sent: anything else could name a file outside the directory.
const TASK_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Keeps tasks as `<dir>/<taskId>.json`. Each `put` writes a temporary file
 * and renames it over the old one, so a reader in another process sees a
 * whole task or the previous one, never half of one.
 *
 * @example
 * ```ts ignore
 * const server = createServer(info, { taskStore: fileTaskStore("/var/lib/tasks") });
 * ```
 */
export function fileTaskStore(dir: string): TaskStore {
  if (typeof dir !== "string" || dir === "") {
    throw new TypeError(
      `Cannot create task store: expected a directory path, got ${
        JSON.stringify(dir)
      }`,
    );
  }
  Deno.mkdirSync(dir, { recursive: true });
  const file = (taskId: string) => `${dir}/${taskId}.json`;
  return {
    async put(task: StoredTask): Promise<void> {
      if (!TASK_ID.test(task.taskId)) {
        throw new TypeError(
          `Cannot store task: id must be 1 to 128 of A-Z a-z 0-9 _ -, got ${
            JSON.stringify(task.taskId)
          }`,
        );
      }
      const temporary = `${file(task.taskId)}.${crypto.randomUUID()}.tmp`;
      await Deno.writeTextFile(temporary, JSON.stringify(task));
      await Deno.rename(temporary, file(task.taskId));
    },
    async get(taskId: string): Promise<StoredTask | undefined> {
      if (!TASK_ID.test(taskId)) return undefined;
      try {
        return JSON.parse(await Deno.readTextFile(file(taskId)));
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) return undefined;
        throw error;
      }
    },
    async delete(taskId: string): Promise<void> {
      if (!TASK_ID.test(taskId)) return;
      await Deno.remove(file(taskId)).catch((error) => {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      });
    },
  };
}
