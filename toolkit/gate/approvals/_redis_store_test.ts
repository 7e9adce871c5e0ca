// Two gate "instances" in this process, each with its own connection to a
// real redis-server started here, sharing approvals.

import assert from "node:assert/strict";
import { haveRedis, startRedis } from "../../redis/_test_redis.ts";
import { openLink } from "../../redis/_link.ts";
import { until } from "../../testing/_until.ts";
import { ApprovalBoard, type ApprovalEntry } from "./_board.ts";
import { connectApprovalStore } from "./_redis_store.ts";

const ignore = !haveRedis();
const quiet = { onError: () => {} };
const ENTRY: ApprovalEntry = {
  server: "files",
  tool: "write_file",
  patterns: ["write:/srv/notes/a.md", "read:/srv/notes"],
  askedBy: { sub: "alice", name: "Alice" },
};
/** Polling so rare that only a published decision can release a wait in time. */
const NO_POLL = { ...quiet, pollMs: 3_600_000 };

Deno.test({
  name: "Redis approvals: a decision on one instance releases the other's wait",
  ignore,
  fn: async () => {
    await using redis = await startRedis();
    await using one = await connectApprovalStore(redis.url, NO_POLL);
    await using two = await connectApprovalStore(redis.url, NO_POLL);
    const first = new ApprovalBoard({ store: one });
    const second = new ApprovalBoard({ store: two });
    // Without the published decision the wait would end at this expiry.
    const { id, expires } = await first.open({ ...ENTRY, ttlMs: 10_000 });
    const held = second.wait(id).then((outcome) => ({
      outcome,
      at: Date.now(),
    }));
    const seen = await second.get(id);
    assert.deepEqual(seen && { ...seen, created: 0, expires: 0 }, {
      id,
      ...ENTRY,
      created: 0,
      expires: 0,
      state: "pending",
    });
    const result = await first.decide(id, "sam", "approve");
    assert.equal(result.ok, true);
    const released = await held;
    assert.equal(released.outcome, "approved");
    assert.ok(
      released.at < expires,
      "released by the decision, not the expiry",
    );
    const decided = await second.get(id);
    assert.equal(decided?.state, "approved");
    assert.equal(decided?.decidedBy, "sam");
    // And the other way round, with a deny.
    const other = await second.open({ ...ENTRY, ttlMs: 10_000 });
    const heldHere = first.wait(other.id).then((outcome) => ({
      outcome,
      at: Date.now(),
    }));
    assert.equal((await second.decide(other.id, "kim", "deny")).ok, true);
    const denied = await heldHere;
    assert.equal(denied.outcome, "denied");
    assert.ok(denied.at < other.expires);
  },
});

Deno.test({
  name:
    "Redis approvals: of approvers racing on two instances exactly one decides",
  ignore,
  fn: async () => {
    await using redis = await startRedis();
    await using one = await connectApprovalStore(redis.url, NO_POLL);
    await using two = await connectApprovalStore(redis.url, NO_POLL);
    const boards = [
      new ApprovalBoard({ store: one }),
      new ApprovalBoard({ store: two }),
    ];
    for (let round = 0; round < 5; round++) {
      const { id } = await boards[round % 2].open(ENTRY);
      const waits = boards.map((board) => board.wait(id));
      const results = await Promise.all(
        Array.from(
          { length: 40 },
          (_, i) =>
            boards[i % 2].decide(
              id,
              `approver${i}`,
              i % 3 ? "approve" : "deny",
            ),
        ),
      );
      const won = results.filter((result) => result.ok);
      assert.equal(won.length, 1, `round ${round}`);
      const winner = won[0].ok ? won[0].approval : undefined;
      for (const result of results) {
        if (!result.ok) assert.equal(result.reason, "decided");
        assert.equal(result.approval?.decidedBy, winner?.decidedBy);
      }
      assert.deepEqual(await Promise.all(waits), [
        winner?.state,
        winner?.state,
      ]);
    }
  },
});

Deno.test({
  name:
    "Redis approvals: a retry on either instance finds the call's approval, and it runs once",
  ignore,
  fn: async () => {
    await using redis = await startRedis();
    await using one = await connectApprovalStore(redis.url, NO_POLL);
    await using two = await connectApprovalStore(redis.url, NO_POLL);
    const first = new ApprovalBoard({ store: one });
    const second = new ApprovalBoard({ store: two });
    const { id } = await first.open({ ...ENTRY, call: "k:alice.1" });
    assert.equal((await second.find("k:alice.1"))?.id, id);
    assert.equal(await second.redeem(id), false, "pending");
    await second.decide(id, "sam", "approve");
    assert.equal((await first.find("k:alice.1"))?.state, "approved");
    const redeemed = await Promise.all(
      Array.from({ length: 40 }, (_, i) => [first, second][i % 2].redeem(id)),
    );
    assert.equal(redeemed.filter(Boolean).length, 1);
    assert.equal((await first.get(id))?.redeemed, true);
    assert.equal(await first.find("k:bob.1"), undefined);
  },
});

Deno.test({
  name: "Redis approvals: expiry, key TTL, ids and a lost message",
  ignore,
  fn: async (t) => {
    await using redis = await startRedis();
    const raw = await openLink(redis.url, {
      timeoutMs: 1_000,
      connectTimeoutMs: 5_000,
      ...quiet,
    });
    try {
      await t.step("a decision at or after the expiry is refused", async () => {
        await using store = await connectApprovalStore(redis.url, NO_POLL);
        let now = Date.now();
        const board = new ApprovalBoard({ store, now: () => now });
        const { id, expires } = await board.open({ ...ENTRY, ttlMs: 60_000 });
        now = expires;
        const late = await board.decide(id, "sam", "approve");
        assert.equal(late.ok ? "" : late.reason, "expired");
        assert.equal(late.approval?.state, "expired");
        assert.equal(await board.wait(id), "expired");
      });

      await t.step(
        "the key expires when the board stops keeping it",
        async () => {
          await using store = await connectApprovalStore(redis.url, {
            ...NO_POLL,
            prefix: "t:",
          });
          const board = new ApprovalBoard({
            store,
            ttlMs: 60_000,
            keepMs: 30_000,
          });
          const { id } = await board.open({ ...ENTRY, call: "k:ttl" });
          for (const key of [`t:approval:${id}`, "t:approval-call:k:ttl"]) {
            const ttl = Number(
              await raw.eval("return redis.call('PTTL', KEYS[1])", [key], []),
            );
            assert.ok(ttl > 80_000 && ttl <= 90_000, `PTTL ${key} ${ttl}`);
          }
        },
      );

      await t.step("an id is never opened twice", async () => {
        await using store = await connectApprovalStore(redis.url, NO_POLL);
        const board = new ApprovalBoard({ store });
        const { id } = await board.open(ENTRY);
        const approval = (await board.get(id))!;
        await assert.rejects(
          store.create({ ...approval, tool: "other" }, Date.now() + 60_000),
          /taken/,
        );
        assert.equal((await board.get(id))?.tool, "write_file");
      });

      await t.step(
        "a decision whose message is lost is found by polling",
        async () => {
          await using store = await connectApprovalStore(redis.url, {
            ...quiet,
            pollMs: 20,
          });
          const board = new ApprovalBoard({ store });
          const { id, expires } = await board.open({ ...ENTRY, ttlMs: 5_000 });
          const held = board.wait(id);
          // Decided behind the store's back: no message is published.
          await raw.eval(
            "redis.call('HSET', KEYS[1], 'state', 'approved', 'decidedBy', 'sam', 'decided', ARGV[1])",
            [`forge-gate:approval:${id}`],
            [String(Date.now())],
          );
          assert.equal(await held, "approved");
          assert.ok(Date.now() < expires, "found before the expiry");
        },
      );

      await t.step(
        "a wait survives Redis going away and coming back",
        async () => {
          await using one = await connectApprovalStore(redis.url, NO_POLL);
          await using two = await connectApprovalStore(redis.url, NO_POLL);
          const first = new ApprovalBoard({ store: one });
          const second = new ApprovalBoard({ store: two });
          const { id } = await first.open(ENTRY);
          const held = second.wait(id);
          // One connection answers in order: once this read is answered, the
          // wait's first read (which fails the wait if Redis is away) was too.
          assert.equal((await second.get(id))?.state, "pending");
          await redis.stop();
          await redis.start();
          // The decision is tried again until the link is back.
          let result: Awaited<ReturnType<typeof first.decide>> | undefined;
          await until("the decision lands", async () => {
            result = await first.decide(id, "sam", "approve").catch(() =>
              undefined
            );
            return result !== undefined;
          });
          assert.equal(result?.ok, true);
          assert.equal(await held, "approved");
        },
      );

      await t.step(
        "a wait whose Redis is away at the expiry ends expired",
        async () => {
          await using store = await connectApprovalStore(redis.url, NO_POLL);
          const board = new ApprovalBoard({ store });
          const { id } = await board.open({ ...ENTRY, ttlMs: 300 });
          // Bounded, so that a wait left hanging fails the test.
          const held = board.wait(id, AbortSignal.timeout(10_000));
          // As above: the wait's first read is answered before this one.
          assert.equal((await board.get(id))?.state, "pending");
          await redis.stop();
          try {
            assert.equal(await held, "expired");
          } finally {
            await redis.start();
          }
        },
      );
    } finally {
      await raw.close();
    }
  },
});
