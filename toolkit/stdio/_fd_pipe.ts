// Pipes through Deno's Node-compatible pipe handles. `Deno.stdin.read()`,
// `Deno.stdout.write()` and a `Deno.Command` child's streams run each read
// and write on a blocking thread pool; a `node:net` socket on the same fd (or
// a `node:child_process` child's pipe) is polled on the event loop instead.
// That halves the CPU a stdio server or proxy spends per message and takes a
// byte relay from about 1.75× a direct round trip to about 1.5× (see
// bench/relay_floor.ts). Files, terminals, closed fds and Windows keep the
// `Deno.stdin`/`Deno.stdout` path: a socket cannot own them.
//
// Loading node:net and node:fs costs about 15 ms of start-up and, with the
// sockets' stream machinery, about 10 MiB of peak RSS and a slower exit (the
// kernel frees more pages): a stdio server therefore stays on the Deno path.
// A program that has called loadFdPipes() (the gate, a relay whose every
// byte crosses twice) moves stdin and stdout onto sockets at a read or write
// boundary, so that nothing is in flight on the old path when the new one
// takes the fd.

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

/** What opens a socket on a pipe fd, once node:fs and node:net are loaded. */
export interface FdPipes {
  /**
   * Whether `fd` is a pipe or a socket that a `node:net` socket can own (not
   * a file, a terminal, `/dev/null` or a closed fd).
   */
  isPipe(fd: number): boolean;
  /**
   * Whether `fd` is the same pipe as stderr (`2>&1`): a socket would make
   * that pipe non-blocking, and a synchronous stderr write to it could then
   * fail when the pipe is full.
   */
  sharedWithStderr(fd: number): boolean;
  /** Reads `fd`, a pipe or socket, on the event loop. */
  source(fd: number): PipeSource;
  /** Writes `fd`, a pipe or socket, on the event loop. */
  sink(fd: number): PipeSink;
}

let loading: Promise<FdPipes | undefined> | undefined;
let loaded: FdPipes | undefined;

/**
 * Loads node:fs and node:net (once); `undefined` on Windows, where stdio
 * stays on `Deno.stdin`/`Deno.stdout`.
 */
export function loadFdPipes(): Promise<FdPipes | undefined> {
  loading ??= (async () => {
    if (Deno.build.os === "windows") return undefined;
    const [{ fstatSync }, { Socket }] = await Promise.all([
      import("node:fs"),
      import("node:net"),
    ]);
    return {
      isPipe(fd: number): boolean {
        try {
          const stat = fstatSync(fd);
          return stat.isFIFO() || stat.isSocket();
        } catch {
          return false;
        }
      },
      sharedWithStderr(fd: number): boolean {
        try {
          const [ours, stderr] = [fstatSync(fd), fstatSync(2)];
          return ours.dev === stderr.dev && ours.ino === stderr.ino;
        } catch {
          return false;
        }
      },
      source: (fd: number) =>
        socketSource(new Socket({ fd, readable: true, writable: false })),
      sink: (fd: number) =>
        socketSink(new Socket({ fd, readable: false, writable: true })),
    };
  })().then((pipes) => loaded = pipes, () => undefined);
  return loading;
}

/** A source or sink that starts on Deno's path and may move to a socket. */
export interface SwitchingPipe {
  /** `"deno"` until the fd is read or written through a socket, then `"socket"`. */
  readonly path: "deno" | "socket";
}

/**
 * Stdin: `Deno.stdin.read()`, or a socket once the program has loaded
 * {@linkcode loadFdPipes} and fd 0 is a pipe or socket.
 */
export function stdinSource(): PipeSource & SwitchingPipe {
  let socket: PipeSource | undefined;
  let checked = false;
  let cancelled = false;
  return {
    get path() {
      return socket === undefined ? "deno" : "socket";
    },
    async read(buffer = new Uint8Array(64 * 1024)) {
      if (socket === undefined && !checked && loaded !== undefined) {
        // No Deno read is pending between two reads: the socket may take fd 0.
        checked = true;
        if (!cancelled && loaded.isPipe(0)) socket = loaded.source(0);
      }
      if (socket !== undefined) return socket.read();
      const read = await Deno.stdin.read(buffer);
      return read === null ? null : buffer.subarray(0, read);
    },
    cancel() {
      cancelled = true;
      if (socket !== undefined) return socket.cancel();
      try {
        // Interrupts a pending read, so the process can exit.
        Deno.stdin.close();
      } catch {
        // Already closed.
      }
      return Promise.resolve();
    },
  };
}

/**
 * Stdout: `Deno.stdout.write()`, or a socket once the program has loaded
 * {@linkcode loadFdPipes} and fd 1 is a pipe or socket (not shared with
 * stderr).
 */
export function stdoutSink(): PipeSink & SwitchingPipe {
  let socket: PipeSink | undefined;
  let checked = false;
  return {
    get path() {
      return socket === undefined ? "deno" : "socket";
    },
    async write(bytes) {
      if (socket === undefined && !checked && loaded !== undefined) {
        // The last write has finished: the socket may take fd 1.
        checked = true;
        if (loaded.isPipe(1) && !loaded.sharedWithStderr(1)) {
          socket = loaded.sink(1);
        }
      }
      if (socket !== undefined) return socket.write(bytes);
      let written = 0;
      while (written < bytes.length) {
        written += await Deno.stdout.write(bytes.subarray(written));
      }
    },
    release() {},
  };
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
