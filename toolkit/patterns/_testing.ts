// Helpers the tests of patterns/ and policy/ share.

import assert from "node:assert/strict";
import { ToolError } from "../result/result.ts";

/** What a case expects: the exact output, or a ToolError whose message matches. */
export type Expect = string | readonly string[] | { refused: RegExp };

export function refused(pattern: RegExp): { refused: RegExp } {
  return { refused: pattern };
}

export function check(run: () => unknown, expect: Expect): void {
  if (typeof expect === "object" && "refused" in expect) {
    assert.throws(run, (error: unknown) => {
      assert.ok(error instanceof ToolError, `expected a ToolError: ${error}`);
      assert.match(error.message, expect.refused);
      return true;
    });
  } else {
    assert.deepStrictEqual(run(), expect);
  }
}

/** A small seeded generator (mulberry32), so random cases repeat. */
export function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
