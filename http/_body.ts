// Internal: a request body read under a size limit and a deadline, counted
// as it streams so that nothing is buffered here.

import { copyRequest } from "./_copy_request.ts";

/** Why a body was refused: too large (413) or too slow (408). */
export class BodyRefusal extends Error {
  readonly status: 408 | 413;
  constructor(status: 408 | 413) {
    super(status === 413 ? "Body too large" : "Body too slow");
    this.status = status;
  }
}

/** A request whose body is held to a limit, and how to stop watching it. */
export interface LimitedBody {
  /** The same request; reading its body fails with a {@linkcode BodyRefusal}. */
  request: Request;
  /** Stops the deadline once the request has been answered. */
  done(): void;
}

/**
 * Wraps `request`'s body so that reading it fails once more than `max`
 * bytes arrive (at once when `Content-Length` says so) or once `deadlineMs`
 * pass before its end. Reading stays lazy: a handler that answers without
 * the body (a 406, a 415) never pulls a byte.
 */
export function limitBody(
  request: Request,
  max: number,
  deadlineMs: number,
): LimitedBody {
  const source = request.body!;
  const declared = request.headers.get("content-length");
  const tooLarge = declared !== null && Number(declared) > max;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let finished = false;
  let total = 0;

  function finish(): void {
    finished = true;
    clearTimeout(timer);
  }
  function refuse(status: 408 | 413): void {
    if (finished) return;
    finish();
    controller.error(new BodyRefusal(status));
    // Frees the connection: the rest of the body is not wanted.
    (reader ?? source).cancel().catch(() => {});
  }

  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    async pull(c) {
      if (tooLarge) return refuse(413);
      reader ??= source.getReader();
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (!finished) {
          finish();
          c.error(error);
        }
        return;
      }
      if (finished) return;
      if (chunk.done) {
        finish();
        c.close();
        return;
      }
      total += chunk.value.length;
      if (total > max) return refuse(413);
      c.enqueue(chunk.value);
    },
    cancel(reason) {
      finish();
      return (reader ?? source).cancel(reason);
    },
  }, { highWaterMark: 0 });
  const timer = setTimeout(() => refuse(408), deadlineMs);
  return {
    request: copyRequest(request, { body }),
    done: () => clearTimeout(timer),
  };
}
