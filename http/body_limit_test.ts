import assert from "node:assert/strict";
import { ACCEPT, errorOf, INITIALIZE, post, start } from "./_test_helpers.ts";

Deno.test("a body over the limit gets 413 before anything is parsed", async (t) => {
  await using http = start({ maxBodyBytes: 1024 });
  const big = JSON.stringify({
    ...INITIALIZE,
    params: { ...INITIALIZE.params, pad: "x".repeat(2000) },
  });
  await t.step("with Content-Length", async () => {
    const response = await post(http.url, big);
    assert.equal(response.status, 413);
    assert.match((await errorOf(response)).message, /limit of 1024 bytes/);
  });
  await t.step("streamed without Content-Length", async () => {
    const bytes = new TextEncoder().encode(big);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.subarray(0, 600));
        controller.enqueue(bytes.subarray(600));
        controller.close();
      },
    });
    const response = await fetch(http.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: ACCEPT },
      body,
    });
    assert.equal(response.status, 413);
    await response.body?.cancel();
  });
  await t.step("the default limit is 4 MiB", async () => {
    await using defaults = start();
    const response = await post(
      defaults.url,
      JSON.stringify({ ...INITIALIZE, pad: "x".repeat(4 * 1024 * 1024) }),
    );
    assert.equal(response.status, 413);
    await response.body?.cancel();
  });
});
