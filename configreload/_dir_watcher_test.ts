import assert from "node:assert/strict";
import { DirHub } from "./_dir_hub.ts";
import { DirWatcher, type DirWatcherHandlers } from "./_dir_watcher.ts";
import { FakeWatcher, until } from "./_test_helpers.ts";

function handlers(): DirWatcherHandlers & {
  events: number;
  gaps: number;
  failures: unknown[];
} {
  return {
    events: 0,
    gaps: 0,
    failures: [],
    onEvent() {
      this.events++;
    },
    onGap() {
      this.gaps++;
    },
    onFailure(error) {
      this.failures.push(error);
    },
  };
}

Deno.test("DirWatcher follows the target list: new directories in, old ones out", async () => {
  const made = new Map<string, FakeWatcher>();
  const hub = new DirHub(([path]) => {
    const fake = new FakeWatcher();
    made.set(path, fake);
    return fake;
  });
  const heard = handlers();
  const watcher = new DirWatcher(heard, hub);
  watcher.watch([{ dir: "/a", id: "1" }, { dir: "/b", id: "2" }]);
  assert.deepEqual(hub.watched.sort(), ["/a", "/b"]);
  watcher.watch([{ dir: "/a", id: "1" }, { dir: "/c", id: "3" }]);
  await until(() => made.get("/b")!.closed, "the watch of /b to close");
  assert.deepEqual(watcher.dirs.sort(), ["/a", "/c"]);
  made.get("/c")!.push({ kind: "create", paths: ["/c/x"] });
  await until(() => heard.events === 1, "an event from /c");
  await watcher.close();
  assert.deepEqual(hub.watched, []);
  assert.ok([...made.values()].every((fake) => fake.closed));
});

Deno.test("DirWatcher reports the first failure once and lets go of every directory", async () => {
  const hub = new DirHub(([path]) => {
    if (path === "/bad") throw new Error("no watches left");
    return new FakeWatcher();
  });
  const heard = handlers();
  const watcher = new DirWatcher(heard, hub);
  watcher.watch([{ dir: "/good", id: "1" }, { dir: "/bad", id: "2" }]);
  assert.equal(watcher.failed, true);
  assert.equal(heard.failures.length, 1);
  assert.match(String(heard.failures[0]), /no watches left/);
  watcher.watch([{ dir: "/bad", id: "2" }]);
  assert.equal(heard.failures.length, 1);
  await watcher.close();
  assert.deepEqual(hub.watched, []);
});
