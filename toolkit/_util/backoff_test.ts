import assert from "node:assert/strict";
import {
  Backoff,
  BACKOFF_FIRST_MS,
  BACKOFF_MAX_MS,
  BACKOFF_STABLE_MS,
  formatWait,
} from "./backoff.ts";

Deno.test("Backoff doubles the wait with each end, up to its bound", () => {
  const backoff = new Backoff();
  const waits = Array.from({ length: 10 }, () => backoff.next(0));
  assert.deepEqual(waits.slice(0, 4), [250, 500, 1000, 2000]);
  assert.equal(Math.max(...waits), BACKOFF_MAX_MS);
  assert.equal(waits.at(-1), BACKOFF_MAX_MS);
});

Deno.test("Backoff starts over after a run that lasted, not after a short one", () => {
  const backoff = new Backoff();
  backoff.next(0);
  backoff.next(0);
  backoff.up(1000);
  assert.equal(backoff.next(1000 + BACKOFF_STABLE_MS - 1), 1000);
  backoff.up(5000);
  assert.equal(backoff.next(5000 + BACKOFF_STABLE_MS), BACKOFF_FIRST_MS);
  // A start that failed (never up) does not count as a run.
  assert.equal(backoff.next(10 * BACKOFF_STABLE_MS), 500);
});

Deno.test("formatWait() says milliseconds below a second, seconds above", () => {
  assert.equal(formatWait(250), "250 ms");
  assert.equal(formatWait(2000), "2 s");
  assert.equal(formatWait(30_000), "30 s");
});
