// Internal: a request body read under a size limit and a deadline, counted
// as it streams so that nothing is buffered here. Two ways to hold a body
// to them: wrap it in a new Request and stream (any handler may read it;
// the public bodyLimit), or mark the request and let the reader enforce
// them (readBodyText(); createHttpHandler, whose readers are its own). The
// second builds no second Request, Headers or stream: that copy was most
// of what the handler added to a call.

import type { HttpLayer } from "./layer.ts";
import { copyRequest } from "./_copy_request.ts";
import { CODE, positiveInteger, rpcError } from "./_response.ts";
import { refTimer, unrefTimer } from "../_util/runtime.ts";

/** The defaults body_limit.ts documents and exports. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
export const BODY_DEADLINE_MS = 5000;

/** How a layer holds a request's body to its limits: limitBody or markBody. */
export type Limit = (
  request: Request,
  max: number,
  deadlineMs: number,
) => LimitedBody;

/**
 * The body limit layer, holding bodies to the limits of `options` with
 * `limit`, and answering a refused read with 413 or 408.
 */
export function bodyLayer(
  options: { maxBodyBytes?: number; bodyDeadlineMs?: number },
  limit: Limit,
): HttpLayer {
  const max = positiveInteger(
    "maxBodyBytes",
    options.maxBodyBytes,
    MAX_BODY_BYTES,
  );
  const deadlineMs = positiveInteger(
    "bodyDeadlineMs",
    options.bodyDeadlineMs,
    BODY_DEADLINE_MS,
  );
  return async (request, next) => {
    if (request.body === null) return await next(request);
    const limited = limit(request, max, deadlineMs);
    try {
      return await next(limited.request);
    } catch (error) {
      const refusal = error instanceof BodyRefusal
        ? error
        : (error as Error | undefined)?.cause;
      if (!(refusal instanceof BodyRefusal)) throw error;
      return refusal.status === 413
        ? rpcError(
          413,
          CODE.TRANSPORT,
          `Payload Too Large: the body exceeds the limit of ${max} bytes`,
        )
        : rpcError(
          408,
          CODE.TRANSPORT,
          `Request Timeout: the body did not arrive within ${deadlineMs} ms`,
          { headers: { connection: "close" } },
        );
    } finally {
      limited.done();
    }
  };
}

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

  const pending: PendingRead = {
    deadline: performance.now() + deadlineMs,
    late: false,
    expire: () => refuse(408),
  };
  function finish(): void {
    finished = true;
    unwatch(pending);
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
  watch(pending);
  return {
    request: copyRequest(request, { body }),
    done: () => unwatch(pending),
  };
}

/** The limits on requests marked by {@linkcode markBody}, until answered. */
const MARKED = new WeakMap<Request, Bound>();

interface Bound {
  max: number;
  /** When the body must have arrived, on the `performance.now()` clock. */
  deadline: number;
  /** Set once the request has been answered: a late read is not held. */
  done: boolean;
}

/**
 * Holds `request`'s body to `max` bytes and `deadlineMs` from now without
 * wrapping it: {@linkcode readBodyText} enforces both when the body is
 * read, exactly as reading a {@linkcode limitBody} body would fail. The
 * same request is handed on.
 */
export function markBody(
  request: Request,
  max: number,
  deadlineMs: number,
): LimitedBody {
  const bound: Bound = {
    max,
    deadline: performance.now() + deadlineMs,
    done: false,
  };
  MARKED.set(request, bound);
  return {
    request,
    done: () => {
      bound.done = true;
      MARKED.delete(request);
    },
  };
}

/**
 * The body as text, as `request.text()` answers it; for a request marked
 * by {@linkcode markBody}, failing with a {@linkcode BodyRefusal} once more
 * than its limit arrives (at once when `Content-Length` says so) or its
 * deadline passes first, the rest of the body cancelled.
 */
export async function readBodyText(request: Request): Promise<string> {
  const bound = MARKED.get(request);
  if (bound === undefined || bound.done || request.body === null) {
    return await request.text();
  }
  const source = request.body;
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > bound.max) {
    source.cancel().catch(() => {});
    throw new BodyRefusal(413);
  }
  const left = bound.deadline - performance.now();
  if (left <= 0) {
    source.cancel().catch(() => {});
    throw new BodyRefusal(408);
  }
  const reader = source.getReader();
  const read: PendingRead = {
    deadline: bound.deadline,
    late: false,
    expire() {
      read.late = true;
      // Ends the pending read; the rest of the body is not wanted.
      reader.cancel().catch(() => {});
    },
  };
  watch(read);
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const chunk = await reader.read();
      if (read.late) throw new BodyRefusal(408);
      if (chunk.done) break;
      total += chunk.value.length;
      if (total > bound.max) {
        reader.cancel().catch(() => {});
        throw new BodyRefusal(413);
      }
      chunks.push(chunk.value);
    }
  } catch (error) {
    // A read that failed because the deadline cancelled it is a 408 too.
    if (read.late && !(error instanceof BodyRefusal)) {
      throw new BodyRefusal(408);
    }
    throw error;
  } finally {
    unwatch(read);
  }
  return DECODER.decode(concat(chunks, total));
}

const DECODER = new TextDecoder();

// One timer for every body being read under a deadline (marked reads and
// limitBody's bodies), armed for the earliest deadline: a timer per request
// cost more than the rest of the read. It is unreferenced while no read is
// pending, so it neither keeps a process alive nor needs re-arming for each
// request.

interface PendingRead {
  /** On the `performance.now()` clock. */
  deadline: number;
  late: boolean;
  expire(): void;
}

const PENDING = new Set<PendingRead>();
let wake: ReturnType<typeof setTimeout> | undefined;
let wakeAt = Infinity;

function watch(read: PendingRead): void {
  PENDING.add(read);
  if (read.deadline < wakeAt) arm(read.deadline);
  else if (PENDING.size === 1) refTimer(wake!);
}

function unwatch(read: PendingRead): void {
  PENDING.delete(read);
  if (PENDING.size === 0 && wake !== undefined) unrefTimer(wake);
}

function arm(at: number): void {
  clearTimeout(wake);
  wakeAt = at;
  wake = setTimeout(expireDue, Math.max(0, at - performance.now()));
}

function expireDue(): void {
  wake = undefined;
  wakeAt = Infinity;
  const now = performance.now();
  let next = Infinity;
  for (const read of PENDING) {
    if (read.deadline <= now) {
      PENDING.delete(read);
      read.expire();
    } else next = Math.min(next, read.deadline);
  }
  if (next !== Infinity) arm(next);
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}
