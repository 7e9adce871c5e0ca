import assert from "node:assert/strict";
import { constantTimeEqual } from "./constant_time_equal.ts";

Deno.test("constantTimeEqual() is true only for the same bytes of the same length", async (t) => {
  const bytes = (...values: number[]) => new Uint8Array(values);
  await t.step(
    "same",
    () => assert.equal(constantTimeEqual(bytes(1, 2, 3), bytes(1, 2, 3)), true),
  );
  await t.step(
    "one byte differs",
    () =>
      assert.equal(constantTimeEqual(bytes(1, 2, 3), bytes(1, 2, 4)), false),
  );
  await t.step(
    "a prefix",
    () => assert.equal(constantTimeEqual(bytes(1, 2), bytes(1, 2, 3)), false),
  );
  await t.step(
    "longer",
    () => assert.equal(constantTimeEqual(bytes(1, 2, 3), bytes(1, 2)), false),
  );
  await t.step(
    "both empty",
    () => assert.equal(constantTimeEqual(bytes(), bytes()), true),
  );
});
