import assert from "node:assert/strict";
import { ProtocolError } from "./errors.ts";
import { loadRequestSigning, RequestStateSigner } from "./_request_state.ts";

Deno.test("RequestStateSigner refuses state signed by another key, so only instances sharing the key resume a request", async () => {
  await loadRequestSigning();
  const one = new RequestStateSigner();
  const shared = new Uint8Array(32).fill(7);
  const a = new RequestStateSigner(shared);
  const b = new RequestStateSigner(shared);
  const state = a.sign("tools/call t", { k: { action: "accept" } });
  assert.deepEqual(b.verify("tools/call t", state), {
    k: { action: "accept" },
  });
  assert.throws(() => one.verify("tools/call t", state), ProtocolError);
  assert.throws(() => b.verify("tools/call t", 5), ProtocolError);
  assert.throws(() => b.verify("tools/call t", "no-dot"), ProtocolError);
});

Deno.test("RequestStateSigner refuses state issued for another request", async () => {
  await loadRequestSigning();
  const signer = new RequestStateSigner();
  const state = signer.sign("tools/call a", { k: 1 });
  assert.throws(
    () => signer.verify("tools/call b", state),
    /Invalid params for tools\/call: requestState: it was issued for another request than tools\/call b/,
  );
});
