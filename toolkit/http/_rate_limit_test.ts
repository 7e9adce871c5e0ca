import assert from "node:assert/strict";
import { RateLimiter } from "./_rate_limit.ts";

function clock(): { now: () => number; advance: (ms: number) => void } {
  let t = 0;
  return { now: () => t, advance: (ms) => t += ms };
}

Deno.test("RateLimiter allows a burst, then paces a key and says how long to wait", () => {
  const time = clock();
  const limiter = new RateLimiter({ perMinute: 6, burst: 3, now: time.now });
  assert.deepEqual([1, 2, 3].map(() => limiter.take("a")), [0, 0, 0]);
  // Six a minute: one token every 10 s.
  assert.equal(limiter.take("a"), 10_000);
  time.advance(4_000);
  assert.equal(limiter.take("a"), 6_000, "a refusal takes nothing");
  time.advance(5_999);
  assert.equal(limiter.take("a"), 1);
  time.advance(1);
  assert.equal(limiter.take("a"), 0);
  assert.equal(limiter.take("a"), 10_000);
});

Deno.test("RateLimiter keeps keys apart and Infinity turns it off", () => {
  const time = clock();
  const limiter = new RateLimiter({ perMinute: 1, burst: 1, now: time.now });
  assert.equal(limiter.take("a"), 0);
  assert.ok(limiter.take("a") > 0);
  assert.equal(limiter.take("b"), 0);
  const off = new RateLimiter({ perMinute: Infinity, burst: 1 });
  for (let i = 0; i < 1000; i++) assert.equal(off.take("a"), 0);
  assert.equal(off.size, 0);
});

Deno.test("RateLimiter bounds its table: refilled keys are forgotten, the least recent goes past maxKeys", async (t) => {
  await t.step("a key whose bucket has refilled is dropped", () => {
    const time = clock();
    const limiter = new RateLimiter({ perMinute: 60, burst: 2, now: time.now });
    for (let i = 0; i < 100; i++) limiter.take(`k${i}`);
    assert.equal(limiter.size, 100);
    // 1 s refills one token, which fills every bucket (each took one of two).
    time.advance(1_000);
    for (let i = 0; i < 100; i++) limiter.take("fresh");
    assert.ok(
      limiter.size <= 1,
      `expected the table emptied, got ${limiter.size}`,
    );
  });
  await t.step("past maxKeys the least recently used key goes", () => {
    const time = clock();
    const limiter = new RateLimiter({
      perMinute: 1,
      burst: 1,
      maxKeys: 3,
      now: time.now,
    });
    for (const key of ["a", "b", "c"]) limiter.take(key);
    limiter.take("a"); // refused, and now the most recent
    limiter.take("d"); // forgets b
    assert.equal(limiter.size, 3);
    assert.ok(limiter.take("a") > 0, "a is still counted");
    assert.equal(limiter.take("b"), 0, "b was forgotten and starts full");
  });
});
