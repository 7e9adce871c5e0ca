import assert from "node:assert/strict";
import { type SseEvent, sseEvents } from "./_sse.ts";

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
