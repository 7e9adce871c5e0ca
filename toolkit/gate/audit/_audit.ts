// Internal: the audit log, one JSON line per decided call (and per tool
// that changed since it was pinned), appended and written through (no
// buffer of its own) line by line, in order. Each line ends with `prev`,
// the SHA-256 of the line before it as it stands in the file, so that an
// edited, removed or reordered line breaks the chain (_audit_verify.ts).
// A log the gate continues starts from its last line. With an anchor
// (_audit_anchor.ts), the log's end is also kept in a file apart from it.
//
// Each line is hashed and written synchronously: a forwarded call waits for
// its line, and an append of one short line to a local file costs a few
// microseconds on the event loop, where a write through Deno's thread pool
// (and an async digest) cost the call hundreds (bench/gate.ts, audited).

import type { Decision } from "../../policy/mod.ts";
import {
  AnchorFile,
  type AuditAnchor,
  checkLogEnd,
  countLines,
  readAnchor,
} from "./_audit_anchor.ts";
import { sha256HexSync } from "../../_util/sha256_hex_sync.ts";

/** One line of the audit log for a call. Never an argument value. */
export interface AuditRecord {
  /** When the call was decided, ISO 8601. */
  time: string;
  /** The server the call was for, in a gate of many servers; absent otherwise. */
  server?: string;
  /** Who called, in a gate with `auth:`: the caller's token claims that the policy decides by; absent otherwise. */
  caller?: AuditCaller;
  /** The tool's name (the server's own name for it); `null` when the call named none (a name that is not a string). */
  tool: string | null;
  /** Every pattern of the call; empty for a tool that does not answer probes. */
  patterns: readonly string[];
  /** The policy's decision; `"error"` when the call is malformed, the probe refused the arguments, or the host cancelled before a decision. */
  decision: Decision | "error";
  /** What happened: the call ran or not. */
  outcome: AuditOutcome;
  /** The rule behind the decision, `"unprobed"`, or `null` when none matched. */
  rule: string | null;
  /** `true` for a tool the server does not list (decided as one without the probe); absent otherwise. */
  unlisted?: true;
  /** `"session"` when the user approved the call's patterns for the rest of the session; absent otherwise. */
  remember?: "session";
  /** The flow that decided the call (`flows[0]`); absent otherwise. */
  flow?: string;
  /** The SHA-256 of the audit line of the call that set the flow off (the `prev` of the line after it). */
  since?: string;
  /** Who approved (or denied) the call on the gate's approval page: their subject; absent otherwise. */
  approver?: string;
  /** Milliseconds from the host's request to the decision. */
  elapsedMs: number;
}

/**
 * Who made a call, as its audit line says: the verified token's `sub`, its
 * `groups` and `scope` (space-separated, as in the token) when it has
 * some, and each other claim a principal's `match.claim` names, as the
 * token gives it. The same shape as a `gate test` case's `claims:`, so
 * that `gate replay` decides the call as that caller's again.
 */
export interface AuditCaller {
  /** The token's subject. */
  readonly sub?: string;
  /** The token's groups. */
  readonly groups?: readonly string[];
  /** The token's scopes, space-separated. */
  readonly scope?: string;
  /** Another claim the policy matches on. */
  readonly [claim: string]: unknown;
}

/** One line of the audit log for a tool whose definition differs from its pin. */
export interface AuditToolEvent {
  /** When the gate saw it, ISO 8601. */
  time: string;
  /** The tool's server, in a gate of many servers; absent otherwise. */
  server?: string;
  /** `tool-changed` (pinned, now different) or `tool-added` (new since the pins). */
  event: "tool-changed" | "tool-added";
  /** The tool's name. */
  tool: string;
  /** The fields that differ from the pin (every field for a new tool). */
  fields: readonly string[];
  /** What the gate does with it: withheld, listed and asked, or pinned. */
  action: "withheld" | "ask" | "pinned";
  /** The digest of the definition seen now. */
  digest: string;
}

/** The audit's first line for a sandboxed server: its fence, by digest. */
export interface AuditSandboxEvent {
  /** When the server was started, ISO 8601. */
  time: string;
  /** The server, in a gate of many servers; absent otherwise. */
  server?: string;
  event: "sandbox";
  /** The fence's digest (_fence.ts `fenceDigest`): mounts, network, variable names. */
  digest: string;
  /** Whether the server shares the host's network. */
  network: boolean;
  /** The folders bound writable. */
  writable: readonly string[];
}

/** What became of a decided call. */
export type AuditOutcome =
  | "forwarded"
  | "approved"
  | "denied"
  | "declined"
  | "cancelled"
  | "refused"
  | "probe-error"
  | "invalid-params"
  | "withheld";

/** Where the gate's audit lines go: {@linkcode AuditLog}, or a test's. */
export interface AuditSink {
  /**
   * Appends one line; resolves once it is written (or failed, reported),
   * with the line's SHA-256 when the sink knows it.
   */
  write(
    record: AuditRecord | AuditToolEvent | AuditSandboxEvent,
  ): Promise<string | void>;
  /** Writes what is queued and closes. */
  close(): Promise<void>;
}

/** The `prev` of a log's first line. */
export const AUDIT_START = "0".repeat(64);

/** How much of an existing log's end is read to find its last line. */
const TAIL_BYTES = 1 << 16;
const NEWLINE = 0x0a;

/** Options for {@linkcode AuditLog.open}. */
export interface AuditLogOptions {
  /** The anchor file, kept apart from the log; none when `undefined`. */
  anchor?: string;
  /** Told when an existing log gets its first anchor. */
  note?: (line: string) => void;
}

/**
 * The audit of one server of a gate of many: each line names `server` and
 * goes to `sink`, which closing this leaves open (the servers share it).
 */
export function serverAudit(sink: AuditSink, server: string): AuditSink {
  return {
    write: (record) => {
      const { time, ...rest } = record;
      return sink.write({ time, server, ...rest } as typeof record);
    },
    close: () => Promise.resolve(),
  };
}

/** Appends records to a file; a write failure is reported once, and logging goes on. */
export class AuditLog implements AuditSink {
  #file: Deno.FsFile;
  #closed = false;
  #encoder = new TextEncoder();
  #onError: (error: unknown) => void;
  #failed = false;
  #anchorFailed = false;
  #prev: string;
  #anchorPath: string | undefined;
  #anchorFile: AnchorFile | undefined;
  /** The log's end, for the anchor (its lines and bytes counted only with one). */
  #end: AuditAnchor;

  private constructor(
    file: Deno.FsFile,
    end: AuditAnchor,
    onError: (error: unknown) => void,
    anchor: { path: string; file: AnchorFile } | undefined,
  ) {
    this.#file = file;
    this.#anchorPath = anchor?.path;
    this.#anchorFile = anchor?.file;
    this.#prev = end.last;
    this.#end = end;
    this.#onError = onError;
  }

  /**
   * Opens (creating) `path` for appending, the chain continuing from its
   * last line. With `options.anchor`, the log's end must be what the anchor
   * says (an `AnchorError` otherwise); a missing anchor is created.
   */
  static async open(
    path: string,
    onError: (error: unknown) => void,
    options: AuditLogOptions = {},
  ): Promise<AuditLog> {
    const file = await Deno.open(path, {
      append: true,
      create: true,
      write: true,
    });
    try {
      const { anchor: anchorPath } = options;
      const anchor = anchorPath === undefined
        ? undefined
        : await readAnchor(anchorPath);
      // Checked before the log is touched: a log that differs from its
      // anchor is not continued (and so never anchored as it stands).
      let lines = anchor === undefined
        ? undefined
        : await checkLogEnd(path, anchor, AUDIT_START);
      const { last, complete } = await lastLine(path);
      // A line cut short (the gate died while writing it) is closed, so the
      // next one starts on a line of its own; verify reports it.
      if (!complete) await writeAll(file, new Uint8Array([NEWLINE]));
      const prev = last === undefined ? AUDIT_START : sha256HexSync(last);
      const end = { lines: 0, bytes: 0, last: prev };
      if (anchorPath !== undefined) {
        if (lines === undefined) {
          lines = await countLines(path);
          if (lines > 0) {
            options.note?.(
              `the audit log ${path} has no anchor yet: anchoring its ${lines} lines as they stand in ${anchorPath}`,
            );
          }
        }
        end.lines = lines;
        end.bytes = (await file.stat()).size;
      }
      const anchorFile = anchorPath === undefined
        ? undefined
        : AnchorFile.create(anchorPath, end);
      return new AuditLog(
        file,
        end,
        onError,
        anchorFile && { path: anchorPath!, file: anchorFile },
      );
    } catch (error) {
      file.close();
      throw error;
    }
  }

  /**
   * Writes one line, in the order called; once it returns, the line is in
   * the file (handed to the system, so a gate killed afterwards cannot lose
   * it).
   */
  write(
    record: AuditRecord | AuditToolEvent | AuditSandboxEvent,
  ): Promise<string | void> {
    if (this.#closed) return Promise.resolve();
    let written: string | undefined;
    try {
      const line = this.#encoder.encode(
        JSON.stringify({ ...record, prev: this.#prev }),
      );
      const digest = sha256HexSync(line);
      // The anchor names the line before it is written and the new end
      // after, so that a gate killed in between leaves them in step.
      this.#anchor(digest);
      const bytes = withNewline(line);
      for (let done = 0; done < bytes.length;) {
        done += this.#file.writeSync(bytes.subarray(done));
      }
      this.#prev = digest;
      written = digest;
      this.#end = {
        lines: this.#end.lines + 1,
        bytes: this.#end.bytes + bytes.length,
        last: digest,
      };
    } catch (error) {
      if (!this.#failed) this.#onError(error);
      this.#failed = true;
    }
    this.#anchor();
    return Promise.resolve(written);
  }

  /** Writes the log's end to the anchor, with the line about to be written. */
  #anchor(next?: string): void {
    if (this.#anchorFile === undefined) return;
    try {
      this.#anchorFile.write(
        next === undefined ? this.#end : { ...this.#end, next },
      );
    } catch (error) {
      if (!this.#anchorFailed) {
        this.#onError(
          new Error(
            `cannot write the anchor ${this.#anchorPath}: ${
              error instanceof Error ? error.message : String(error)
            }`,
          ),
        );
      }
      this.#anchorFailed = true;
    }
  }

  /** Closes the file. */
  close(): Promise<void> {
    this.#closed = true;
    this.#anchorFile?.close();
    try {
      this.#file.close();
    } catch {
      // Already closed.
    }
    return Promise.resolve();
  }
}

async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    written += await file.write(bytes.subarray(written));
  }
}

function withNewline(line: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(line.length + 1);
  bytes.set(line);
  bytes[line.length] = NEWLINE;
  return bytes;
}

/**
 * The last line of the file at `path` (without its newline), `undefined`
 * for an empty file or one that is not a regular file; `complete` is false
 * when the file does not end with a newline.
 */
async function lastLine(
  path: string,
): Promise<{ last: Uint8Array | undefined; complete: boolean }> {
  const info = await Deno.stat(path);
  if (!info.isFile || info.size === 0) {
    return { last: undefined, complete: true };
  }
  using file = await Deno.open(path, { read: true });
  let size = Math.min(info.size, TAIL_BYTES);
  for (;;) {
    const tail = new Uint8Array(size);
    await file.seek(info.size - size, Deno.SeekMode.Start);
    let read = 0;
    while (read < size) {
      const n = await file.read(tail.subarray(read));
      if (n === null) break;
      read += n;
    }
    const complete = tail[size - 1] === NEWLINE;
    const end = complete ? size - 1 : size;
    const start = tail.lastIndexOf(NEWLINE, end - 1) + 1;
    if (start > 0 || size === info.size) {
      return { last: tail.slice(start, end), complete };
    }
    // One line longer than the tail read: read more.
    size = Math.min(info.size, size * 4);
  }
}
