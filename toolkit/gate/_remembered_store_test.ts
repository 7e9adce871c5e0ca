// A caller's remembered approvals in a real redis-server started here, as
// two gate instances (two links) read and add to them.

import assert from "node:assert/strict";
import { haveRedis, startRedis, testLink } from "../redis/_test_redis.ts";
import { callerStoreKey } from "./_caller_key.ts";
import { RedisRememberedStore } from "./_remembered_store.ts";

const ignore = !haveRedis();

Deno.test({
  name:
    "RedisRememberedStore shares one caller's approvals between instances, exactly",
  ignore,
  fn: async (t) => {
    await using redis = await startRedis();
    const one = await testLink(redis.url);
    const two = await testLink(redis.url);
    try {
      const key = await callerStoreKey("remembered", '["ada",[],[],{}]');
      const a = new RedisRememberedStore(one, key, { ttlMs: 60_000 });
      const b = new RedisRememberedStore(two, key, { ttlMs: 60_000 });
      await t.step("what one remembers covers the other's call", async () => {
        assert.equal(await b.covers(["write:notes/a"]), false);
        await a.remember(["write:notes/a", "x-fake:always"]);
        assert.equal(await b.covers(["write:notes/a"]), true);
        assert.equal(await b.covers(["x-fake:always", "write:notes/a"]), true);
      });
      await t.step("one pattern more is not covered", async () => {
        assert.equal(
          await b.covers(["write:notes/a", "write:notes/b"]),
          false,
        );
      });
      await t.step("a remembered pattern is not a glob", async () => {
        assert.equal(await b.covers(["write:notes/a/b"]), false);
        assert.equal(await b.covers(["write:notes/*"]), false);
      });
      await t.step("a call without patterns is never covered", async () => {
        assert.equal(await b.covers([]), false);
      });
      await t.step("each server of an aggregate remembers apart", async () => {
        await a.remember(["write:x"], "one");
        assert.equal(await b.covers(["write:x"], "one"), true);
        assert.equal(await b.covers(["write:x"], "two"), false);
        assert.equal(await b.covers(["write:x"]), false);
        assert.equal(await b.covers(["write:notes/a"], "one"), false);
      });
      await t.step("another caller's approvals are apart", async () => {
        const other = new RedisRememberedStore(
          one,
          await callerStoreKey("remembered", '["bob",[],[],{}]'),
        );
        assert.equal(await other.covers(["write:notes/a"]), false);
      });
      await t.step(
        "Redis holds digests: no claim, no pattern, and an expiry",
        async () => {
          assert.match(key, /^forge-gate:remembered:[0-9a-f]{64}$/);
          const dump = JSON.stringify(
            await one.eval("return redis.call('SMEMBERS', KEYS[1])", [key], []),
          );
          assert.doesNotMatch(dump, /notes|write|ada/);
          const ttl = await one.eval(
            "return redis.call('PTTL', KEYS[1])",
            [key],
            [],
          ) as number;
          assert.ok(ttl > 0 && ttl <= 60_000, `PTTL ${ttl}`);
        },
      );
      await t.step("a look-up renews the expiry", async () => {
        await one.eval(
          "return redis.call('PEXPIRE', KEYS[1], 5000)",
          [key],
          [],
        );
        await b.covers(["write:nowhere"]);
        const ttl = await one.eval(
          "return redis.call('PTTL', KEYS[1])",
          [key],
          [],
        ) as number;
        assert.ok(ttl > 5_000, `PTTL ${ttl}`);
      });
      await t.step("a ttl that is not a positive integer is refused", () => {
        assert.throws(
          () => new RedisRememberedStore(one, key, { ttlMs: 0 }),
          RangeError,
        );
      });
      await t.step("Redis away: covers rejects in bounded time", async () => {
        await redis.stop();
        await assert.rejects(() => a.covers(["write:notes/a"]), /Redis/);
      });
    } finally {
      await one.close();
      await two.close();
    }
  },
});
