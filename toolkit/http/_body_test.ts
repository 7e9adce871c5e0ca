import assert from "node:assert/strict";
import { BodyRefusal, markBody, readBodyText } from "./_body.ts";

const post = (body: BodyInit) =>
  new Request("http://localhost/", { method: "POST", body });

async function refusal(read: Promise<unknown>): Promise<number> {
  const error = await read.then(() => undefined, (error) => error);
  assert.ok(error instanceof BodyRefusal, `expected a refusal, got ${error}`);
  return error.status;
}

Deno.test("readBodyText() reads a marked body within its limits as text() would", async (t) => {
  await t.step("declared", async () => {
    const request = post("héllo \u{1F600}");
    markBody(request, 64, 1000);
    assert.equal(await readBodyText(request), "héllo \u{1F600}");
  });
  await t.step("in chunks, a character split between them", async () => {
    const bytes = new TextEncoder().encode("\uFEFFabc é");
    const request = post(ReadableStream.from([
      bytes.subarray(0, 6),
      bytes.subarray(6),
    ]));
    markBody(request, 64, 1000);
    // text() drops a leading byte-order mark; so does this read.
    assert.equal(await readBodyText(request), "abc é");
  });
  await t.step("exactly at the limit", async () => {
    const request = post("12345678");
    markBody(request, 8, 1000);
    assert.equal(await readBodyText(request), "12345678");
  });
  await t.step("unmarked, or answered already: text() itself", async () => {
    assert.equal(await readBodyText(post("x".repeat(100))), "x".repeat(100));
    const request = post("x".repeat(100));
    markBody(request, 8, 1000).done();
    assert.equal(await readBodyText(request), "x".repeat(100));
  });
});

Deno.test("readBodyText() refuses a marked body over its limit with 413, declared or streamed", async () => {
  const declared = post("x".repeat(9));
  markBody(declared, 8, 1000);
  assert.equal(await refusal(readBodyText(declared)), 413);

  let cancelled = false;
  let pulls = 0;
  const streamed = post(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        controller.enqueue(new Uint8Array(5));
      },
      cancel() {
        cancelled = true;
      },
    }),
  );
  markBody(streamed, 8, 1000);
  assert.equal(await refusal(readBodyText(streamed)), 413);
  assert.ok(cancelled, "the rest of the body is cancelled");
  assert.ok(pulls <= 3, `stopped reading at the limit, pulled ${pulls} chunks`);
});

Deno.test("readBodyText() refuses a marked body slower than its deadline with 408 and cancels it", async (t) => {
  await t.step("the deadline ends during the read", async () => {
    let cancelled = false;
    const request = post(
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("{"));
        },
        cancel() {
          cancelled = true;
        },
      }),
    );
    markBody(request, 64, 50);
    const started = performance.now();
    assert.equal(await refusal(readBodyText(request)), 408);
    const took = performance.now() - started;
    assert.ok(took >= 40 && took < 1000, `refused after ${took} ms`);
    assert.ok(cancelled, "the rest of the body is cancelled");
  });
  await t.step("counted from the mark, not from the read", async () => {
    let cancelled = false;
    const request = post(
      new ReadableStream<Uint8Array>({
        cancel() {
          cancelled = true;
        },
      }),
    );
    markBody(request, 64, 20);
    // Time itself: the deadline must pass between the mark and the read.
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(await refusal(readBodyText(request)), 408);
    assert.ok(cancelled);
  });
});

Deno.test("readBodyText() lets a failure of the body itself through", async () => {
  const request = post(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error("connection reset"));
      },
    }),
  );
  markBody(request, 64, 1000);
  await assert.rejects(() => readBodyText(request), /connection reset/);
});

Deno.test("readBodyText() holds reads in progress at once each to its own deadline", async () => {
  const stalled = () => post(new ReadableStream<Uint8Array>({ pull() {} }));
  const started = performance.now();
  const slow = stalled();
  markBody(slow, 64, 300);
  const slowRead = refusal(readBodyText(slow)).then((status) => ({
    status,
    at: performance.now() - started,
  }));
  // An earlier deadline than the one the shared timer waits for.
  const quick = stalled();
  markBody(quick, 64, 30);
  const quickStatus = await refusal(readBodyText(quick));
  const quickAt = performance.now() - started;
  assert.equal(quickStatus, 408);
  assert.ok(quickAt < 250, `the 30 ms deadline ended at ${quickAt} ms`);
  // A body that arrives in time is read whole meanwhile.
  const fine = post("{}");
  markBody(fine, 64, 1000);
  assert.equal(await readBodyText(fine), "{}");
  const late = await slowRead;
  assert.equal(late.status, 408);
  assert.ok(late.at >= 280, `the 300 ms deadline ended at ${late.at} ms`);
});
