import assert from "node:assert/strict";
import { readEvents, type SseEvent, sseEvents } from "./_sse.ts";

async function read(...chunks: string[]): Promise<SseEvent[]> {
  const encoder = new TextEncoder();
  const body = ReadableStream.from(chunks.map((c) => encoder.encode(c)));
  return await Array.fromAsync(sseEvents(body));
}

Deno.test("sseEvents() yields each event's data, id and retry, across chunk boundaries", async () => {
  assert.deepEqual(
    await read(
      "id: 1\nretry: 50\ndata",
      ': {"a":1}\n\n',
      ": keep-alive\n\n",
      "data: line one\r\ndata: line two\r\n\r\n",
      "id: 7\n\n",
    ),
    [
      { data: '{"a":1}', id: "1", retryMs: 50, complete: true },
      { data: "line one\nline two", id: "1", retryMs: 50, complete: true },
      // A resumption point: an id and no data.
      { data: undefined, id: "7", retryMs: 50, complete: true },
    ],
  );
});

Deno.test("sseEvents() passes on a last event the body ended without its blank line", async () => {
  assert.deepEqual(
    await read("id: 1\ndata: whole\n\nid: 2\ndata: last"),
    [
      { data: "whole", id: "1", retryMs: undefined, complete: true },
      { data: "last", id: "2", retryMs: undefined, complete: false },
    ],
  );
});

Deno.test("sseEvents() ignores a malformed retry and an id holding NUL", async () => {
  assert.deepEqual(
    await read("retry: soon\nid: a\0b\ndata: x\n\n"),
    [{ data: "x", id: undefined, retryMs: undefined, complete: true }],
  );
});

Deno.test("sseEvents() splits lines on CR, LF and a CRLF cut between chunks, and drops a leading BOM", async () => {
  assert.deepEqual(
    await read("\ufeffdata: a\r", "\ndata: b\rdata: c\r", "\r", "id: é\n\n"),
    [{ data: "a\nb\nc", id: undefined, retryMs: undefined, complete: true }, {
      data: undefined,
      id: "é",
      retryMs: undefined,
      complete: true,
    }],
  );
});

Deno.test("sseEvents() refuses an event over the bound and stops reading there", async (t) => {
  const encoder = new TextEncoder();
  /** An endless body: `head`, then `chunk` again and again; counts what was read. */
  const endless = (head: string, chunk: string) => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(head));
      },
      pull(controller) {
        pulled++;
        // Far past the bound: the reader has none.
        if (pulled * chunk.length > 100_000) {
          return controller.error(new Error("Read on without a bound"));
        }
        controller.enqueue(encoder.encode(chunk));
      },
    });
    return { body, pulled: () => pulled };
  };
  for (
    const [name, head, chunk] of [
      ["a data line that never ends", "id: 1\ndata: ", "x".repeat(100)],
      ["an event whose data lines never end", "data: {}\n", "data: xxxx\n"],
      ["a comment that never ends", ": ", "keep-alive "],
    ]
  ) {
    await t.step(name, async () => {
      const { body, pulled } = endless(head, chunk);
      const events: SseEvent[] = [];
      await assert.rejects(
        async () => {
          for await (const event of sseEvents(body, { maxEventBytes: 1000 })) {
            events.push(event);
          }
        },
        RangeError,
        "An SSE event from the server is too large: expected at most 1000 bytes, got more",
      );
      assert.deepEqual(events, []);
      // Read up to the bound (line breaks aside) and no further.
      const read = pulled() * chunk.length;
      assert.ok(read > 1000 && read < 1200, `${read} bytes read`);
    });
  }
  await t.step("events up to the bound pass", async () => {
    const event = `data: ${"x".repeat(994)}\n\n`;
    const events = await Array.fromAsync(
      sseEvents(ReadableStream.from([encoder.encode(event.repeat(3))]), {
        maxEventBytes: 1000,
      }),
    );
    assert.equal(events.length, 3);
  });
});

/**
 * A byte stream (as `fetch` gives a body) of `chunks`, each handed over as
 * one read; `views` gets a copy of the whole buffer each read was given.
 */
function byteBody(
  chunks: readonly string[],
  views: Uint8Array[] = [],
  cancelled: { value: boolean } = { value: false },
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream({
    type: "bytes",
    pull(controller: ReadableByteStreamController) {
      if (next === chunks.length) {
        controller.close();
        controller.byobRequest?.respond(0);
        return;
      }
      const bytes = encoder.encode(chunks[next++]);
      const request = controller.byobRequest;
      if (request?.view == null) {
        controller.enqueue(bytes);
        return;
      }
      const view = request.view as Uint8Array;
      views.push(new Uint8Array(view.buffer.slice(0)));
      new Uint8Array(view.buffer, view.byteOffset).set(bytes);
      request.respond(bytes.byteLength);
    },
    cancel() {
      cancelled.value = true;
    },
  });
}

/** Every event of `body`, through readEvents(). */
async function readAll(
  body: ReadableStream<Uint8Array>,
  options?: { maxEventBytes?: number },
): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  await readEvents(body, (event) => {
    events.push(event);
    return true;
  }, options);
  return events;
}

Deno.test("readEvents() reads a byte stream into a buffer the next body reuses, parsing only what each read filled", async () => {
  const long = "a".repeat(10_000);
  const first: Uint8Array[] = [];
  assert.deepEqual(
    await readAll(byteBody([`id: 1\ndata: ${long}\n\n`], first)),
    [{ data: long, id: "1", retryMs: undefined, complete: true }],
  );
  // Read into a buffer of its own, not one the stream allocates.
  assert.ok(first.length > 0);
  const later: Uint8Array[] = [];
  assert.deepEqual(
    await readAll(byteBody(["data: b", "\n\n", "data: c\n\n"], later)),
    [
      { data: "b", id: undefined, retryMs: undefined, complete: true },
      { data: "c", id: undefined, retryMs: undefined, complete: true },
    ],
  );
  // The later body got the buffer the first left, still holding its bytes
  // past what each read filled: none of them was parsed.
  const stale = new TextDecoder().decode(later[0].subarray(100, 200));
  assert.equal(stale, "a".repeat(100));
});

Deno.test("readEvents() keeps bodies read at once apart", async () => {
  const encoder = new TextEncoder();
  /** A byte stream of one chunk a read, each read held until `step()`. */
  const held = (chunks: string[]) => {
    let next = 0;
    const waiting: (() => void)[] = [];
    let pulled = () => {};
    const body = new ReadableStream({
      type: "bytes",
      async pull(controller: ReadableByteStreamController) {
        await new Promise<void>((resolve) => {
          waiting.push(resolve);
          pulled();
        });
        if (next === chunks.length) {
          controller.close();
          controller.byobRequest?.respond(0);
          return;
        }
        const bytes = encoder.encode(chunks[next++]);
        const view = controller.byobRequest!.view as Uint8Array;
        new Uint8Array(view.buffer, view.byteOffset).set(bytes);
        controller.byobRequest!.respond(bytes.byteLength);
      },
    });
    /** Lets the next read through, once it has been asked for. */
    const step = async () => {
      while (waiting.length === 0) {
        await new Promise<void>((resolve) => pulled = resolve);
      }
      waiting.shift()!();
    };
    return { body, step };
  };
  const a = held(['data: {"from"', ':"a"}\n', "\n"]);
  const b = held(['data: {"fr', 'om":"b"}\n\n']);
  const reading = [readAll(a.body), readAll(b.body)];
  // Their reads interleave: a, b, a, b, a, b (b's end), a (a's end).
  for (const body of [a, b, a, b, a, b, a]) await body.step();
  const [fromA, fromB] = await Promise.all(reading);
  assert.deepEqual(fromA.map((event) => event.data), ['{"from":"a"}']);
  assert.deepEqual(fromB.map((event) => event.data), ['{"from":"b"}']);
});

Deno.test("readEvents() reads a stream that is not a byte stream, and cancels a body it leaves early", async (t) => {
  const encoder = new TextEncoder();
  await t.step("a default stream is read as it comes", async () => {
    const chunks = ["id: 1\ndata", ': {"a":1}\n\n', "data: last"];
    assert.deepEqual(
      await readAll(ReadableStream.from(chunks.map((c) => encoder.encode(c)))),
      await Array.fromAsync(
        sseEvents(ReadableStream.from(chunks.map((c) => encoder.encode(c)))),
      ),
    );
  });
  await t.step("stopped by its handler", async () => {
    const cancelled = { value: false };
    const seen: SseEvent[] = [];
    await readEvents(
      byteBody(["data: 1\n\ndata: 2\n\n", "data: 3\n\n"], [], cancelled),
      (event) => {
        seen.push(event);
        return false;
      },
    );
    assert.deepEqual(seen.map((event) => event.data), ["1"]);
    assert.equal(cancelled.value, true);
  });
  await t.step("an event over the bound", async () => {
    const cancelled = { value: false };
    await assert.rejects(
      () =>
        readAll(
          byteBody(["data: ", "x".repeat(600), "x".repeat(600)], [], cancelled),
          { maxEventBytes: 1000 },
        ),
      RangeError,
      "An SSE event from the server is too large",
    );
    assert.equal(cancelled.value, true);
  });
});
