import assert from "node:assert/strict";
import {
  DirWatcher,
  type DirWatcherHandlers,
  type FsWatcherLike,
} from "./_dir_watcher.ts";

async function until(
  condition: () => boolean,
  what: string,
  timeoutMs = 5000,
): Promise<void> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > timeoutMs) {
      throw new Error(`Timed out waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function recorder(): DirWatcherHandlers & {
  events: number;
  rescans: number;
  gaps: number;
  failures: unknown[];
} {
  return {
    events: 0,
    rescans: 0,
    gaps: 0,
    failures: [],
    onEvent(rescan) {
      this.events++;
      if (rescan) this.rescans++;
    },
    onGap() {
      this.gaps++;
    },
    onFailure(error) {
      this.failures.push(error);
    },
  };
}

// A watcher the test drives: push events, end it, or see it closed.
class FakeWatcher implements FsWatcherLike {
  closed = false;
  #queue: (Deno.FsEvent | "end")[] = [];
  #wake: (() => void) | undefined;

  push(item: Deno.FsEvent | "end"): void {
    this.#queue.push(item);
    this.#wake?.();
  }

  close(): void {
    this.closed = true;
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Deno.FsEvent> {
    while (!this.closed) {
      const item = this.#queue.shift();
      if (item === "end") return;
      if (item !== undefined) {
        yield item;
        continue;
      }
      await new Promise<void>((resolve) => this.#wake = resolve);
      this.#wake = undefined;
    }
  }
}

const MODIFY: Deno.FsEvent = { kind: "modify", paths: ["/w/a.json"] };

Deno.test("DirWatcher passes on events from a real directory and closes cleanly", async () => {
  const dir = await Deno.makeTempDir();
  const handlers = recorder();
  const watcher = new DirWatcher(handlers);
  try {
    assert.equal(watcher.watch([dir], "k"), true);
    assert.equal(watcher.watch([dir], "k"), false, "same key: no new watch");
    await Deno.writeTextFile(`${dir}/a.json`, "{}");
    await until(() => handlers.events > 0, "an event");
  } finally {
    await watcher.close();
    await Deno.remove(dir, { recursive: true });
  }
  assert.deepEqual(handlers.failures, []);
});

Deno.test("DirWatcher marks the watch stale when the watched directory is deleted", async () => {
  const root = await Deno.makeTempDir();
  const dir = `${root}/conf`;
  await Deno.mkdir(dir);
  const handlers = recorder();
  const watcher = new DirWatcher(handlers);
  try {
    watcher.watch([dir], "k");
    await Deno.remove(dir);
    await until(() => handlers.events > 0, "the removal event");
    await Deno.mkdir(dir);
    assert.equal(
      watcher.watch([dir], "k"),
      true,
      "a stale watch is re-created",
    );
  } finally {
    await watcher.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("DirWatcher restarts a watch whose iterator ends and reports the gap", async () => {
  const made: FakeWatcher[] = [];
  const handlers = recorder();
  const watcher = new DirWatcher(handlers, () => {
    const fake = new FakeWatcher();
    made.push(fake);
    return fake;
  });
  try {
    watcher.watch(["/w"], "k");
    made[0].push(MODIFY);
    made[0].push({ kind: "other", paths: [], flag: "rescan" });
    made[0].push("end");
    await until(() => made.length === 2 && handlers.gaps === 1, "a restart");
    assert.equal(handlers.events, 2);
    assert.equal(handlers.rescans, 1);
    made[1].push(MODIFY);
    await until(() => handlers.events === 3, "an event on the new watch");
  } finally {
    await watcher.close();
  }
  assert.ok(made.every((fake) => fake.closed || fake === made[0]));
  assert.deepEqual(handlers.failures, []);
});

Deno.test("DirWatcher gives up, once, when watching cannot start", async (t) => {
  await t.step("the watch cannot be created", async () => {
    const handlers = recorder();
    const denied = new Deno.errors.PermissionDenied("inotify says no");
    const watcher = new DirWatcher(handlers, () => {
      throw denied;
    });
    assert.equal(watcher.watch(["/w"], "k"), false);
    assert.equal(watcher.watch(["/w"], "k2"), false);
    assert.deepEqual(handlers.failures, [denied]);
    assert.equal(watcher.failed, true);
    await watcher.close();
  });
  await t.step("the watch keeps ending right after it starts", async () => {
    const handlers = recorder();
    let made = 0;
    const watcher = new DirWatcher(handlers, () => {
      made++;
      const fake = new FakeWatcher();
      fake.push("end");
      return fake;
    });
    watcher.watch(["/w"], "k");
    await until(() => handlers.failures.length === 1, "the failure");
    assert.equal(made, 5);
    assert.match(String(handlers.failures[0]), /ended 5 times in a row/);
    await watcher.close();
  });
});

Deno.test("DirWatcher asks for another look when a directory vanishes before the watch", async () => {
  const handlers = recorder();
  let calls = 0;
  const watcher = new DirWatcher(handlers, () => {
    calls++;
    if (calls === 1) throw new Deno.errors.NotFound("gone");
    return new FakeWatcher();
  });
  try {
    assert.equal(watcher.watch(["/w"], "k"), false);
    await until(() => handlers.gaps === 1, "a request to look again");
    assert.equal(watcher.watch(["/w"], "k"), true);
    assert.deepEqual(handlers.failures, []);
  } finally {
    await watcher.close();
  }
});
