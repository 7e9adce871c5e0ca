import assert from "node:assert/strict";
import { bodyLimit, DEFAULT_BODY_DEADLINE_MS } from "./body_limit.ts";
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
Deno.test("bodyLimit() alone: 413 for a body over the limit, declared or streamed", async () => {
  const limit = bodyLimit({ maxBodyBytes: 8 });
  const echo = async (request: Request) => new Response(await request.text());
  const small = await limit(
    new Request("http://localhost/", { method: "POST", body: "12345678" }),
    echo,
  );
  assert.equal(await small.text(), "12345678");
  const declared = await limit(
    new Request("http://localhost/", { method: "POST", body: "x".repeat(9) }),
    echo,
  );
  assert.equal(declared.status, 413);
  assert.match((await errorOf(declared)).message, /limit of 8 bytes/);
  const streamed = await limit(
    new Request("http://localhost/", {
      method: "POST",
      body: ReadableStream.from([new Uint8Array(5), new Uint8Array(5)]),
    }),
    echo,
  );
  assert.equal(streamed.status, 413);
  await streamed.body?.cancel();
});

Deno.test("bodyLimit() alone: reads nothing a handler does not ask for", async () => {
  const limit = bodyLimit({ maxBodyBytes: 8 });
  let pulled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled = true;
      controller.enqueue(new Uint8Array(100));
    },
  }, { highWaterMark: 0 });
  const response = await limit(
    new Request("http://localhost/", { method: "POST", body }),
    () => Promise.resolve(new Response(null, { status: 406 })),
  );
  // The handler's own refusal stands; the body was never touched.
  assert.equal(response.status, 406);
  assert.equal(pulled, false);
  const noBody = await limit(
    new Request("http://localhost/"),
    (request) => Promise.resolve(new Response(String(request.body))),
  );
  assert.equal(await noBody.text(), "null");
});

Deno.test("bodyLimit() alone: a body slower than the deadline gets 408 and is cancelled", async () => {
  const limit = bodyLimit({ bodyDeadlineMs: 50 });
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("{"));
    },
    cancel() {
      cancelled = true;
    },
  });
  const started = performance.now();
  const response = await limit(
    new Request("http://localhost/", { method: "POST", body }),
    async (request) => new Response(await request.text()),
  );
  assert.equal(response.status, 408);
  assert.equal(response.headers.get("connection"), "close");
  assert.match(
    (await errorOf(response)).message,
    /^Request Timeout: the body did not arrive within 50 ms$/,
  );
  assert.ok(performance.now() - started < 1000);
  assert.ok(cancelled, "the rest of the body is cancelled");
});

Deno.test("bodyLimit() alone: errors that are not its own pass through", async () => {
  const limit = bodyLimit();
  await assert.rejects(
    () =>
      limit(
        new Request("http://localhost/", { method: "POST", body: "{}" }),
        () => Promise.reject(new Error("handler broke")),
      ),
    /handler broke/,
  );
});

Deno.test("bodyLimit() rejects out-of-range options", () => {
  assert.throws(
    () => bodyLimit({ bodyDeadlineMs: 0 }),
    (error: Error) =>
      error instanceof RangeError &&
      error.message ===
        "Cannot create HTTP handler: bodyDeadlineMs must be a whole number >= 1, got 0",
  );
  assert.throws(() => bodyLimit({ maxBodyBytes: 1.5 }), RangeError);
  assert.equal(DEFAULT_BODY_DEADLINE_MS, 5000);
});

Deno.test("a client sending its body a byte at a time gets 408 within the deadline", async () => {
  await using http = start({ bodyDeadlineMs: 300 });
  const conn = await Deno.connect({
    hostname: "127.0.0.1",
    port: http.addr.port,
  });
  const body = JSON.stringify(INITIALIZE);
  const encoder = new TextEncoder();
  await conn.write(encoder.encode(
    [
      "POST /mcp HTTP/1.1",
      `host: 127.0.0.1:${http.addr.port}`,
      "content-type: application/json",
      `accept: ${ACCEPT}`,
      `content-length: ${body.length}`,
      "",
      "",
    ].join("\r\n"),
  ));
  // A byte every 100 ms: the whole body would take tens of seconds.
  let sent = 0;
  const trickle = setInterval(() => {
    conn.write(encoder.encode(body[sent++])).catch(() =>
      clearInterval(trickle)
    );
  }, 100);
  const started = performance.now();
  const reader = conn.readable.pipeThrough(new TextDecoderStream())
    .getReader();
  let reply = "";
  try {
    while (!reply.includes("did not arrive")) {
      const { value, done } = await reader.read();
      if (done) break;
      reply += value;
    }
    const elapsed = performance.now() - started;
    assert.match(reply, /^HTTP\/1\.1 408 /);
    assert.match(reply, /^connection: close\r$/m);
    assert.match(reply, /did not arrive within 300 ms/);
    assert.ok(elapsed < 3000, `took ${elapsed} ms`);
    assert.ok(sent < body.length, "answered before the body was complete");
  } finally {
    clearInterval(trickle);
    await reader.cancel().catch(() => {});
    try {
      conn.close();
    } catch {
      // Already closed by the server.
    }
  }
});
