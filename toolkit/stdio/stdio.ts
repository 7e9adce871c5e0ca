// The stdio transport: framing, reads, batched writes and EOF.

import type {
  JsonRpcId,
  JsonRpcMessage,
  McpTransport,
} from "../jsonrpc/types.ts";
import { checkMessage } from "../jsonrpc/_check.ts";
import { RPC_ERROR } from "../jsonrpc/errors.ts";
import {
  stdinSource,
  stdoutSink,
  takePipeSink,
  takePipeSource,
} from "./_fd_pipe.ts";
import { checkWholeNumber } from "../_util/whole_number.ts";
import { asError } from "../_util/errors.ts";

/**
 * The default limit on one incoming message: 16 MiB.
 *
 * @example Accept messages up to four times the default
 * ```ts
 * import { DEFAULT_MAX_MESSAGE_BYTES, StdioTransport } from "@forge/toolkit/stdio";
 *
 * // For a tool whose arguments carry large files inline.
 * const transport = new StdioTransport({
 *   maxMessageBytes: 4 * DEFAULT_MAX_MESSAGE_BYTES,
 * });
 * ```
 */
export const DEFAULT_MAX_MESSAGE_BYTES: number = 16 * 1024 * 1024;

const NEWLINE = 0x0a;
const BATCH_TURNS = 16;
const ID_SNIFF_BYTES = 4096;
const READ_BUFFER_BYTES = 64 * 1024;

/**
 * Options for {@linkcode StdioTransport}.
 *
 * @example Speak MCP over in-memory streams instead of stdin and stdout
 * ```ts
 * import { StdioTransport } from "@forge/toolkit/stdio";
 *
 * const request = '{"jsonrpc":"2.0","id":1,"method":"ping"}\n';
 * const output = new TransformStream<Uint8Array, Uint8Array>();
 * const transport = new StdioTransport({
 *   readable: ReadableStream.from([new TextEncoder().encode(request)]),
 *   writable: output.writable,
 *   maxMessageBytes: 1024 * 1024,
 * });
 * ```
 */
export interface StdioTransportOptions {
  /**
   * The largest message accepted, in bytes; a larger one is answered with a
   * JSON-RPC error (-32600) and skipped.
   *
   * @default {16777216}
   */
  maxMessageBytes?: number;
  /**
   * Where messages come from.
   *
   * @default {Deno.stdin}
   */
  readable?: ReadableStream<Uint8Array>;
  /**
   * Where messages go.
   *
   * @default {Deno.stdout}
   */
  writable?: WritableStream<Uint8Array>;
}

interface Batch {
  lines: string[];
  written: Promise<void>;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * Newline-delimited JSON-RPC over a readable and a writable byte stream
 * (stdin and stdout by default).
 *
 * @example
 * ```ts ignore
 * import { createServer } from "@forge/toolkit";
 * import { StdioTransport } from "@forge/toolkit/stdio";
 *
 * const server = createServer({ name: "s", version: "1" });
 * await server.connect(new StdioTransport({ maxMessageBytes: 1 << 20 }));
 * ```
 */
export class StdioTransport implements McpTransport {
  /** Called for each well-formed message. */
  onmessage?: (message: JsonRpcMessage) => void;
  /** Called on read and write failures. */
  onerror?: (error: Error) => void;
  /** Called once the transport has closed. */
  onclose?: () => void;
  /** Called once when the input ends (stdin EOF). */
  onend?: () => void;

  #maxBytes: number;
  #readable: ReadableStream<Uint8Array> | undefined;
  #writable: WritableStream<Uint8Array> | undefined;
  #source: ByteSource | undefined;
  #sink: ByteSink | undefined;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  #skipping: { id: JsonRpcId | null; bytes: number } | undefined;
  #decoder = new TextDecoder();
  #strictDecoder = new TextDecoder("utf-8", { fatal: true });
  #encoder = new TextEncoder();
  #batch: Batch | undefined;
  #flushing: Promise<void> | undefined;
  #closed = false;

  /**
   * Creates the transport; nothing is read until `start()`.
   *
   * @param options Streams and the message size limit.
   */
  constructor(options: StdioTransportOptions = {}) {
    const max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    checkWholeNumber("Cannot create stdio transport", "maxMessageBytes", max, {
      min: 1,
      unit: "bytes",
    });
    this.#maxBytes = max;
    this.#readable = options.readable;
    this.#writable = options.writable;
  }

  /** Starts reading messages. */
  start(): Promise<void> {
    this.#source = this.#readable === undefined
      ? stdinSource()
      : streamSource(this.#readable);
    this.#sink = this.#writable === undefined
      ? stdoutSink()
      : streamSink(this.#writable);
    this.#readLoop();
    return Promise.resolve();
  }

  async #readLoop(): Promise<void> {
    const source = this.#source!;
    try {
      let buffer = new Uint8Array(READ_BUFFER_BYTES);
      for (;;) {
        const chunk = await source.read(buffer);
        if (chunk === null) break;
        this.#receive(chunk);
        // The next read reuses the buffer the bytes arrived in.
        buffer = new Uint8Array(chunk.buffer as ArrayBuffer);
      }
      // A last message without a trailing newline still counts.
      if (this.#pendingBytes > 0 || this.#skipping) {
        this.#endLine(new Uint8Array(0));
      }
    } catch (error) {
      if (!this.#closed) this.onerror?.(asError(error));
    }
    if (!this.#closed) this.onend?.();
  }

  #receive(chunk: Uint8Array): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) break;
      this.#endLine(chunk.subarray(start, newline));
      start = newline + 1;
    }
    if (start < chunk.length) this.#keep(chunk.subarray(start));
  }

  #keep(part: Uint8Array): void {
    if (this.#skipping) {
      this.#skipping.bytes += part.length;
      return;
    }
    // A copy: the read buffer is reused for the next chunk.
    this.#pending.push(part.slice());
    this.#pendingBytes += part.length;
    if (this.#pendingBytes > this.#maxBytes) {
      this.#skipping = {
        id: sniffId(this.#pending[0]),
        bytes: this.#pendingBytes,
      };
      this.#pending = [];
      this.#pendingBytes = 0;
    }
  }

  #endLine(tail: Uint8Array): void {
    if (this.#skipping) {
      const { id, bytes } = this.#skipping;
      this.#skipping = undefined;
      this.#tooLarge(id, bytes + tail.length);
      return;
    }
    let line = tail;
    if (this.#pending.length > 0) {
      this.#pending.push(tail);
      line = concat(this.#pending, this.#pendingBytes + tail.length);
      this.#pending = [];
      this.#pendingBytes = 0;
    }
    if (line.length > this.#maxBytes) {
      this.#tooLarge(sniffId(line), line.length);
      return;
    }
    this.#handleLine(line);
  }

  #tooLarge(id: JsonRpcId | null, bytes: number): void {
    this.#answerError(
      id,
      RPC_ERROR.INVALID_REQUEST,
      `Invalid Request: message of ${bytes} bytes exceeds the limit of ${this.#maxBytes} bytes`,
    );
  }

  #handleLine(bytes: Uint8Array): void {
    // The lenient decoder has Deno's fast path; a replacement character in
    // its output means invalid UTF-8 or a literal U+FFFD, which the strict
    // decoder tells apart.
    const text = this.#decoder.decode(bytes);
    if (text.includes("\uFFFD") && !isValidUtf8(this.#strictDecoder, bytes)) {
      this.#answerError(
        null,
        RPC_ERROR.PARSE_ERROR,
        "Parse error: the message is not valid UTF-8",
      );
      return;
    }
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.#answerError(
        null,
        RPC_ERROR.PARSE_ERROR,
        `Parse error: ${(error as Error).message}`,
      );
      return;
    }
    if (Array.isArray(value)) {
      this.#answerError(
        null,
        RPC_ERROR.INVALID_REQUEST,
        "Invalid Request: batches are not supported: send one message per line",
      );
      return;
    }
    const problem = checkMessage(value);
    if (problem !== undefined) {
      this.#answerError(
        problem.id,
        RPC_ERROR.INVALID_REQUEST,
        `Invalid Request: ${problem.problem}`,
      );
      return;
    }
    try {
      this.onmessage?.(value as JsonRpcMessage);
    } catch (error) {
      this.onerror?.(asError(error));
    }
  }

  #answerError(id: JsonRpcId | null, code: number, message: string): void {
    this.send({ jsonrpc: "2.0", id, error: { code, message } }).catch(() => {});
  }

  /** Queues a message; messages sent in the same tick go out in one write. */
  send(message: JsonRpcMessage): Promise<void> {
    if (this.#closed) {
      return Promise.reject(new Error("Cannot send: the transport is closed"));
    }
    const line = JSON.stringify(message) + "\n";
    if (this.#batch === undefined) {
      let resolve!: () => void;
      let reject!: (error: Error) => void;
      const written = new Promise<void>((res, rej) =>
        [resolve, reject] = [res, rej]
      );
      this.#batch = { lines: [], written, resolve, reject };
    }
    const batch = this.#batch;
    batch.lines.push(line);
    // After the push: a flush that ran at once would otherwise miss the line.
    this.#flushing ??= this.#flush();
    return batch.written;
  }

  async #flush(): Promise<void> {
    // Let the answers of the messages read in the same chunk join the batch:
    // each passes a few microtask turns between arriving and being sent, and
    // one write per batch instead of one per answer halves the per-call cost.
    for (let turn = 0; turn < BATCH_TURNS; turn++) await undefined;
    while (this.#batch !== undefined) {
      const batch = this.#batch;
      this.#batch = undefined;
      try {
        await this.#sink!.write(this.#encoder.encode(batch.lines.join("")));
        batch.resolve();
      } catch (error) {
        batch.reject(error as Error);
        this.onerror?.(asError(error));
      }
    }
    this.#flushing = undefined;
  }

  /** Writes what is queued, stops reading and reports the close. */
  async close(): Promise<void> {
    if (this.#closed) return;
    while (this.#flushing !== undefined) await this.#flushing;
    this.#closed = true;
    await this.#source?.cancel();
    this.#sink?.release();
    this.onclose?.();
  }
}

/** Where bytes come from: a view of the bytes read (into `buffer` when it can), or `null` at the end. */
interface ByteSource {
  read(buffer: Uint8Array): Promise<Uint8Array | null>;
  cancel(): Promise<void>;
}

/** Where bytes go. */
interface ByteSink {
  write(bytes: Uint8Array): Promise<void>;
  release(): void;
}

// Stdin and stdout are read and written directly: their web streams cost
// about 6 ms of start-up (the streams implementation loads on first use) and
// a few promises per chunk. stdinSource() and stdoutSink() (_fd_pipe.ts)
// move them onto the event loop when they are pipes.

function streamSource(readable: ReadableStream<Uint8Array>): ByteSource {
  const pipe = takePipeSource(readable);
  if (pipe !== undefined) return pipe;
  let byob: ReadableStreamBYOBReader | undefined;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    // A byte stream reads into the caller's buffer; its default reader would
    // allocate a chunk per read, which piles up outside the JS heap between
    // collections when messages arrive one at a time.
    byob = readable.getReader({ mode: "byob" });
  } catch {
    reader = readable.getReader();
  }
  return {
    async read(buffer) {
      const { value, done } = byob !== undefined
        ? await byob.read(buffer)
        : await reader!.read();
      return done ? null : value;
    },
    cancel: () => (byob ?? reader)!.cancel().catch(() => {}),
  };
}

function streamSink(writable: WritableStream<Uint8Array>): ByteSink {
  const pipe = takePipeSink(writable);
  if (pipe !== undefined) return pipe;
  const writer = writable.getWriter();
  return {
    write: (bytes) => writer.write(bytes),
    release: () => writer.releaseLock(),
  };
}

function isValidUtf8(strict: TextDecoder, bytes: Uint8Array): boolean {
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * Finds the id of an oversized request in its first bytes so that the error
 * reaches the waiting caller: only an `"id"` before any nested object or
 * array counts, so an id inside `params` is never mistaken for it.
 */
function sniffId(bytes: Uint8Array): JsonRpcId | null {
  const head = new TextDecoder().decode(bytes.subarray(0, ID_SNIFF_BYTES));
  const match = /^\s*\{[^{}[\]]*?"id"\s*:\s*(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.)*")/
    .exec(head);
  if (match === null) return null;
  try {
    return JSON.parse(match[1]);
  } catch {
    return null;
  }
}
