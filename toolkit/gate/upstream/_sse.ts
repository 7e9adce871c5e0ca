// Internal: reading a text/event-stream body, as far as an MCP client needs:
// each event's data, the last event id (to resume the stream from with
// Last-Event-ID), and the reconnection time the server asks for. Lines are
// found in the bytes (CR and LF never occur inside a UTF-8 sequence), so
// that a long line costs one pass, and an event is bounded: a server cannot
// make the gate hold more than the bound for one event.

import { MAX_MESSAGE_BYTES, TooLargeError } from "./_bounded_body.ts";

const LF = 0x0a;
const CR = 0x0d;
/**
 * One decoder for every stream: a line ends at CR or LF, never inside a
 * UTF-8 sequence, so each line is decoded whole and keeps no state here.
 * The BOM is dropped by the parser, once, at the start of its stream.
 */
const DECODER = new TextDecoder("utf-8", { ignoreBOM: true });

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
  const parser = new SseParser(options);
  for await (const chunk of body) yield* parser.push(chunk);
  const last = parser.end();
  if (last !== undefined) yield last;
}

/** The size of the buffers SSE bodies are read into. */
const CHUNK_BYTES = 16 * 1024;
/** How many idle buffers are kept for the next body. */
const IDLE_BUFFERS = 64;
const idle: ArrayBuffer[] = [];

/**
 * Hands each event of an SSE body to `each`, in order, until the body ends
 * or `each` returns `false`. A body left before its end (`false`, an
 * error, an event over the bound) is cancelled.
 */
export async function readEvents(
  body: ReadableStream<Uint8Array>,
  each: (event: SseEvent) => boolean,
  options: SseOptions = {},
): Promise<void> {
  const parser = new SseParser(options);
  const chunks = new ChunkReader(body);
  let ended = false;
  try {
    for (;;) {
      const chunk = await chunks.read();
      if (chunk === undefined) {
        ended = true;
        const last = parser.end();
        if (last !== undefined) each(last);
        return;
      }
      for (const event of parser.push(chunk)) {
        if (!each(event)) return;
      }
    }
  } finally {
    // Nothing keeps a view of the buffer once a chunk is parsed (the parser
    // copies what it keeps): an ended body's buffer serves the next.
    if (ended) chunks.recycle();
    else await chunks.cancel();
  }
}

/**
 * The chunks of a body. A byte stream (what `fetch` gives) is read into a
 * buffer of its own, taken from the idle ones: `fetch`'s default reader
 * allocates 64 KiB for every read, two or three on every answer, and the
 * garbage collector then spent more on them than the parsing did. Only
 * the bytes a read filled are handed on. The reader is never released:
 * nothing reads the body after this, and a release costs a TypeError made
 * for the reader's closed promise.
 */
class ChunkReader {
  readonly #byob: ReadableStreamBYOBReader | undefined;
  readonly #plain: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** The buffer, while this reader holds it (a read lends it to the stream). */
  #buffer: ArrayBuffer | undefined;

  constructor(body: ReadableStream<Uint8Array>) {
    try {
      this.#byob = body.getReader({ mode: "byob" });
      this.#buffer = idle.pop() ?? new ArrayBuffer(CHUNK_BYTES);
    } catch {
      // Not a byte stream: read as it comes.
      this.#plain = body.getReader();
    }
  }

  /** The next chunk; `undefined` at the end. */
  async read(): Promise<Uint8Array | undefined> {
    if (this.#byob === undefined) {
      const { value, done } = await this.#plain!.read();
      return done ? undefined : value;
    }
    const lent = this.#buffer!;
    this.#buffer = undefined;
    const { value, done } = await this.#byob.read(new Uint8Array(lent));
    // The stream gives the buffer back as the result's.
    this.#buffer = value?.buffer as ArrayBuffer | undefined;
    return done ? undefined : value;
  }

  /** Keeps the buffer for the next body: call it once the body has ended. */
  recycle(): void {
    const buffer = this.#buffer;
    this.#buffer = undefined;
    if (buffer?.byteLength === CHUNK_BYTES && idle.length < IDLE_BUFFERS) {
      idle.push(buffer);
    }
  }

  /** Cancels the body; its buffer is not kept. */
  async cancel(): Promise<void> {
    this.#buffer = undefined;
    await (this.#byob ?? this.#plain)!.cancel().catch(() => {});
  }
}

/**
 * The same reading as {@linkcode sseEvents}, fed one chunk at a time: what
 * reads a body with its own reader gets each chunk's events at once, with
 * no generator and no promise per event on an answer's path.
 */
export class SseParser {
  readonly #max: number;
  #data: string[] = [];
  #id: string | undefined;
  #retryMs: number | undefined;
  #touched = false;
  /** Bytes of the event being built: its lines kept so far. */
  #eventBytes = 0;
  /** The line being read, in pieces, and its length. */
  #pieces: Uint8Array[] = [];
  #lineBytes = 0;
  /** A CR ended the last chunk: an LF starting the next belongs to it. */
  #afterCr = false;
  #first = true;

  /** A parser of one stream, bounding each event by `options`. */
  constructor(options: SseOptions = {}) {
    this.#max = options.maxEventBytes ?? MAX_MESSAGE_BYTES;
  }

  /**
   * The events `chunk` completes, in order; a {@linkcode TooLargeError}
   * once an event holds more than the bound.
   */
  push(chunk: Uint8Array): SseEvent[] {
    const events: SseEvent[] = [];
    let at = 0;
    if (this.#afterCr && chunk[0] === LF) at = 1;
    this.#afterCr = false;
    let lf = chunk.indexOf(LF, at);
    let cr = chunk.indexOf(CR, at);
    while (lf !== -1 || cr !== -1) {
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      this.#grow(chunk.subarray(at, end));
      at = end + 1;
      if (chunk[end] === CR) {
        if (at === chunk.length) this.#afterCr = true;
        else if (chunk[at] === LF) at++;
      }
      if (lf !== -1 && lf < at) lf = chunk.indexOf(LF, at);
      if (cr !== -1 && cr < at) cr = chunk.indexOf(CR, at);
      const text = this.#line();
      if (text !== "") {
        this.#take(text);
        continue;
      }
      const event = this.#dispatch(true);
      if (event !== undefined) events.push(event);
    }
    // The start of a line: kept (copied, the chunk is not) for the next chunk.
    if (at < chunk.length) this.#grow(chunk.slice(at));
    return events;
  }

  /**
   * At the end of the body: a last event without its blank line, still
   * passed on, marked: some servers end the body right after the data,
   * and a cut one fails to parse.
   */
  end(): SseEvent | undefined {
    if (this.#lineBytes > 0) this.#take(this.#line());
    return this.#dispatch(false);
  }

  #dispatch(complete: boolean): SseEvent | undefined {
    const event = this.#touched
      ? {
        data: this.#data.length > 0 ? this.#data.join("\n") : undefined,
        id: this.#id,
        retryMs: this.#retryMs,
        complete,
      }
      : undefined;
    this.#data = [];
    this.#touched = false;
    this.#eventBytes = 0;
    return event;
  }

  #grow(bytes: Uint8Array): void {
    this.#lineBytes += bytes.byteLength;
    if (this.#eventBytes + this.#lineBytes > this.#max) {
      throw new TooLargeError("An SSE event from the server", this.#max);
    }
    this.#pieces.push(bytes);
  }

  /** The line read, decoded; the first drops the stream's byte order mark. */
  #line(): string {
    const pieces = this.#pieces;
    let bytes = pieces.length === 1
      ? pieces[0]
      : concat(pieces, this.#lineBytes);
    if (
      this.#first && bytes[0] === 0xef && bytes[1] === 0xbb &&
      bytes[2] === 0xbf
    ) {
      bytes = bytes.subarray(3);
    }
    this.#first = false;
    const size = this.#lineBytes;
    this.#pieces = [];
    this.#lineBytes = 0;
    const text = DECODER.decode(bytes);
    // Only what the event keeps counts towards its bound.
    if (!text.startsWith(":")) this.#eventBytes += size;
    return text;
  }

  /** Takes one line that is not blank into the event being built. */
  #take(line: string): void {
    const colon = line.indexOf(":");
    // A line starting with a colon is a comment (a keep-alive).
    if (colon === 0) return;
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") {
      this.#data.push(value);
      this.#touched = true;
    } else if (field === "id" && !value.includes("\0")) {
      this.#id = value;
      this.#touched = true;
    } else if (field === "retry" && /^\d+$/.test(value)) {
      this.#retryMs = Number(value);
      this.#touched = true;
    }
  }
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
