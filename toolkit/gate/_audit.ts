// Internal: the audit log, one JSON line per decided call, appended and
// written through (no buffer of its own) line by line, in order.

import type { Decision } from "../policy/mod.ts";

/** One line of the audit log. Never an argument value. */
export interface AuditRecord {
  /** When the call was decided, ISO 8601. */
  time: string;
  /** The tool's name; `null` when the call named none (a name that is not a string). */
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
  /** Milliseconds from the host's request to the decision. */
  elapsedMs: number;
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
  | "invalid-params";

/** Appends records to a file; a write failure is reported once, and logging goes on. */
export class AuditLog {
  #file: Deno.FsFile;
  #queue: Promise<void> = Promise.resolve();
  #encoder = new TextEncoder();
  #onError: (error: unknown) => void;
  #failed = false;

  private constructor(file: Deno.FsFile, onError: (error: unknown) => void) {
    this.#file = file;
    this.#onError = onError;
  }

  /** Opens (creating) `path` for appending. */
  static async open(
    path: string,
    onError: (error: unknown) => void,
  ): Promise<AuditLog> {
    const file = await Deno.open(path, {
      append: true,
      create: true,
      write: true,
    });
    return new AuditLog(file, onError);
  }

  /** Queues one line; lines are written in the order given. */
  write(record: AuditRecord): Promise<void> {
    const bytes = this.#encoder.encode(JSON.stringify(record) + "\n");
    this.#queue = this.#queue.then(async () => {
      try {
        let written = 0;
        while (written < bytes.length) {
          written += await this.#file.write(bytes.subarray(written));
        }
      } catch (error) {
        if (!this.#failed) this.#onError(error);
        this.#failed = true;
      }
    });
    return this.#queue;
  }

  /** Writes what is queued and closes the file. */
  async close(): Promise<void> {
    await this.#queue;
    try {
      this.#file.close();
    } catch {
      // Already closed.
    }
  }
}
