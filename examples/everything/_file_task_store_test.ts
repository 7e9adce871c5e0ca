import assert from "node:assert/strict";
import type { StoredTask } from "@forge/toolkit/server";
import { fileTaskStore } from "./_file_task_store.ts";

function task(taskId: string, status: StoredTask["status"]): StoredTask {
  return {
    taskId,
    status,
    createdAt: "2026-12-01T10:00:00.000Z",
    lastUpdatedAt: "2026-12-01T10:00:01.000Z",
    ttlMs: 60_000,
    pollIntervalMs: 500,
    expiresAt: null,
    toolName: "slow_compute",
  };
}

Deno.test("fileTaskStore() lets two stores over one directory read each other's tasks", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const here = fileTaskStore(dir);
    const there = fileTaskStore(dir);
    await here.put(task("t-1", "working"));
    assert.deepEqual(await there.get("t-1"), task("t-1", "working"));
    await there.put(task("t-1", "cancelled"));
    assert.equal((await here.get("t-1"))?.status, "cancelled");
    await here.delete("t-1");
    assert.equal(await there.get("t-1"), undefined);
    await there.delete("t-1"); // already gone: no error
    // Only the task files remain: every temporary file was renamed.
    await here.put(task("t-2", "completed"));
    const names = [];
    for await (const entry of Deno.readDir(dir)) names.push(entry.name);
    assert.deepEqual(names, ["t-2.json"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("fileTaskStore() never reads or writes outside its directory", async () => {
  const parent = await Deno.makeTempDir();
  try {
    const dir = `${parent}/tasks`;
    await Deno.writeTextFile(
      `${parent}/secret.json`,
      JSON.stringify(task("secret", "completed")),
    );
    const store = fileTaskStore(dir);
    for (const id of ["../secret", "..", "a/b", "", "x".repeat(129)]) {
      assert.equal(await store.get(id), undefined, id);
      await store.delete(id);
    }
    assert.ok((await Deno.stat(`${parent}/secret.json`)).isFile);
    await assert.rejects(
      async () => await store.put(task("../escape", "working")),
      {
        name: "TypeError",
        message: /id must be 1 to 128 of A-Z a-z 0-9 _ -, got "\.\.\/escape"/,
      },
    );
    assert.throws(() => fileTaskStore(""), {
      name: "TypeError",
      message: /expected a directory path, got ""/,
    });
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});
