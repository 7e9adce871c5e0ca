import assert from "node:assert/strict";
import { summarise, TARGETS } from "./gate_aggregate.ts";

Deno.test("summarise() pools each case's samples and compares five servers with one", () => {
  const s = summarise({
    one: [{ call: [100, 102, 98], list: [500] }, {
      call: [101, 99, 100],
      list: [520],
    }],
    five: [{ call: [104, 106, 102], list: [1200] }, {
      call: [105, 103, 104],
      list: [1400],
    }],
    direct: [{ call: [50], list: [150] }, { call: [52], list: [150] }],
  });
  assert.equal(s.callUs.one, 100);
  assert.equal(s.callUs.five, 104);
  assert.equal(s.callRatio, 1.04);
  assert.ok(s.callRatio <= TARGETS.callRatio);
  assert.deepEqual(s.perRound, [1.04, 1.04]);
  // Nearest-rank p50s, 1200 and 500 µs, apart in ms.
  assert.equal(s.listExtraMs, 0.7);
});
