import assert from "node:assert/strict";
import { checkWholeNumber } from "./whole_number.ts";

Deno.test("checkWholeNumber() returns a whole number in range", () => {
  assert.equal(checkWholeNumber("Cannot x", "n", 0), 0);
  assert.equal(checkWholeNumber("Cannot x", "n", 5, { min: 1, max: 5 }), 5);
  assert.equal(
    checkWholeNumber("Cannot x", "n", Infinity, { min: 1, or: Infinity }),
    Infinity,
  );
});

Deno.test("checkWholeNumber() says what was expected and what came", async (t) => {
  const cases: [unknown, Parameters<typeof checkWholeNumber>[3], string][] = [
    [0, { min: 1 }, "n must be a whole number >= 1, got 0"],
    [1.5, {}, "n must be a whole number >= 0, got 1.5"],
    [-1, {}, "n must be a whole number >= 0, got -1"],
    [NaN, {}, "n must be a whole number >= 0, got NaN"],
    ["3", {}, 'n must be a whole number >= 0, got "3"'],
    [
      70000,
      { max: 65535 },
      "n must be a whole number from 0 to 65535, got 70000",
    ],
    [Infinity, {}, "n must be a whole number >= 0, got Infinity"],
    [0, { min: 1, or: null }, "n must be a whole number >= 1 or null, got 0"],
    [2 ** 53, {}, "n must be a whole number >= 0, got 9007199254740992"],
    [
      0,
      { min: 1, unit: "milliseconds" },
      "n must be a whole number of milliseconds >= 1, got 0",
    ],
  ];
  for (const [value, options, message] of cases) {
    await t.step(`${String(value)} with ${JSON.stringify(options)}`, () => {
      assert.throws(
        () => checkWholeNumber("Cannot x", "n", value, options),
        new RangeError(`Cannot x: ${message}`),
      );
    });
  }
});
