import assert from "node:assert/strict";
import { Debouncer } from "./_debounce.ts";
import { FakeClock } from "./_test_helpers.ts";

Deno.test("Debouncer calls once after a burst has been quiet for the wait", () => {
  const clock = new FakeClock();
  let calls = 0;
  const debouncer = new Debouncer(() => calls++, {
    waitMs: 40,
    maxWaitMs: 10_000,
    clock,
  });
  for (let i = 0; i < 20; i++) {
    debouncer.trigger();
    clock.advance(10);
  }
  assert.equal(calls, 0, "each trigger postpones the call");
  assert.equal(debouncer.pending, true);
  clock.advance(29);
  assert.equal(calls, 0, "not before 40 ms of quiet");
  clock.advance(1);
  assert.equal(calls, 1);
  assert.equal(debouncer.pending, false);
  clock.advance(1000);
  assert.equal(calls, 1, "once per burst");
});

Deno.test("Debouncer fires within the bounded wait while triggers keep coming", () => {
  const clock = new FakeClock();
  let calls = 0;
  let firedAt = -1;
  const debouncer = new Debouncer(() => {
    calls++;
    firedAt = clock.now();
  }, { waitMs: 60, maxWaitMs: 120, clock });
  // Triggers every 20 ms would postpone a plain trailing debounce forever.
  while (calls === 0 && clock.now() < 3000) {
    debouncer.trigger();
    clock.advance(20);
  }
  debouncer.cancel();
  assert.equal(calls, 1);
  assert.equal(firedAt, 120, "at the bound, counted from the first trigger");
});

Deno.test("Debouncer.cancel() drops the scheduled call", () => {
  const clock = new FakeClock();
  let calls = 0;
  const debouncer = new Debouncer(() => calls++, {
    waitMs: 20,
    maxWaitMs: 100,
    clock,
  });
  debouncer.trigger();
  debouncer.cancel();
  assert.equal(clock.pending, 0, "the timer is cleared");
  clock.advance(1000);
  assert.equal(calls, 0);
  assert.equal(debouncer.pending, false);
});

Deno.test("Debouncer runs on real timers by default", async () => {
  const { promise, resolve } = Promise.withResolvers<void>();
  const debouncer = new Debouncer(resolve, { waitMs: 0, maxWaitMs: 0 });
  debouncer.trigger();
  await promise;
  assert.equal(debouncer.pending, false);
});
