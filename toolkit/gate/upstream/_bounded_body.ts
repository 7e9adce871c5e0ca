// Internal: the bound on what a remote server may send as one message, the
// same as stdio's bound on a line, so that a server cannot make the gate
// hold more than that in memory for one body or one SSE event.

import { DEFAULT_MAX_MESSAGE_BYTES } from "../../stdio/stdio.ts";

/** The most bytes one HTTP body or one SSE event may hold (16 MiB). */
export const MAX_MESSAGE_BYTES: number = DEFAULT_MAX_MESSAGE_BYTES;

/** A body or an event over the bound; what came after it was not read. */
export class TooLargeError extends RangeError {
  /** Makes the error for something (`what`) that exceeds `max` bytes. */
  constructor(what: string, max: number) {
    super(
      `${what} is too large: expected at most ${max} bytes${
        inMib(max)
      }, got more`,
    );
    this.name = "TooLargeError";
  }
}

/**
 * Reads `body` to its end, or throws a {@linkcode TooLargeError} (and
 * cancels the body) as soon as it holds more than `max` bytes.
 */
export async function readBounded(
  body: ReadableStream<Uint8Array> | null,
  max: number = MAX_MESSAGE_BYTES,
): Promise<Uint8Array> {
  if (body === null) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Never released: nothing reads the body after this, and a release costs
  // a TypeError made for the reader's closed promise, on every answer.
  const reader = body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw new TooLargeError("The server's answer", max);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** ` (16 MiB)` for 16777216, nothing for a size that is no whole MiB. */
function inMib(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? ` (${mib} MiB)` : "";
}
