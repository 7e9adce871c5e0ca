import assert from "node:assert/strict";
import { PendingRequests } from "./_pending_requests.ts";
import type { JsonRpcMessage } from "./types.ts";

function answer(id: string | number, value: unknown): JsonRpcMessage {
  return { jsonrpc: "2.0", id, result: { value } };
}

Deno.test("PendingRequests hands each answer to the request sent under its id, once", async (t) => {
  await t.step(
    "answers arriving out of order reach their own requests",
    async () => {
      const pending = new PendingRequests();
      const first = pending.expect(1);
      const second = pending.expect(2);
      assert.equal(pending.size, 2);
      assert.equal(pending.settle(2, answer(2, "b")), true);
      assert.equal(pending.settle(1, answer(1, "a")), true);
      assert.deepEqual(await first, answer(1, "a"));
      assert.deepEqual(await second, answer(2, "b"));
      assert.equal(pending.size, 0);
    },
  );

  await t.step('an id matches by type and value: "1" is not 1', async () => {
    const pending = new PendingRequests();
    const numbered = pending.expect(1);
    assert.equal(pending.settle("1", answer("1", "spoof")), false);
    assert.equal(pending.size, 1);
    pending.settle(1, answer(1, "real"));
    assert.deepEqual(await numbered, answer(1, "real"));
  });

  await t.step(
    "a second answer, or one nothing waits for, is not taken",
    async () => {
      const pending = new PendingRequests<string>();
      const only = pending.expect("g1");
      assert.equal(pending.settle("g1", answer("g1", "first")), true);
      assert.equal(pending.settle("g1", answer("g1", "second")), false);
      assert.equal(pending.settle("g2", answer("g2", "stray")), false);
      assert.deepEqual(await only, answer("g1", "first"));
    },
  );

  await t.step("waiting twice under one id is refused", () => {
    const pending = new PendingRequests();
    pending.expect(7);
    assert.throws(() => pending.expect(7), RangeError);
    assert.equal(pending.size, 1);
  });
});

Deno.test("PendingRequests fails every waiting request when the connection fails", async () => {
  const pending = new PendingRequests();
  const waits = [pending.expect(1), pending.expect("two")];
  pending.failAll("The server has stopped");
  assert.equal(pending.size, 0);
  for (const wait of waits) {
    await assert.rejects(wait, {
      name: "Error",
      message: "The server has stopped",
    });
  }
  assert.equal(pending.settle(1, answer(1, "late")), false);
});
