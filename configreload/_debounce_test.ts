import assert from "node:assert/strict";
import { Debouncer } from "./_debounce.ts";

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

Deno.test("Debouncer calls once after a burst has been quiet for the wait", async () => {
  let calls = 0;
  const debouncer = new Debouncer(() => calls++, 40, 10_000);
  for (let i = 0; i < 20; i++) debouncer.trigger();
  assert.equal(calls, 0);
  assert.equal(debouncer.pending, true);
  await sleep(150);
  assert.equal(calls, 1);
  assert.equal(debouncer.pending, false);
});

Deno.test("Debouncer fires within the bounded wait while triggers keep coming", async () => {
  let calls = 0;
  const debouncer = new Debouncer(() => calls++, 60, 120);
  const started = performance.now();
  // Triggers every 20 ms would postpone a plain trailing debounce forever.
  while (calls === 0 && performance.now() - started < 3000) {
    debouncer.trigger();
    await sleep(20);
  }
  debouncer.cancel();
  assert.equal(calls, 1);
  // The bound is 120 ms; allow for a loaded machine but not for "never".
  assert.ok(performance.now() - started < 2000);
});

Deno.test("Debouncer.cancel() drops the scheduled call", async () => {
  let calls = 0;
  const debouncer = new Debouncer(() => calls++, 20, 100);
  debouncer.trigger();
  debouncer.cancel();
  await sleep(80);
  assert.equal(calls, 0);
  assert.equal(debouncer.pending, false);
});
