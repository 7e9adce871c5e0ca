// Internal: reading a text/event-stream body, as far as an MCP client needs:
// each event's data, the last event id (to resume the stream from with
// Last-Event-ID), and the reconnection time the server asks for. Lines are
// found in the bytes (CR and LF never occur inside a UTF-8 sequence), so
// that a long line costs one pass, and an event is bounded: a server cannot
// make the gate hold more than the bound for one event.

import { MAX_MESSAGE_BYTES, TooLargeError } from "./_bounded_body.ts";

const LF = 0x0a;
const CR = 0x0d;

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

/** Options for {@linkcode sseEvents}. */
export interface SseOptions {
  /**
   * The most bytes the lines of one event may hold; one more and the stream
   * is cancelled with a {@linkcode TooLargeError}.
   *
   * @default {MAX_MESSAGE_BYTES}
   */
  maxEventBytes?: number;
}

/**
 * The events of an SSE stream, in order. An event that carries only an id
 * (a resumption point) or a `retry` is yielded too, with no data.
 */
export async function* sseEvents(
  body: ReadableStream<Uint8Array>,
  options: SseOptions = {},
): AsyncGenerator<SseEvent> {
  const max = options.maxEventBytes ?? MAX_MESSAGE_BYTES;
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  let data: string[] = [];
  let id: string | undefined;
  let retryMs: number | undefined;
  let touched = false;
  /** Bytes of the event being built: its lines kept so far. */
  let eventBytes = 0;
  /** The line being read, in pieces, and its length. */
  let pieces: Uint8Array[] = [];
  let lineBytes = 0;
  /** A CR ended the last chunk: an LF starting the next belongs to it. */
  let afterCr = false;
  let first = true;
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
    eventBytes = 0;
    return event;
  };
  const grow = (bytes: Uint8Array) => {
    lineBytes += bytes.byteLength;
    if (eventBytes + lineBytes > max) {
      throw new TooLargeError("An SSE event from the server", max);
    }
    pieces.push(bytes);
  };
  /** The line read, decoded; `first` drops the stream's byte order mark. */
  const line = (): string => {
    let bytes = pieces.length === 1 ? pieces[0] : concat(pieces, lineBytes);
    if (first && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
      bytes = bytes.subarray(3);
    }
    first = false;
    const size = lineBytes;
    pieces = [];
    lineBytes = 0;
    const text = decoder.decode(bytes);
    // Only what the event keeps counts towards its bound.
    if (!text.startsWith(":")) eventBytes += size;
    return text;
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
    let at = 0;
    if (afterCr && chunk[0] === LF) at = 1;
    afterCr = false;
    let lf = chunk.indexOf(LF, at);
    let cr = chunk.indexOf(CR, at);
    while (lf !== -1 || cr !== -1) {
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      grow(chunk.subarray(at, end));
      at = end + 1;
      if (chunk[end] === CR) {
        if (at === chunk.length) afterCr = true;
        else if (chunk[at] === LF) at++;
      }
      if (lf !== -1 && lf < at) lf = chunk.indexOf(LF, at);
      if (cr !== -1 && cr < at) cr = chunk.indexOf(CR, at);
      const text = line();
      if (text !== "") {
        take(text);
        continue;
      }
      const event = dispatch();
      if (event !== undefined) yield event;
    }
    // The start of a line: kept (copied, the chunk is not) for the next chunk.
    if (at < chunk.length) grow(chunk.slice(at));
  }
  if (lineBytes > 0) take(line());
  // A last event without its blank line is still passed on, marked: some
  // servers end the body right after the data, and a cut one fails to parse.
  const last = dispatch(false);
  if (last !== undefined) yield last;
}

/** `pieces` (`size` bytes in all) as one array. */
function concat(pieces: Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const piece of pieces) {
    bytes.set(piece, at);
    at += piece.byteLength;
  }
  return bytes;
}
