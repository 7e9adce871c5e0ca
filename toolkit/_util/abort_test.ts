import assert from "node:assert/strict";
import { LazyAbort } from "./abort.ts";

Deno.test("LazyAbort makes its signal on demand, born aborted when the abort came first", () => {
  const abort = new LazyAbort();
  abort.abort("late read");
  assert.equal(abort.signal.aborted, true);
  assert.equal(abort.signal.reason, "late read");
  const early = new LazyAbort();
  const signal = early.signal;
  early.abort("now");
  assert.equal(signal.aborted, true);
});

Deno.test("LazyAbort.race() settles at the abort without waiting for the work", async () => {
  const abort = new LazyAbort();
  const never = new Promise<string>(() => {});
  const raced = abort.race(never);
  abort.abort(new Error("timed out"));
  await assert.rejects(raced, { message: "timed out" });
  assert.equal(await new LazyAbort().race(Promise.resolve("done")), "done");
});

Deno.test("LazyAbort calls each abort listener once, and late listeners at once", () => {
  const abort = new LazyAbort();
  const heard: unknown[] = [];
  abort.onabort((reason) => heard.push(reason));
  abort.abort("first");
  abort.abort("second");
  abort.onabort((reason) => heard.push(`late ${reason}`));
  assert.deepEqual(heard, ["first", "late first"]);
});
