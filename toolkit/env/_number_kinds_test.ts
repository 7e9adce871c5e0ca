import assert from "node:assert/strict";
import type { EnvVar } from "./env_var.ts";
import { env } from "./kinds.ts";

Deno.test("env.int() and env.number() accept only numbers within range", async (t) => {
  const workers = env.int("WORKERS", { min: 1, max: 64 });
  const ratio = env.number("RATIO", { min: 0, max: 1 });
  const read = (v: EnvVar<number>, raw: string) => v.read(raw);

  await t.step("integers, trimmed, signs and leading zeros allowed", () => {
    assert.deepEqual(read(workers, " 08 "), { ok: true, value: 8 });
    assert.deepEqual(read(workers, "+3"), { ok: true, value: 3 });
    assert.deepEqual(read(env.int("N"), "-0"), { ok: true, value: 0 });
    assert.ok(
      Object.is((read(env.int("N"), "-0") as { value: number }).value, 0),
    );
  });

  await t.step("non-integers and out-of-range values are refused", () => {
    for (const raw of ["1.5", "1e3", "0x10", "ten", "0", "65", "-1", "1_000"]) {
      assert.deepEqual(read(workers, raw), { ok: false, missing: false }, raw);
    }
    assert.deepEqual(read(env.int("N"), "9007199254740993"), {
      ok: false,
      missing: false,
    });
  });

  await t.step("numbers in decimal and exponent forms", () => {
    assert.deepEqual(read(ratio, "0.25"), { ok: true, value: 0.25 });
    assert.deepEqual(read(ratio, ".5"), { ok: true, value: 0.5 });
    assert.deepEqual(read(ratio, "5e-1"), { ok: true, value: 0.5 });
    for (const raw of ["1.5", "-0.1", "NaN", "Infinity", "0x1", "1,5", "."]) {
      assert.deepEqual(read(ratio, raw), { ok: false, missing: false }, raw);
    }
    assert.deepEqual(read(env.number("N"), "1e400"), {
      ok: false,
      missing: false,
    });
  });

  await t.step("the expected form names the range", () => {
    assert.equal(env.int("N").expected, "an integer");
    assert.equal(env.int("N", { min: 1 }).expected, "an integer >= 1");
    assert.equal(env.int("N", { max: 9 }).expected, "an integer <= 9");
    assert.equal(ratio.expected, "a number from 0 to 1");
  });

  await t.step("bad options and defaults fail at declaration", () => {
    assert.throws(() => env.int("N", { min: 5, max: 1 }), RangeError);
    assert.throws(
      () => env.int("WORKERS", { default: 0, min: 1 }),
      (err: unknown) =>
        err instanceof RangeError &&
        err.message ===
          "Invalid default for WORKERS: expected an integer >= 1, got 0",
    );
    assert.throws(() => env.int("N", { default: 1.5 }), RangeError);
    assert.throws(
      () => env.int("N", { default: "4" as unknown as number }),
      TypeError,
    );
    assert.throws(
      () => env.number("N", { min: "0" as unknown as number }),
      TypeError,
    );
  });
});

Deno.test("env.port() accepts 1-65535 only", async (t) => {
  const port = env.port("PORT");
  await t.step("valid ports", () => {
    assert.deepEqual(port.read("1"), { ok: true, value: 1 });
    assert.deepEqual(port.read(" 65535 "), { ok: true, value: 65535 });
  });
  await t.step("invalid ports", () => {
    for (const raw of ["0", "65536", "-80", "80.0", "http", "8080a"]) {
      assert.deepEqual(port.read(raw), { ok: false, missing: false }, raw);
    }
  });
  await t.step("an out-of-range default fails at declaration", () => {
    assert.throws(
      () => env.port("PORT", { default: 70000 }),
      (err: unknown) =>
        err instanceof RangeError &&
        err.message ===
          "Invalid default for PORT: expected a port number from 1 to 65535, got 70000",
    );
  });
});
