// Internal: what the gate records of a call's patterns: in the audit log,
// on stderr and in its spans. A file or net target names what the call
// touches (its identity) and is recorded whole; an exec target holds a
// whole command line (`curl -H 'Authorization: Bearer …'`) and a custom
// (`x-…`) target whatever value its template took (`x-stdin:{stdin?}`), so
// they are recorded as the program and a digest, or a digest alone, unless
// the policy's `record` says otherwise for the tool. Whatever their origin,
// a template or a probe's answer. The decision always uses the whole
// patterns; only what is written down changes.

import { sha256HexSync } from "../../_util/sha256_hex_sync.ts";
import {
  isPatternVerb,
  targetKind,
} from "../../../validate/_pattern_grammar.ts";
import { nameGlob } from "./_tool_mapping.ts";

/** How a tool's exec and custom patterns are recorded: whole, or as digests. */
export type RecordChoice = "patterns" | "digests";

/** The policy's `record` entries, by tool name or glob, in the order written. */
export type RecordEntries = ReadonlyMap<string, RecordChoice>;

/** How many hex digits of the SHA-256 a redacted pattern keeps. */
const DIGEST_HEX = 16;

/** Exact names and compiled globs of each `record` map, built once. */
const COMPILED = new WeakMap<
  RecordEntries,
  { exact: Map<string, RecordChoice>; globs: [RegExp, RecordChoice][] }
>();

/**
 * What is recorded of `patterns`, a call of `tool`'s: the patterns
 * themselves when the policy's `record` says `patterns` for the tool, and
 * otherwise each exec pattern as its program and a digest, each custom
 * one as a digest (see {@linkcode redactPattern}).
 */
export function recordedPatterns(
  tool: string | null,
  patterns: readonly string[],
  record: RecordEntries | undefined,
): readonly string[] {
  if (patterns.length === 0) return patterns;
  if (tool !== null && choiceFor(tool, record) === "patterns") return patterns;
  let changed: string[] | undefined;
  patterns.forEach((pattern, i) => {
    const recorded = redactPattern(pattern);
    if (recorded === pattern && changed === undefined) return;
    changed ??= patterns.slice(0, i);
    changed.push(recorded);
  });
  return changed ?? patterns;
}

/**
 * One pattern as recorded by default: a file or net pattern as it is; an
 * exec pattern as `exec:<program> [redacted sha256:<16 hex>]` (the program
 * alone when it has no arguments, the digest alone when its first word is
 * a `NAME=value`); a custom one as
 * `x-name:[redacted sha256:<16 hex>]`, unless its target is the bare `*`
 * (a template's literal "everything", no value); anything else (not a
 * pattern) as `[redacted sha256:<16 hex>]`. The digest is the SHA-256 of the
 * whole pattern, so a value can be confirmed, never read.
 */
export function redactPattern(pattern: string): string {
  const colon = pattern.indexOf(":");
  const verb = colon <= 0 ? "" : pattern.slice(0, colon);
  if (!isPatternVerb(verb)) return redacted(pattern);
  const target = pattern.slice(colon + 1);
  switch (targetKind(verb)) {
    case "path":
    case "net":
      return pattern;
    case "exec": {
      const space = firstSpace(target);
      const program = space === -1 ? target : target.slice(0, space);
      // `NAME=value` first is an assignment, not a program.
      if (program.includes("=")) return `exec:${redacted(pattern)}`;
      return space === -1 ? pattern : `exec:${program} ${redacted(pattern)}`;
    }
    default:
      return target === "*" ? pattern : `${verb}:${redacted(pattern)}`;
  }
}

/** The choice of the policy's `record` for `tool`: by name, then the globs in order. */
function choiceFor(
  tool: string,
  record: RecordEntries | undefined,
): RecordChoice {
  if (record === undefined || record.size === 0) return "digests";
  let compiled = COMPILED.get(record);
  if (compiled === undefined) {
    compiled = { exact: new Map(), globs: [] };
    for (const [name, choice] of record) {
      if (/[*?]/.test(name)) compiled.globs.push([nameGlob(name), choice]);
      else compiled.exact.set(name, choice);
    }
    COMPILED.set(record, compiled);
  }
  return compiled.exact.get(tool) ??
    compiled.globs.find(([glob]) => glob.test(tool))?.[1] ?? "digests";
}

function redacted(pattern: string): string {
  const digest = sha256HexSync(pattern);
  return `[redacted sha256:${digest.slice(0, DIGEST_HEX)}]`;
}

/** The index of the first space that is not escaped (`\ `), or -1. */
function firstSpace(target: string): number {
  for (let i = 0; i < target.length; i++) {
    if (target[i] === "\\") i++;
    else if (target[i] === " ") return i;
  }
  return -1;
}
