import assert from "node:assert/strict";
import { GATE_ID_PREFIX, IdSpace } from "./_ids.ts";

Deno.test("IdSpace passes a peer's ids unchanged unless they enter the gate's space", () => {
  const ids = new IdSpace();
  assert.equal(ids.forward(1), 1);
  assert.equal(ids.forward("abc"), "abc");
  assert.equal(ids.settle(1), 1);
  assert.equal(ids.settle("abc"), "abc");
  assert.equal(ids.rewrites, 0);
});

Deno.test("IdSpace rewrites a peer's id that starts with the gate's prefix, and restores it once", () => {
  const ids = new IdSpace();
  const own = ids.own();
  assert.equal(own, `${GATE_ID_PREFIX}1`);
  const far = ids.forward(own);
  assert.notEqual(far, own);
  assert.equal(ids.isOwn(far), false);
  assert.equal(ids.isOwn(own), true);
  assert.equal(ids.sentAs(own), far);
  assert.equal(ids.settle(far), own);
  assert.equal(ids.settle(far), undefined, "a second answer is not restored");
  assert.equal(ids.rewrites, 0);
});

Deno.test("IdSpace's own ids never equal a forwarded one", () => {
  const ids = new IdSpace();
  const sent = new Set<unknown>();
  for (let i = 0; i < 100; i++) {
    for (
      const id of [
        ids.own(),
        ids.forward(`${GATE_ID_PREFIX}${i}`),
        ids.forward(i),
      ]
    ) {
      assert.equal(sent.has(id), false, `id ${String(id)} went out twice`);
      sent.add(id);
    }
  }
  assert.equal(ids.isOwn(`${GATE_ID_PREFIX}r5`), false);
  assert.equal(ids.isOwn(5), false);
});
