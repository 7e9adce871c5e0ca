import assert from "node:assert/strict";
import { DirHub, type DirListener } from "./_dir_hub.ts";
import { FakeClock, FakeWatcher, until } from "./_test_helpers.ts";

function listener(): DirListener & {
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

// A hub over fake watchers, recording each one it makes.
function fakeHub(
  make: (paths: string[]) => FakeWatcher = () => new FakeWatcher(),
  clock?: FakeClock,
): { hub: DirHub; made: FakeWatcher[] } {
  const made: FakeWatcher[] = [];
  const hub = new DirHub((paths) => {
    const fake = make(paths);
    made.push(fake);
    return fake;
  }, { clock });
  return { hub, made };
}

const MODIFY: Deno.FsEvent = { kind: "modify", paths: ["/w/a.json"] };

Deno.test("DirHub passes on events from a real directory and closes cleanly", async () => {
  const dir = await Deno.makeTempDir();
  const hub = new DirHub();
  const heard = listener();
  try {
    hub.subscribe(dir, "id", heard);
    assert.deepEqual(hub.watched, [dir]);
    await Deno.writeTextFile(`${dir}/a.json`, "{}");
    await until(() => heard.events > 0, "an event");
  } finally {
    await hub.unsubscribe(dir, heard);
    await Deno.remove(dir, { recursive: true });
  }
  assert.deepEqual(hub.watched, []);
  assert.deepEqual(heard.failures, []);
});

Deno.test("DirHub shares one watch per directory among subscribers", async () => {
  const { hub, made } = fakeHub();
  const first = listener();
  const second = listener();
  hub.subscribe("/w", "id", first);
  hub.subscribe("/w", "id", second);
  assert.equal(made.length, 1);
  made[0].push(MODIFY);
  await until(() => first.events === 1 && second.events === 1, "both hear");
  await hub.unsubscribe("/w", first);
  assert.equal(made[0].closed, false, "the second subscriber still needs it");
  made[0].push(MODIFY);
  await until(() => second.events === 2, "the second hears on");
  assert.equal(first.events, 1);
  await hub.unsubscribe("/w", second);
  assert.equal(made[0].closed, true);
});

Deno.test("DirHub re-creates a watch whose directory was deleted and recreated, for every subscriber", async () => {
  const root = await Deno.makeTempDir();
  const dir = `${root}/conf`;
  await Deno.mkdir(dir);
  const hub = new DirHub();
  const first = listener();
  const second = listener();
  try {
    hub.subscribe(dir, "v1", first);
    hub.subscribe(dir, "v1", second);
    await Deno.remove(dir);
    await Deno.mkdir(dir);
    await until(() => first.events > 0, "the removal event");
    // The same identity as before (ext4 may reuse the inode number): the
    // removal event alone must be enough to re-create the watch.
    hub.refresh(dir, "v1");
    await until(() => first.gaps === 1 && second.gaps === 1, "the restart");
    const before = second.events;
    await Deno.writeTextFile(`${dir}/a.json`, "{}");
    await until(() => second.events > before, "an event in the new directory");
  } finally {
    await hub.unsubscribe(dir, first);
    await hub.unsubscribe(dir, second);
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("DirHub closes the old watch before opening the new one on refresh", async () => {
  const { hub, made } = fakeHub();
  const heard = listener();
  hub.subscribe("/w", "v1", heard);
  hub.refresh("/w", "v1");
  assert.equal(made.length, 1, "same identity, live watch: kept");
  hub.refresh("/w", "v2");
  await until(() => heard.gaps === 1, "the restart");
  assert.equal(made.length, 2);
  assert.equal(made[0].closed, true);
  await hub.unsubscribe("/w", heard);
});

Deno.test("DirHub restarts a watch whose iterator ends and reports the gap", async () => {
  const { hub, made } = fakeHub();
  const heard = listener();
  hub.subscribe("/w", "id", heard);
  made[0].push(MODIFY);
  made[0].push({ kind: "other", paths: [], flag: "rescan" });
  made[0].push("end");
  await until(() => made.length === 2 && heard.gaps === 1, "a restart");
  assert.equal(heard.events, 2);
  assert.equal(heard.rescans, 1);
  made[1].push(MODIFY);
  await until(() => heard.events === 3, "an event on the new watch");
  await hub.unsubscribe("/w", heard);
  assert.deepEqual(heard.failures, []);
});

Deno.test("DirHub tells every subscriber, once, when a directory cannot be watched", async (t) => {
  await t.step("the watch cannot be created", async () => {
    const denied = new Deno.errors.PermissionDenied("inotify says no");
    const hub = new DirHub(() => {
      throw denied;
    });
    const heard = listener();
    hub.subscribe("/w", "id", heard);
    assert.deepEqual(heard.failures, [denied]);
    assert.deepEqual(hub.watched, []);
    await hub.unsubscribe("/w", heard);
  });
  await t.step("the watch keeps ending right after it starts", async () => {
    // On a clock that stands still every watch ends "right after it
    // started"; the test moves it past each backoff pause.
    const clock = new FakeClock();
    const { hub, made } = fakeHub(() => {
      const fake = new FakeWatcher();
      fake.push("end");
      return fake;
    }, clock);
    const first = listener();
    const second = listener();
    hub.subscribe("/w", "id", first);
    hub.subscribe("/w", "id", second);
    while (first.failures.length === 0) {
      await until(
        () => clock.pending > 0 || first.failures.length > 0,
        "a backoff pause or the failure",
      );
      clock.advance(10_000);
    }
    assert.equal(made.length, 5);
    assert.equal(clock.pending, 0, "no restart is scheduled after it");
    assert.equal(second.failures.length, 1);
    assert.match(String(first.failures[0]), /ended 5 times in a row/);
  });
});

Deno.test("DirHub asks for another look when a directory vanishes before the watch", async () => {
  let calls = 0;
  const { hub, made } = fakeHub(() => {
    calls++;
    if (calls === 1) throw new Deno.errors.NotFound("gone");
    return new FakeWatcher();
  });
  const heard = listener();
  hub.subscribe("/w", "id", heard);
  await until(() => heard.gaps === 1, "a request to look again");
  hub.refresh("/w", "id");
  await until(() => made.length === 1, "the second attempt");
  assert.deepEqual(hub.watched, ["/w"]);
  assert.deepEqual(heard.failures, []);
  await hub.unsubscribe("/w", heard);
});

Deno.test("DirHub waits for a closing watch of a path before opening a new one", async () => {
  const { hub, made } = fakeHub();
  const first = listener();
  const second = listener();
  hub.subscribe("/w", "v1", first);
  const leaving = hub.unsubscribe("/w", first);
  hub.subscribe("/w", "v2", second);
  // The old watch must be closed before the new one is made.
  assert.equal(made.length, 1);
  await leaving;
  await until(() => made.length === 2 && second.gaps === 1, "the new watch");
  assert.equal(made[0].closed, true);
  await hub.unsubscribe("/w", second);
});
