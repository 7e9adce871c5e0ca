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
