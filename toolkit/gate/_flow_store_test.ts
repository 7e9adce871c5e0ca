// A caller's flow history in a real redis-server started here, as two gate
// instances (two links) read and add to it.

import assert from "node:assert/strict";
import { haveRedis, startRedis, testLink } from "../redis/_test_redis.ts";
import { flowKey, RedisFlowStore } from "./_flow_store.ts";

const ignore = !haveRedis();

const READ = { tool: "read_file", pattern: "read:secrets/k", line: "d1" };

Deno.test({
  name: "RedisFlowStore shares one caller's history between instances",
  ignore,
  fn: async (t) => {
    await using redis = await startRedis();
    const one = await testLink(redis.url);
    const two = await testLink(redis.url);
    try {
      const key = await flowKey('["ada",[],[],{}]');
      const a = new RedisFlowStore(one, key, { ttlMs: 60_000, max: 2 });
      const b = new RedisFlowStore(two, key, { ttlMs: 60_000, max: 2 });
      await t.step("what one adds the other reads", async () => {
        assert.deepEqual(await b.load(), { triggers: [] });
        await a.add({ triggers: [["read:secrets/**", READ]] });
        assert.deepEqual(await b.load(), {
          triggers: [["read:secrets/**", READ]],
        });
      });
      await t.step("a rule set off already keeps its first call", async () => {
        await b.add({
          triggers: [["read:secrets/**", { ...READ, line: "d9" }]],
        });
        assert.deepEqual((await a.load()).triggers, [
          ["read:secrets/**", READ],
        ]);
      });
      await t.step("an unprobed trigger has no pattern", async () => {
        await a.add({
          triggers: [["unprobed", { tool: "run", pattern: undefined }]],
        });
        const [, trigger] = (await b.load()).triggers.find(([rule]) =>
          rule === "unprobed"
        )!;
        assert.deepEqual(trigger, { tool: "run", pattern: undefined });
      });
      await t.step(
        "past the bound the first call left out is full",
        async () => {
          await a.add({
            triggers: [
              ["net:**", { tool: "fetch", pattern: "net:x", line: "d2" }],
              ["exec:**", { tool: "sh", pattern: "exec:ls", line: "d3" }],
            ],
          });
          const state = await b.load();
          assert.equal(state.triggers.length, 2);
          assert.equal(state.full?.line, "d2");
        },
      );
      await t.step("another caller's history is apart", async () => {
        const other = new RedisFlowStore(
          one,
          await flowKey('["bob",[],[],{}]'),
        );
        assert.deepEqual(await other.load(), { triggers: [] });
      });
      await t.step("the key expires after the caller's last call", async () => {
        const ttl = await one.eval(
          "return redis.call('PTTL', KEYS[1])",
          [key],
          [],
        ) as number;
        assert.ok(ttl > 0 && ttl <= 60_000, `PTTL ${ttl}`);
      });
      await t.step(
        "a history that cannot be read decides nothing",
        async () => {
          await one.eval(
            "return redis.call('HSET', KEYS[1], 't:bad', '{}')",
            [key],
            [],
          );
          await assert.rejects(() => b.load(), /t:bad: expected/);
        },
      );
      await t.step("Redis away: load rejects in bounded time", async () => {
        await redis.stop();
        await assert.rejects(() => a.load(), /Redis/);
      });
    } finally {
      await one.close();
      await two.close();
    }
  },
});
