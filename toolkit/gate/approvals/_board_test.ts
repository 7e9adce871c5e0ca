import assert from "node:assert/strict";
import {
  type Approval,
  ApprovalBoard,
  type ApprovalEntry,
  type ApprovalStore,
  MemoryApprovalStore,
} from "./_board.ts";

const ENTRY: ApprovalEntry = {
  server: "files",
  tool: "write_file",
  patterns: ["write:/srv/notes/a.md"],
  askedBy: { sub: "alice", name: "Alice" },
};

Deno.test("approval board: open, get and the entry it keeps", async (t) => {
  await t.step(
    "an id is 256 random bits, URL-safe, with its page's path",
    async () => {
      const board = new ApprovalBoard();
      const ids = new Set<string>();
      for (let i = 0; i < 200; i++) {
        const { id, path } = await board.open(ENTRY);
        assert.match(id, /^[A-Za-z0-9_-]{43}$/);
        assert.equal(path, `/approvals/${id}`);
        ids.add(id);
      }
      assert.equal(ids.size, 200);
    },
  );

  await t.step(
    "the entry holds what the audit holds, never argument values",
    async () => {
      let now = 1_000_000;
      const board = new ApprovalBoard({ now: () => now, ttlMs: 60_000 });
      // A caller that passes more than an entry: only the entry's fields are kept.
      const { id, expires } = await board.open({
        ...ENTRY,
        arguments: { content: "secret text" },
        askedBy: { sub: "alice", name: "Alice", token: "bearer x" },
      } as unknown as ApprovalEntry);
      assert.equal(expires, 1_060_000);
      const approval = await board.get(id);
      assert.deepEqual(
        approval,
        {
          id,
          server: "files",
          tool: "write_file",
          patterns: ["write:/srv/notes/a.md"],
          askedBy: { sub: "alice", name: "Alice" },
          created: 1_000_000,
          expires: 1_060_000,
          state: "pending",
        } satisfies Approval,
      );
      assert.ok(!JSON.stringify(approval).includes("secret"));
      now = 1_060_000;
      assert.equal((await board.get(id))?.state, "expired");
    },
  );

  await t.step("an unknown or malformed id is unknown", async () => {
    const board = new ApprovalBoard();
    assert.equal(await board.get("A".repeat(43)), undefined);
    assert.equal(await board.get("../x"), undefined);
    assert.deepEqual(await board.decide("A".repeat(43), "sam", "approve"), {
      ok: false,
      reason: "unknown",
    });
    await assert.rejects(board.wait("A".repeat(43)), RangeError);
  });

  await t.step("a malformed entry or TTL is refused", async () => {
    const board = new ApprovalBoard();
    await assert.rejects(
      board.open({ ...ENTRY, tool: 7 } as unknown as ApprovalEntry),
      TypeError,
    );
    await assert.rejects(
      board.open({ ...ENTRY, patterns: [{}] } as unknown as ApprovalEntry),
      TypeError,
    );
    await assert.rejects(
      board.open({ ...ENTRY, askedBy: { sub: "" } }),
      TypeError,
    );
    await assert.rejects(board.open({ ...ENTRY, ttlMs: 0 }), RangeError);
    assert.throws(() => new ApprovalBoard({ ttlMs: -1 }), RangeError);
    await assert.rejects(
      board.decide("A".repeat(43), "sam", "maybe" as "approve"),
      TypeError,
    );
  });
});

Deno.test("approval board: a call is decided once", async (t) => {
  await t.step("of many concurrent decisions exactly one wins", async () => {
    const board = new ApprovalBoard();
    const { id } = await board.open(ENTRY);
    const waiting = board.wait(id);
    const results = await Promise.all(
      Array.from(
        { length: 50 },
        (_, i) => board.decide(id, `approver${i}`, i % 2 ? "approve" : "deny"),
      ),
    );
    const won = results.filter((result) => result.ok);
    assert.equal(won.length, 1);
    const winner = won[0].ok ? won[0].approval : undefined;
    for (const result of results.filter((r) => !r.ok)) {
      assert.equal(result.ok ? "" : result.reason, "decided");
      assert.equal(result.approval?.decidedBy, winner?.decidedBy);
    }
    assert.equal(await waiting, winner?.state);
    const stored = await board.get(id);
    assert.equal(stored?.decidedBy, winner?.decidedBy);
    assert.equal(stored?.state, winner?.state);
  });

  await t.step("a second decision does not change the first", async () => {
    const board = new ApprovalBoard();
    const { id } = await board.open(ENTRY);
    assert.equal((await board.decide(id, "sam", "deny")).ok, true);
    const second = await board.decide(id, "kim", "approve");
    assert.equal(second.ok, false);
    assert.equal(second.ok ? "" : second.reason, "decided");
    assert.equal((await board.get(id))?.state, "denied");
    assert.equal((await board.get(id))?.decidedBy, "sam");
    assert.equal(await board.wait(id), "denied");
  });

  await t.step("a decision at or after the expiry is refused", async () => {
    let now = 0;
    const board = new ApprovalBoard({ now: () => now, ttlMs: 1_000 });
    const { id } = await board.open(ENTRY);
    now = 1_000;
    const late = await board.decide(id, "sam", "approve");
    assert.equal(late.ok ? "" : late.reason, "expired");
    assert.equal((await board.get(id))?.state, "expired");
    assert.equal(await board.wait(id), "expired");
  });
});

Deno.test("approval board: wait", async (t) => {
  await t.step("a held call is released when the approval lands", async () => {
    const board = new ApprovalBoard();
    const { id } = await board.open(ENTRY);
    const held = board.wait(id);
    const second = board.wait(id);
    await board.decide(id, "sam", "approve");
    assert.equal(await held, "approved");
    assert.equal(await second, "approved");
  });

  await t.step("a wait ends at the expiry", async () => {
    const board = new ApprovalBoard({ ttlMs: 40 });
    const { id, expires } = await board.open(ENTRY);
    assert.equal(await board.wait(id), "expired");
    assert.ok(Date.now() >= expires);
  });

  await t.step("a cancelled wait rejects and stops watching", async () => {
    const store = new MemoryApprovalStore();
    let watching = 0;
    const counting: ApprovalStore = {
      create: (approval, keepUntil) => store.create(approval, keepUntil),
      get: (id) => store.get(id),
      decide: (id, decision) => store.decide(id, decision),
      lookup: (call) => store.lookup(call),
      redeem: (id) => store.redeem(id),
      close: () => store.close(),
      watch(id, changed) {
        watching++;
        const unwatch = store.watch(id, changed);
        return () => {
          watching--;
          unwatch();
        };
      },
    };
    const board = new ApprovalBoard({ store: counting });
    const { id } = await board.open(ENTRY);
    const controller = new AbortController();
    const held = board.wait(id, controller.signal);
    assert.equal(watching, 1);
    controller.abort(new Error("host went away"));
    await assert.rejects(held, /host went away/);
    assert.equal(watching, 0);
    // The approval stays for the page; a later decision still lands.
    assert.equal((await board.decide(id, "sam", "approve")).ok, true);
    const aborted = AbortSignal.abort(new Error("already gone"));
    await assert.rejects(board.wait(id, aborted), /already gone/);
  });

  await t.step(
    "an approval no longer kept reads as expired to a waiter",
    async () => {
      let now = 0;
      const store = new MemoryApprovalStore({ now: () => now });
      const board = new ApprovalBoard({ store, now: () => now, keepMs: 0 });
      const { id } = await board.open({ ...ENTRY, ttlMs: 10 });
      const held = board.wait(id);
      now = 10;
      assert.equal(await held, "expired");
    },
  );
});

Deno.test("approval board: one approval lets one call run", async (t) => {
  await t.step(
    "only an approved approval is redeemed, once, of many racing",
    async () => {
      const board = new ApprovalBoard();
      const { id } = await board.open(ENTRY);
      assert.equal(await board.redeem(id), false, "pending");
      await board.decide(id, "sam", "approve");
      const redeemed = await Promise.all(
        Array.from({ length: 50 }, () => board.redeem(id)),
      );
      assert.equal(redeemed.filter(Boolean).length, 1);
      assert.equal(await board.redeem(id), false);
      assert.equal((await board.get(id))?.redeemed, true);
      const denied = await board.open(ENTRY);
      await board.decide(denied.id, "sam", "deny");
      assert.equal(await board.redeem(denied.id), false, "denied");
      assert.equal(await board.redeem("A".repeat(43)), false, "unknown");
    },
  );

  await t.step(
    "a host's retry finds the approval its call was given",
    async () => {
      const board = new ApprovalBoard();
      const first = await board.open({ ...ENTRY, call: "k:alice.1" });
      assert.equal((await board.find("k:alice.1"))?.id, first.id);
      const again = await board.open({ ...ENTRY, call: "k:alice.1" });
      assert.equal((await board.find("k:alice.1"))?.id, again.id, "the newest");
      await board.decide(again.id, "sam", "approve");
      const found = await board.find("k:alice.1");
      assert.equal(found?.state, "approved");
      assert.equal(found?.call, "k:alice.1");
      assert.equal(await board.find("k:bob.1"), undefined);
      assert.equal(await board.find("not a key!"), undefined);
      await assert.rejects(
        board.open({ ...ENTRY, call: "has space" }),
        TypeError,
      );
      await assert.rejects(
        board.open({ ...ENTRY, call: "x".repeat(129) }),
        TypeError,
      );
    },
  );
});
