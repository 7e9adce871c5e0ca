// Internal: reading a text/event-stream body, as far as an MCP client needs:
// each event's data, the last event id (to resume the stream from with
// Last-Event-ID), and the reconnection time the server asks for.

/** One dispatched event of an SSE stream. */
export interface SseEvent {
  /** Its data lines, joined; `undefined` for an event without data. */
  data: string | undefined;
  /** The stream's last event id once this event is dispatched. */
  id: string | undefined;
  /** The reconnection time the stream set, in milliseconds, if it set one. */
  retryMs: number | undefined;
  /**
   * `false` for a last event the body ended without its blank line: its
   * data may have been cut anywhere.
   */
  complete: boolean;
}

/**
 * The events of an SSE stream, in order. An event that carries only an id
 * (a resumption point) or a `retry` is yielded too, with no data.
 */
export async function* sseEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  let id: string | undefined;
  let retryMs: number | undefined;
  let touched = false;
  const dispatch = (complete = true): SseEvent | undefined => {
    const event = touched
      ? {
        data: data.length > 0 ? data.join("\n") : undefined,
        id,
        retryMs,
        complete,
      }
      : undefined;
    data = [];
    touched = false;
    return event;
  };
  /** Takes one line that is not blank into the event being built. */
  const take = (line: string) => {
    const colon = line.indexOf(":");
    // A line starting with a colon is a comment (a keep-alive).
    if (colon === 0) return;
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") {
      data.push(value);
      touched = true;
    } else if (field === "id" && !value.includes("\0")) {
      id = value;
      touched = true;
    } else if (field === "retry" && /^\d+$/.test(value)) {
      retryMs = Number(value);
      touched = true;
    }
  };
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffer.search(/\r\n|\r|\n/)) !== -1) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer.startsWith("\r\n", end) ? 2 : 1));
      if (line !== "") {
        take(line);
        continue;
      }
      const event = dispatch();
      if (event !== undefined) yield event;
    }
  }
  buffer += decoder.decode();
  if (buffer !== "") take(buffer);
  // A last event without its blank line is still passed on, marked: some
  // servers end the body right after the data, and a cut one fails to parse.
  const last = dispatch(false);
  if (last !== undefined) yield last;
}
