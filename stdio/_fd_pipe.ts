// Pipes through Deno's Node-compatible pipe handles. `Deno.stdin.read()`,
// `Deno.stdout.write()` and a `Deno.Command` child's streams run each read
// and write on a blocking thread pool; a `node:net` socket on the same fd (or
// a `node:child_process` child's pipe) is polled on the event loop instead.
// That halves the CPU a stdio server or proxy spends per message and takes a
// byte relay from about 1.75× a direct round trip to about 1.5× (see
// bench/relay_floor.ts). Files, terminals, closed fds and Windows keep the
// `Deno.stdin`/`Deno.stdout` path: a socket cannot own them.

import { fstatSync } from "node:fs";
import { Socket } from "node:net";

/** Where bytes come from, in the shape stdio.ts reads. */
export interface PipeSource {
  /** The next chunk (never empty; `_buffer` is not used), or `null` at the end. */
  read(_buffer?: Uint8Array): Promise<Uint8Array | null>;
  /** Stops reading and closes the pipe; a pending `read()` resolves `null`. */
  cancel(): Promise<void>;
}

/** Where bytes go, in the shape stdio.ts writes. */
export interface PipeSink {
  /** Resolves once the bytes are handed to the operating system. */
  write(bytes: Uint8Array): Promise<void>;
  /** Lets go of the sink; the pipe stays open. */
  release(): void;
}

/** The part of a Node readable stream that {@linkcode socketSource} uses. */
export interface NodeReadable {
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  on(event: "end" | "close", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  pause(): unknown;
  resume(): unknown;
  destroy(): unknown;
}

/** The part of a Node writable stream that {@linkcode socketSink} uses. */
export interface NodeWritable {
  on(event: "error", listener: (error: Error) => void): unknown;
  write(bytes: Uint8Array, callback: (error?: Error | null) => void): boolean;
}

// Chunks read ahead of the reader before the socket pauses, so that the
// reader sets the pace (and the memory held) as a blocking read would.
const READ_AHEAD_CHUNKS = 16;

// Web streams made by pipeReadable()/pipeWritable(), and what is behind them:
// stdio.ts reads and writes those directly instead of through the stream.
const SOURCES = new WeakMap<ReadableStream<Uint8Array>, PipeSource>();
const SINKS = new WeakMap<WritableStream<Uint8Array>, PipeSink>();

/**
 * Whether `fd` is a pipe or a socket that a `node:net` socket can own (not a
 * file, a terminal, `/dev/null` or a closed fd; never on Windows).
 */
export function isPipeFd(fd: number): boolean {
  if (Deno.build.os === "windows") return false;
  try {
    const stat = fstatSync(fd);
    return stat.isFIFO() || stat.isSocket();
  } catch {
    return false;
  }
}

/** Reads `fd`, a pipe or socket (see {@linkcode isPipeFd}), on the event loop. */
export function pipeSource(fd: number): PipeSource {
  return socketSource(new Socket({ fd, readable: true, writable: false }));
}

/** Writes `fd`, a pipe or socket (see {@linkcode isPipeFd}), on the event loop. */
export function pipeSink(fd: number): PipeSink {
  return socketSink(new Socket({ fd, readable: false, writable: true }));
}

/**
 * A {@linkcode PipeSource} over a Node readable stream: chunks queue up to
 * `READ_AHEAD_CHUNKS`, then the stream pauses until the reader catches up.
 */
export function socketSource(socket: NodeReadable): PipeSource {
  const queue: Uint8Array[] = [];
  let ended = false;
  let failure: Error | undefined;
  let paused = false;
  let waiting:
    | {
      resolve: (chunk: Uint8Array | null) => void;
      reject: (error: Error) => void;
    }
    | undefined;
  socket.on("data", (chunk) => {
    if (ended || chunk.length === 0) return;
    if (waiting !== undefined) {
      const { resolve } = waiting;
      waiting = undefined;
      resolve(chunk);
      return;
    }
    queue.push(chunk);
    if (queue.length >= READ_AHEAD_CHUNKS && !paused) {
      paused = true;
      socket.pause();
    }
  });
  const finish = (error?: Error) => {
    if (ended) return;
    ended = true;
    failure = error;
    const pending = waiting;
    waiting = undefined;
    if (error === undefined) pending?.resolve(null);
    else pending?.reject(error);
  };
  socket.on("end", () => finish());
  // A stream destroyed without an end (its fd closed under it) ends too.
  socket.on("close", () => finish());
  socket.on("error", (error) => finish(error));
  return {
    read() {
      const chunk = queue.shift();
      if (chunk !== undefined) {
        if (paused && queue.length <= READ_AHEAD_CHUNKS / 2) {
          paused = false;
          socket.resume();
        }
        return Promise.resolve(chunk);
      }
      if (ended) {
        return failure === undefined
          ? Promise.resolve(null)
          : Promise.reject(failure);
      }
      return new Promise((resolve, reject) => waiting = { resolve, reject });
    },
    cancel() {
      queue.length = 0;
      finish();
      socket.destroy();
      return Promise.resolve();
    },
  };
}

/**
 * A {@linkcode PipeSink} over a Node writable stream. A write resolves once
 * the stream has passed its bytes on, so a writer that awaits its writes
 * holds at most one write in memory and loses nothing when it exits.
 */
export function socketSink(socket: NodeWritable): PipeSink {
  let failure: Error | undefined;
  // EPIPE once the reader has gone arrives as an event besides the callback.
  socket.on("error", (error) => failure ??= error);
  return {
    write(bytes) {
      if (failure !== undefined) return Promise.reject(failure);
      return new Promise((resolve, reject) => {
        socket.write(bytes, (error) => {
          if (error) {
            failure ??= error;
            reject(error);
          } else {
            resolve();
          }
        });
      });
    },
    release() {},
  };
}

/**
 * A web stream over `source`, for APIs that take one; a `StdioTransport`
 * given it reads `source` directly.
 */
export function pipeReadable(source: PipeSource): ReadableStream<Uint8Array> {
  const readable = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = await source.read();
      if (chunk === null) controller.close();
      else controller.enqueue(chunk);
    },
    cancel: () => source.cancel(),
  }, { highWaterMark: 0 });
  SOURCES.set(readable, source);
  return readable;
}

/**
 * A web stream over `sink`, for APIs that take one; a `StdioTransport`
 * given it writes `sink` directly. Closing the stream leaves the pipe open.
 */
export function pipeWritable(sink: PipeSink): WritableStream<Uint8Array> {
  const writable = new WritableStream<Uint8Array>({
    write: (bytes) => sink.write(bytes),
  });
  SINKS.set(writable, sink);
  return writable;
}

/**
 * The source behind a stream from {@linkcode pipeReadable}, which is locked
 * so that nothing else reads it; `undefined` for any other stream.
 */
export function takePipeSource(
  readable: ReadableStream<Uint8Array>,
): PipeSource | undefined {
  const source = SOURCES.get(readable);
  if (source === undefined || readable.locked) return undefined;
  readable.getReader();
  return source;
}

/**
 * The sink behind a stream from {@linkcode pipeWritable}, which is locked so
 * that nothing else writes it; `undefined` for any other stream.
 */
export function takePipeSink(
  writable: WritableStream<Uint8Array>,
): PipeSink | undefined {
  const sink = SINKS.get(writable);
  if (sink === undefined || writable.locked) return undefined;
  writable.getWriter();
  return sink;
}
