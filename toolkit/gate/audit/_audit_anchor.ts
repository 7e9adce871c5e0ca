// Internal: the audit log's anchor, a small file kept apart from the log
// (`--audit-anchor FILE`) that says how the log ends: its line count, its
// size and the digest of its last line. The chain alone shows an edit in
// the middle; only something outside the log shows an edit of the last
// line, or lines cut off the end.
//
// The gate writes the anchor in two steps around each line: first the
// digest of the line it is about to write (`next`), then, once the line is
// in the log, the new end. Each step is one write of a record of a fixed
// size at the file's start, which a killed process cannot leave half done
// (the file is created whole, by a rename, and never changes size), so a
// gate killed at any point leaves an anchor that matches the log: with the
// line (its digest is `next`) or without it. No state with the last line
// missing is ever accepted once its write returned, so cutting one line
// off is found like cutting many. (A temporary file renamed over the
// anchor for each step cost 200 to 500 µs a line on ext4, which flushes a
// file replaced so; the write in place costs about 10.)

import { sha256HexSync } from "../../_util/sha256_hex_sync.ts";
import { isRecord } from "../../_util/json_type.ts";

/** What the anchor says about the end of its log. */
export interface AuditAnchor {
  /** How many lines the log holds. */
  lines: number;
  /** The log's size in bytes after its last line's newline. */
  bytes: number;
  /** The SHA-256 (hex) of the last line; the log's start for an empty log. */
  last: string;
  /** The SHA-256 of the line being written after it, while it is written. */
  next?: string;
}

/** A file that is not an anchor, or a log that does not match its anchor. */
export class AnchorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AnchorError";
  }
}

const HEX64 = /^[0-9a-f]{64}$/;

/** Reads the anchor at `path`; `undefined` when there is no such file. */
export async function readAnchor(
  path: string,
): Promise<AuditAnchor | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  return parseAnchor(text, path);
}

/** Checks the text of an anchor file. */
export function parseAnchor(text: string, path: string): AuditAnchor {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const count = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
  if (
    !isRecord(value) || !count(value.lines) || !count(value.bytes) ||
    typeof value.last !== "string" || !HEX64.test(value.last) ||
    (value.next !== undefined &&
      (typeof value.next !== "string" || !HEX64.test(value.next)))
  ) {
    throw new AnchorError(
      `${path} is not an audit anchor: expected {"lines":N,"bytes":N,"last":"<sha256>"}`,
    );
  }
  const anchor: AuditAnchor = {
    lines: value.lines as number,
    bytes: value.bytes as number,
    last: value.last,
  };
  if (typeof value.next === "string") anchor.next = value.next;
  return anchor;
}

/** The size of an anchor file: its JSON, padded with spaces, and a newline. */
const RECORD_BYTES = 256;
const ENCODER = new TextEncoder();

function recordOf(anchor: AuditAnchor): Uint8Array {
  const json = ENCODER.encode(JSON.stringify(anchor));
  // Two 16-digit counts and two digests fit in less than 220 bytes.
  const record = new Uint8Array(RECORD_BYTES).fill(0x20);
  record.set(json);
  record[RECORD_BYTES - 1] = 0x0a;
  return record;
}

/**
 * An anchor the gate keeps up to date: created (or replaced) whole by a
 * rename, then rewritten in place, one write of the same size each time,
 * so that it never holds half of one record and half of another. Written
 * through, not synced, like the log.
 */
export class AnchorFile {
  #file: Deno.FsFile;

  private constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  /** Writes `anchor` as a new file at `path` and keeps it open. */
  static create(path: string, anchor: AuditAnchor): AnchorFile {
    const temporary = `${path}.tmp`;
    Deno.writeFileSync(temporary, recordOf(anchor));
    Deno.renameSync(temporary, path);
    return new AnchorFile(Deno.openSync(path, { read: true, write: true }));
  }

  /** Replaces the record with `anchor`. */
  write(anchor: AuditAnchor): void {
    const record = recordOf(anchor);
    this.#file.seekSync(0, Deno.SeekMode.Start);
    // One write: a regular file takes a short one whole.
    const written = this.#file.writeSync(record);
    if (written !== record.length) {
      throw new Error(`wrote ${written} of ${record.length} bytes`);
    }
  }

  /** Closes the file. */
  close(): void {
    try {
      this.#file.close();
    } catch {
      // Already closed.
    }
  }
}

/**
 * What is wrong with a log whose lines are `lines` (without their
 * newlines) against its anchor; `undefined` when it matches: the anchor's
 * end, or that end and the one line the anchor says was being written.
 */
export function anchorProblem(
  lines: readonly Uint8Array[],
  anchor: AuditAnchor,
  start: string,
): { line: number; problem: string } | undefined {
  const count = lines.length;
  if (count < anchor.lines) {
    return {
      line: count + 1,
      problem:
        `missing: the log has ${count} lines and its anchor says ${anchor.lines}: lines were cut off its end`,
    };
  }
  const last = anchor.lines === 0
    ? start
    : sha256HexSync(lines[anchor.lines - 1]);
  let bytes = 0;
  for (let i = 0; i < anchor.lines; i++) bytes += lines[i].length + 1;
  if (last !== anchor.last || bytes !== anchor.bytes) {
    return {
      line: Math.max(anchor.lines, 1),
      problem: anchor.lines === 0
        ? "the anchor says the log was empty: every line was written by someone else"
        : `not the line the anchor recorded as line ${anchor.lines}: the log was edited at or before it (and its chain rewritten)`,
    };
  }
  const extra = count - anchor.lines;
  if (extra === 0) return undefined;
  if (
    extra === 1 && anchor.next !== undefined &&
    sha256HexSync(lines[count - 1]) === anchor.next
  ) {
    // The gate stopped between writing the line and the anchor's new end.
    return undefined;
  }
  return {
    line: anchor.lines + 1,
    problem: `after the anchor's last line (${anchor.lines}): ${extra} ${
      extra === 1 ? "line was" : "lines were"
    } added by someone else, or by a gate run without this anchor`,
  };
}

/** The most a log may hold after its anchored end: one line being written. */
const MAX_PENDING_BYTES = 16 * 1024 * 1024;
const NEWLINE = 0x0a;

/**
 * Checks, before a gate appends to the log at `path`, that its end is what
 * `anchor` says; resolves with its line count. Only the end is read: the
 * whole chain is `audit verify`'s.
 *
 * @throws {AnchorError} Saying how the log differs.
 */
export async function checkLogEnd(
  path: string,
  anchor: AuditAnchor,
  start: string,
): Promise<number> {
  using file = await Deno.open(path, { read: true });
  const size = (await file.stat()).size;
  const differs = (what: string) =>
    new AnchorError(
      `the log does not match its anchor: ${what} (see "audit verify --anchor")`,
    );
  if (size < anchor.bytes) {
    throw differs(
      `it has ${size} bytes and its anchor says ${anchor.bytes}: lines were cut off its end`,
    );
  }
  if (size - anchor.bytes > MAX_PENDING_BYTES) {
    throw differs(`lines were added after line ${anchor.lines}`);
  }
  if (
    anchor.lines === 0
      ? anchor.bytes !== 0 || anchor.last !== start
      : anchor.bytes === 0
  ) {
    throw differs("the anchor is inconsistent");
  }
  // The anchored last line and what follows it.
  let from = anchor.bytes;
  let region: Uint8Array = new Uint8Array(0);
  let lineStart = 0;
  if (anchor.lines > 0) {
    for (let window = 1 << 16;; window *= 4) {
      from = Math.max(0, anchor.bytes - 1 - window);
      region = await readRange(file, from, size);
      const end = anchor.bytes - 1 - from;
      if (region[end] !== NEWLINE) {
        throw differs(
          `line ${anchor.lines} is not the line the anchor recorded: the log was edited`,
        );
      }
      const before = end === 0 ? -1 : region.lastIndexOf(NEWLINE, end - 1);
      if (before !== -1 || from === 0) {
        lineStart = before + 1;
        break;
      }
    }
    const line = region.subarray(lineStart, anchor.bytes - 1 - from);
    if (sha256HexSync(line) !== anchor.last) {
      throw differs(
        `line ${anchor.lines} is not the line the anchor recorded: the log was edited`,
      );
    }
  } else {
    region = await readRange(file, 0, size);
  }
  const rest = region.subarray(anchor.bytes - from);
  if (rest.length === 0) return anchor.lines;
  const newline = rest.indexOf(NEWLINE);
  const pending = anchor.next !== undefined &&
    // The line being written when the gate stopped: whole, or cut short
    // (which `audit verify` reports as such).
    (newline === -1 ||
      (newline === rest.length - 1 &&
        sha256HexSync(rest.subarray(0, newline)) === anchor.next));
  if (!pending) {
    throw differs(`lines were added after line ${anchor.lines}`);
  }
  return anchor.lines + 1;
}

/** How many lines the file at `path` holds (a last one without a newline counts). */
export async function countLines(path: string): Promise<number> {
  using file = await Deno.open(path, { read: true });
  const buffer = new Uint8Array(1 << 16);
  let lines = 0;
  let last = NEWLINE;
  for (;;) {
    const n = await file.read(buffer);
    if (n === null) break;
    for (let i = 0; i < n; i++) if (buffer[i] === NEWLINE) lines++;
    if (n > 0) last = buffer[n - 1];
  }
  return last === NEWLINE ? lines : lines + 1;
}

async function readRange(
  file: Deno.FsFile,
  start: number,
  end: number,
): Promise<Uint8Array> {
  const bytes = new Uint8Array(end - start);
  await file.seek(start, Deno.SeekMode.Start);
  let read = 0;
  while (read < bytes.length) {
    const n = await file.read(bytes.subarray(read));
    if (n === null) break;
    read += n;
  }
  return bytes.subarray(0, read);
}
