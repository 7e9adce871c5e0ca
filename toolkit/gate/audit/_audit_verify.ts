// Internal: `audit verify`: walks an audit log's chain. Each line's `prev`
// must be the SHA-256 of the line before it, byte for byte, and the first
// line's the fixed start; the first line where that fails is named, with
// what most likely happened there. With the log's anchor, its end must
// also be the one the anchor recorded (_audit_anchor.ts): an edit of the
// last line, or lines cut off or added at the end, is found too.

import { sha256Hex } from "../../../configreload/_sha256_hex.ts";
import { isRecord } from "../../_util/json_type.ts";
import { AUDIT_START } from "./_audit.ts";
import { anchorProblem, type AuditAnchor } from "./_audit_anchor.ts";

/** The verdict on one log. */
export type AuditVerdict =
  | { ok: true; lines: number }
  | { ok: false; line: number; problem: string };

const NEWLINE = 0x0a;

/**
 * Checks the chain of the log `bytes`, and its end against `anchor` when
 * given; `line` numbers count from 1.
 */
export async function verifyAudit(
  bytes: Uint8Array,
  anchor?: AuditAnchor,
): Promise<AuditVerdict> {
  const lines = splitLines(bytes);
  const complete = bytes.length === 0 || bytes[bytes.length - 1] === NEWLINE;
  const digests = await Promise.all(lines.map((line) => sha256Hex(line)));
  const decoder = new TextDecoder("utf-8", { fatal: true });
  for (let i = 0; i < lines.length; i++) {
    const number = i + 1;
    if (i === lines.length - 1 && !complete) {
      return {
        ok: false,
        line: number,
        problem:
          "cut short (no newline at its end): the gate stopped while writing it, or the line was edited",
      };
    }
    let record: unknown;
    try {
      record = JSON.parse(decoder.decode(lines[i]));
    } catch {
      return {
        ok: false,
        line: number,
        problem: "not a line of JSON: it was edited or damaged",
      };
    }
    const prev = isRecord(record) ? record.prev : undefined;
    if (typeof prev !== "string") {
      return {
        ok: false,
        line: number,
        problem:
          "no prev field: it was edited, or written by a gate that did not chain its log",
      };
    }
    const expected = i === 0 ? AUDIT_START : digests[i - 1];
    if (prev === expected) continue;
    return { ok: false, line: number, problem: broken(i, prev, digests) };
  }
  const problem = anchor && anchorProblem(lines, anchor, AUDIT_START);
  if (problem) return { ok: false, ...problem };
  return { ok: true, lines: lines.length };
}

/** What a `prev` that does not match line `i - 1` (0-based) most likely means. */
function broken(i: number, prev: string, digests: readonly string[]): string {
  const later = digests.indexOf(prev, i);
  if (later !== -1) {
    return `its prev is the digest of line ${
      later + 1
    }, which comes after it: lines were reordered`;
  }
  if (i === 0) {
    return "its prev is not the start of a log: lines were removed before it";
  }
  return `its prev does not match line ${i}: line ${i} was edited, or lines were removed between lines ${i} and ${
    i + 1
  }`;
}

/** The lines of `bytes`, without their newlines (and no empty last line). */
function splitLines(bytes: Uint8Array): Uint8Array[] {
  const lines: Uint8Array[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(NEWLINE, start);
    if (end === -1) end = bytes.length;
    lines.push(bytes.subarray(start, end));
    start = end + 1;
  }
  return lines;
}
