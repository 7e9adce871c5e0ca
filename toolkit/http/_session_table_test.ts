import assert from "node:assert/strict";
import {
  CLOCK,
  clockOf,
  type SessionEntry,
  SessionTable,
  SYSTEM_CLOCK,
} from "./_session_table.ts";
import { FakeClock } from "./_test_helpers.ts";

class FakeTransport {
  closed = false;
  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}

function table(
  options: { idleMs?: number; unusedMs?: number; maxSessions?: number } = {},
): { table: SessionTable<FakeTransport>; clock: FakeClock } {
  const clock = new FakeClock();
  return {
    clock,
    table: new SessionTable<FakeTransport>({
      idleMs: options.idleMs ?? 1000,
      unusedMs: options.unusedMs ?? 500,
      maxSessions: options.maxSessions ?? 10,
      clock,
    }),
  };
}

/** A session as `initialize` leaves it: bound, its first request over. */
function open(
  sessions: SessionTable<FakeTransport>,
  id: string,
): SessionEntry<FakeTransport> {
  const entry = sessions.create(new FakeTransport());
  sessions.enter(entry);
  sessions.bind(entry, id);
  sessions.leave(entry);
  sessions.settle(entry);
  return entry;
}

Deno.test("SessionTable counts a session once it is bound to its id", () => {
  const { table: sessions } = table();
  const entry = sessions.create(new FakeTransport());
  assert.equal(sessions.size, 0);
  assert.equal(entry.id, undefined);
  sessions.bind(entry, "a");
  assert.equal(sessions.size, 1);
  assert.equal(sessions.get("a"), entry);
  assert.equal(sessions.get("b"), undefined);
  sessions.settle(entry);
  assert.equal(entry.transport.closed, false, "a bound session stays open");
});

Deno.test("SessionTable.settle() closes a session that never got an id", () => {
  const { table: sessions } = table({ maxSessions: 1 });
  const entry = sessions.create(new FakeTransport());
  assert.deepEqual(sessions.room(), { ok: false, retryMs: 1000 });
  sessions.settle(entry);
  assert.ok(entry.transport.closed);
  assert.deepEqual(sessions.room(), { ok: true });
});

Deno.test("SessionTable.forget() and end() take a session out; end() closes it", () => {
  const { table: sessions } = table();
  const a = open(sessions, "a");
  const b = open(sessions, "b");
  sessions.forget(a);
  assert.equal(sessions.get("a"), undefined);
  assert.equal(a.transport.closed, false);
  sessions.end(b);
  assert.equal(sessions.get("b"), undefined);
  assert.ok(b.transport.closed);
  assert.equal(sessions.size, 0);
});

Deno.test("SessionTable expires an unused session after unusedMs, a used one after idleMs", () => {
  const { table: sessions, clock } = table({ idleMs: 1000, unusedMs: 500 });
  const unused = open(sessions, "unused");
  const used = open(sessions, "used");
  sessions.touch(used);
  clock.advance(499);
  assert.equal(sessions.size, 2);
  clock.advance(251);
  assert.equal(sessions.get("unused"), undefined, "gone on the next sweep");
  assert.ok(unused.transport.closed);
  assert.equal(sessions.get("used"), used);
  clock.advance(500);
  assert.equal(sessions.get("used"), undefined);
  assert.ok(used.transport.closed);
});

Deno.test("SessionTable counts idle time from the end of the last request, never while one is open", () => {
  const { table: sessions, clock } = table({ idleMs: 1000, unusedMs: 60_000 });
  const entry = open(sessions, "a");
  sessions.touch(entry);
  clock.advance(900);
  sessions.enter(entry);
  clock.advance(5000);
  assert.equal(sessions.get("a"), entry, "a stream is open");
  sessions.leave(entry);
  clock.advance(900);
  assert.equal(sessions.get("a"), entry);
  clock.advance(600);
  assert.equal(sessions.get("a"), undefined);
});

Deno.test("SessionTable sweeps every half the shorter timeout and stops when empty", () => {
  const { table: sessions, clock } = table({ idleMs: 400, unusedMs: 10_000 });
  assert.equal(clock.timers, 0, "no sweeper before the first session");
  const entry = open(sessions, "a");
  assert.equal(clock.timers, 1);
  sessions.touch(entry);
  sessions.enter(entry);
  clock.advance(50);
  sessions.leave(entry);
  clock.advance(399);
  assert.equal(sessions.size, 1);
  clock.advance(1);
  assert.equal(sessions.size, 1, "due at 450, but the sweeps are at 400, 600");
  clock.advance(150);
  assert.equal(sessions.size, 0);
  assert.equal(clock.timers, 0);
  open(sessions, "b");
  assert.equal(clock.timers, 1, "started again by the next session");
});

Deno.test("SessionTable.room() ends nothing while there is room", () => {
  const { table: sessions } = table({ maxSessions: 2 });
  open(sessions, "a");
  assert.deepEqual(sessions.room(), { ok: true });
});

Deno.test("SessionTable.room() offers the oldest unused session when full", () => {
  const { table: sessions } = table({ maxSessions: 3, unusedMs: 60_000 });
  const oldest = open(sessions, "oldest");
  open(sessions, "newer");
  sessions.touch(open(sessions, "used"));
  const room = sessions.room();
  assert.ok(room.ok);
  assert.equal(room.victim, oldest);
  assert.equal(oldest.transport.closed, false, "the caller ends it");
});

Deno.test("SessionTable.room() when full of sessions in use says when the first can end", async (t) => {
  await t.step("the earliest deadline, checked at once", () => {
    const { table: sessions, clock } = table({
      maxSessions: 2,
      idleMs: 2500,
      unusedMs: 60_000,
    });
    const entries = [open(sessions, "a"), open(sessions, "b")];
    // Used again between two sweeps (every 1250 ms), so that only the
    // check in room() can find them expired at the moment it names.
    clock.advance(600);
    for (const entry of entries) {
      sessions.touch(entry);
      sessions.enter(entry);
      sessions.leave(entry);
    }
    assert.deepEqual(sessions.room(), { ok: false, retryMs: 2500 });
    clock.advance(2499);
    assert.deepEqual(sessions.room(), { ok: false, retryMs: 1 });
    clock.advance(1);
    assert.equal(sessions.size, 2, "the next sweep is at 3750");
    assert.deepEqual(sessions.room(), { ok: true });
    assert.equal(sessions.size, 0, "both expired on the check");
  });
  await t.step("idleMs when every session has a stream open", () => {
    const { table: sessions } = table({ maxSessions: 1, idleMs: 60_000 });
    const entry = open(sessions, "a");
    sessions.touch(entry);
    sessions.enter(entry);
    assert.deepEqual(sessions.room(), { ok: false, retryMs: 60_000 });
  });
  await t.step("a second while an initialisation is in progress", () => {
    const { table: sessions } = table({ maxSessions: 2 });
    sessions.touch(open(sessions, "a"));
    sessions.create(new FakeTransport());
    assert.deepEqual(sessions.room(), { ok: false, retryMs: 1000 });
  });
});

Deno.test("SessionTable.closeAll() closes open sessions and those in progress", async () => {
  const { table: sessions, clock } = table();
  const bound = open(sessions, "a");
  const pending = sessions.create(new FakeTransport());
  await sessions.closeAll();
  assert.ok(bound.transport.closed);
  assert.ok(pending.transport.closed);
  assert.equal(sessions.size, 0);
  assert.deepEqual(sessions.room(), { ok: true });
  assert.equal(clock.timers, 0);
});

Deno.test("SessionTable.stopExpiry() keeps sessions past their deadline", () => {
  const { table: sessions, clock } = table({ unusedMs: 100 });
  open(sessions, "a");
  sessions.stopExpiry();
  clock.advance(10_000);
  assert.equal(sessions.size, 1);
});

Deno.test("clockOf() reads the internal clock option, the system clock by default", () => {
  const clock = new FakeClock();
  assert.equal(clockOf({ [CLOCK]: clock }), clock);
  assert.equal(clockOf({}), SYSTEM_CLOCK);
  assert.equal(clockOf({ ...{ [CLOCK]: clock } }), clock, "spread keeps it");
});

Deno.test("SessionTable answers a session with an owner to that owner only", () => {
  const { table: sessions } = table();
  const owned = sessions.create(new FakeTransport(), "alice");
  sessions.bind(owned, "a");
  const shared = sessions.create(new FakeTransport());
  sessions.bind(shared, "s");
  assert.equal(sessions.get("a", "alice"), owned);
  assert.equal(sessions.get("a", "bob"), undefined);
  assert.equal(sessions.get("a"), undefined);
  // Without an owner, anyone who knows the id.
  assert.equal(sessions.get("s"), shared);
  assert.equal(sessions.get("s", "bob"), shared);
});
