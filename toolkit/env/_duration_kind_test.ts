import assert from "node:assert/strict";
import { env } from "./kinds.ts";
import { problemsOf } from "./_test_helpers.ts";

Deno.test("env.duration() reads durations as whole milliseconds", async (t) => {
  const d = env.duration("TIMEOUT");
  const ms = (raw: string) => d.read(raw);

  await t.step("single units", () => {
    assert.deepEqual(ms("500ms"), { ok: true, value: 500 });
    assert.deepEqual(ms("5s"), { ok: true, value: 5000 });
    assert.deepEqual(ms("2m"), { ok: true, value: 120_000 });
    assert.deepEqual(ms("1h"), { ok: true, value: 3_600_000 });
    assert.deepEqual(ms("1d"), { ok: true, value: 86_400_000 });
    assert.deepEqual(ms("0"), { ok: true, value: 0 });
  });

  await t.step("combined units and fractions", () => {
    assert.deepEqual(ms("1h30m"), { ok: true, value: 5_400_000 });
    assert.deepEqual(ms("1m30s500ms"), { ok: true, value: 90_500 });
    assert.deepEqual(ms("1.5s"), { ok: true, value: 1500 });
    assert.deepEqual(ms("1.1s"), { ok: true, value: 1100 });
    assert.deepEqual(ms(".25s"), { ok: true, value: 250 });
    assert.deepEqual(ms("1.6ms"), { ok: true, value: 2 });
  });

  await t.step(
    "bare numbers, negatives, bad units and bad order are refused",
    () => {
      for (
        const raw of [
          "30",
          "-5s",
          "5 s",
          "5S",
          "5sec",
          "1h1h",
          "30m1h",
          "1s500",
          "s",
          "1.s",
          "1e3ms",
          "99999999999999999999d",
        ]
      ) {
        assert.deepEqual(ms(raw), { ok: false, missing: false }, raw);
      }
    },
  );

  await t.step("the message shows the accepted form", () => {
    const err = problemsOf({ d }, { TIMEOUT: "30" });
    assert.equal(
      err.problems[0].message,
      'TIMEOUT: expected a duration (such as 500ms, 5s, 2m, 1h30m), got "30"',
    );
  });

  await t.step("min and max, as text or milliseconds", () => {
    const bounded = env.duration("TIMEOUT", { min: 1000, max: "1h" });
    assert.equal(
      bounded.expected,
      "a duration from 1s to 1h (such as 500ms, 5s, 2m, 1h30m)",
    );
    assert.deepEqual(bounded.read("500ms"), { ok: false, missing: false });
    assert.deepEqual(bounded.read("2h"), { ok: false, missing: false });
    assert.deepEqual(bounded.read("1h"), { ok: true, value: 3_600_000 });
    assert.equal(
      env.duration("T", { min: 90_500 }).expected,
      "a duration of at least 1m30s500ms (such as 500ms, 5s, 2m, 1h30m)",
    );
  });

  await t.step(
    "defaults as text or milliseconds, checked at declaration",
    () => {
      assert.deepEqual(env.duration("T", { default: 250 }).read(undefined), {
        ok: true,
        value: 250,
      });
      assert.deepEqual(env.duration("T", { default: "2m" }).read(undefined), {
        ok: true,
        value: 120_000,
      });
      assert.throws(
        () => env.duration("T", { default: "5 seconds" }),
        RangeError,
      );
      assert.throws(() => env.duration("T", { default: -1 }), RangeError);
      assert.throws(
        () => env.duration("T", { default: "2h", max: "1h" }),
        RangeError,
      );
      assert.throws(
        () => env.duration("T", { min: "1h", max: "1m" }),
        RangeError,
      );
      assert.throws(() => env.duration("T", { max: "soon" }), TypeError);
    },
  );
});
