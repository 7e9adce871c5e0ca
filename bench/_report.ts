/**
 * Turning the sessions of one harness run into the table: medians per
 * server, ratios against the raw Deno loop of the same run, and the issue's
 * targets checked against the toolkit's figures.
 *
 * @module
 */

import type { SessionResult } from "./_measure.ts";
import { median, percentile } from "./_stats.ts";

/** Everything measured for one server in one run. */
export interface ServerRecord {
  /** The server's id. */
  id: string;
  /** Its label in the table. */
  label: string;
  /** The complete sessions, one per round. */
  sessions: SessionResult[];
  /** Cold starts measured outside sessions: wall and server CPU time, in milliseconds. */
  coldStarts: { coldMs: number; startCpuMs: number | undefined }[];
  /** What went wrong, one line per failed session or start. */
  failures: string[];
}

/** One server's figures: medians over the run. */
export interface ServerSummary {
  /** The server's id. */
  id: string;
  /** Its label. */
  label: string;
  /** Complete sessions behind the figures. */
  sessions: number;
  /** Median spawn → `initialize` answered, in milliseconds. */
  coldMs?: number;
  /** Median server CPU time up to the `initialize` answer, in milliseconds. */
  startCpuMs?: number;
  /** Median server CPU time per pipelined call, in microseconds. */
  cpuPerCallUs?: number;
  /** Sequential round trip, pooled over all rounds, in microseconds. */
  p50Us?: number;
  /** 99th percentile of the same, in microseconds. */
  p99Us?: number;
  /** Median pipelined calls per second. */
  callsPerSecond?: number;
  /** Median 1 MiB round trip, in milliseconds. */
  bigMs?: number;
  /** Median server CPU time per 1 MiB call, in milliseconds. */
  bigCpuMs?: number;
  /** Median peak RSS, in MiB. */
  peakRssMiB?: number;
  /** Median stdin EOF → exit with calls in flight, in milliseconds. */
  eofExitMs?: number;
  /** In-flight calls answered before exiting, the worst session's count. */
  eofAnswered?: string;
  /** The probe comparison's medians, in microseconds. */
  probe?: { plainUs: number; probeUs: number; patternUs: number };
  /** Failures, if any. */
  failures: string[];
}

/**
 * Medians of one server's sessions. Sequential latencies are pooled over
 * rounds so the p99 rests on every call; the other figures are the median
 * of one value per round.
 *
 * @example
 * ```ts ignore
 * const summary = summarize(record);
 * ```
 */
export function summarize(record: ServerRecord): ServerSummary {
  const sessions = record.sessions;
  const summary: ServerSummary = {
    id: record.id,
    label: record.label,
    sessions: sessions.length,
    failures: record.failures,
  };
  const starts = [...sessions, ...record.coldStarts];
  if (starts.length > 0) summary.coldMs = median(starts.map((s) => s.coldMs));
  const startCpu = defined(starts.map((s) => s.startCpuMs));
  if (startCpu.length > 0) summary.startCpuMs = median(startCpu);
  if (sessions.length === 0) return summary;
  const cpu = defined(sessions.map((s) => s.cpuPerCallUs));
  if (cpu.length > 0) summary.cpuPerCallUs = median(cpu);
  const latencies = sessions.flatMap((s) => s.sequentialMs);
  summary.p50Us = percentile(latencies, 50) * 1000;
  summary.p99Us = percentile(latencies, 99) * 1000;
  summary.callsPerSecond = median(sessions.map((s) => s.callsPerSecond));
  summary.bigMs = median(sessions.flatMap((s) => s.bigMs));
  const bigCpu = defined(sessions.map((s) => s.bigCpuMs));
  if (bigCpu.length > 0) summary.bigCpuMs = median(bigCpu);
  const rss = sessions.flatMap((s) =>
    s.peakRssBytes === undefined ? [] : [s.peakRssBytes]
  );
  if (rss.length > 0) summary.peakRssMiB = median(rss) / (1024 * 1024);
  summary.eofExitMs = median(sessions.map((s) => s.eof.exitMs));
  const worst = sessions.reduce((a, b) =>
    a.eof.answered / a.eof.sent <= b.eof.answered / b.eof.sent ? a : b
  );
  summary.eofAnswered = `${worst.eof.answered}/${worst.eof.sent}${
    sessions.every((s) => s.eof.exited) ? "" : " (killed)"
  }`;
  const probes = sessions.flatMap((s) =>
    s.probe === undefined ? [] : [s.probe]
  );
  if (probes.length > 0) {
    summary.probe = {
      plainUs: percentile(probes.flatMap((p) => p.plainMs), 50) * 1000,
      probeUs: percentile(probes.flatMap((p) => p.probeMs), 50) * 1000,
      patternUs: percentile(probes.flatMap((p) => p.patternMs), 50) * 1000,
    };
  }
  return summary;
}

function defined(values: (number | undefined)[]): number[] {
  return values.filter((v): v is number => v !== undefined);
}

function ratio(value: number | undefined, floor: number | undefined): string {
  if (value === undefined || floor === undefined || floor === 0) return "";
  return ` (${(value / floor).toFixed(2)}×)`;
}

function cell(
  value: number | undefined,
  digits: number,
  floor?: number,
): string {
  if (value === undefined) return "—";
  return `${value.toFixed(digits)}${ratio(value, floor)}`;
}

/**
 * The markdown table of a run; ratios (in parentheses) divide by the server
 * with id `floorId` from the same run.
 *
 * @example
 * ```ts ignore
 * console.log(renderTable(summaries, "raw-deno"));
 * ```
 */
export function renderTable(
  summaries: readonly ServerSummary[],
  floorId: string,
): string {
  const floor = summaries.find((s) => s.id === floorId);
  const lines = [
    "| server | cold start ms | start CPU ms | p50 µs | p99 µs | calls/s, 64 in flight | CPU µs/call | 1 MiB arg ms | 1 MiB CPU ms | peak RSS MiB | EOF→exit ms | answered at EOF |",
    "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
  ];
  for (const s of summaries) {
    if (s.sessions === 0 && s.coldMs === undefined) {
      lines.push(
        `| ${s.label} | failed: ${
          s.failures[0]?.replaceAll("|", "\\|") ?? "no result"
        } |||||||||||`,
      );
      continue;
    }
    lines.push(
      `| ${s.label} | ${cell(s.coldMs, 1, floor?.coldMs)} | ${
        cell(s.startCpuMs, 1, floor?.startCpuMs)
      } | ${cell(s.p50Us, 0, floor?.p50Us)} | ${
        cell(s.p99Us, 0, floor?.p99Us)
      } | ${cell(s.callsPerSecond, 0, floor?.callsPerSecond)} | ${
        cell(s.cpuPerCallUs, 1, floor?.cpuPerCallUs)
      } | ${cell(s.bigMs, 2, floor?.bigMs)} | ${
        cell(s.bigCpuMs, 2, floor?.bigCpuMs)
      } | ${cell(s.peakRssMiB, 1, floor?.peakRssMiB)} | ${
        cell(s.eofExitMs, 1)
      } | ${s.eofAnswered ?? "—"} |`,
    );
  }
  return lines.join("\n");
}

/** One target of the issue, checked. */
export interface TargetCheck {
  /** What the target says. */
  target: string;
  /** What was measured. */
  measured: string;
  /** Whether the measurement meets it; undefined when it could not be measured. */
  met: boolean | undefined;
}

/**
 * The targets for the toolkit, checked against this run's figures.
 *
 * @example
 * ```ts ignore
 * for (const check of checkTargets(summaries)) console.log(check);
 * ```
 */
export function checkTargets(
  summaries: readonly ServerSummary[],
): TargetCheck[] {
  const get = (id: string) => summaries.find((s) => s.id === id);
  const toolkit = get("toolkit");
  const withoutZod = get("toolkit-json");
  const raw = get("raw-deno");
  const tmcp = get("tmcp-deno");
  const sdk = get("sdk-deno");
  const check = (
    target: string,
    value: number | undefined,
    measured: (value: number) => string,
    met: (value: number) => boolean,
  ): TargetCheck =>
    value === undefined || Number.isNaN(value)
      ? { target, measured: "not measured", met: undefined }
      : { target, measured: measured(value), met: met(value) };
  const over = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined ? undefined : a / b;
  const eofAll = toolkit?.eofAnswered !== undefined &&
    /^(\d+)\/\1$/.test(toolkit.eofAnswered);
  return [
    check(
      "cold start ≤ 2.5× the raw loop, zod included",
      over(toolkit?.coldMs, raw?.coldMs),
      (v) => `${v.toFixed(2)}× (${toolkit?.coldMs?.toFixed(1)} ms)`,
      (v) => v <= 2.5,
    ),
    check(
      "cold start ≤ 80 ms, JSON Schema input instead of zod",
      withoutZod?.coldMs,
      (v) => `${v.toFixed(1)} ms`,
      (v) => v <= 80,
    ),
    check(
      "cold start below tmcp under Deno",
      over(toolkit?.coldMs, tmcp?.coldMs),
      (v) => `${v.toFixed(2)}× tmcp (${tmcp?.coldMs?.toFixed(1)} ms)`,
      (v) => v < 1,
    ),
    check(
      "cold start far below the bare McpServer",
      over(toolkit?.coldMs, sdk?.coldMs),
      (v) => `${v.toFixed(2)}× McpServer (${sdk?.coldMs?.toFixed(1)} ms)`,
      (v) => v < 0.75,
    ),
    check(
      "sequential p50 ≤ 1.1× the raw loop",
      over(toolkit?.p50Us, raw?.p50Us),
      (v) => `${v.toFixed(2)}×`,
      (v) => v <= 1.1,
    ),
    check(
      "≥ 50k calls/s with 64 in flight",
      toolkit?.callsPerSecond,
      (v) => `${Math.round(v)} calls/s`,
      (v) => v >= 50_000,
    ),
    check(
      "1 MiB argument ≤ 1.2× the raw loop",
      over(toolkit?.bigMs, raw?.bigMs),
      (v) => `${v.toFixed(2)}×`,
      (v) => v <= 1.2,
    ),
    check(
      "peak RSS ≤ 1.4× the raw loop",
      over(toolkit?.peakRssMiB, raw?.peakRssMiB),
      (v) => `${v.toFixed(2)}×`,
      (v) => v <= 1.4,
    ),
    check(
      "stdin EOF → exit ≤ 2× the raw loop, every in-flight answer written",
      over(toolkit?.eofExitMs, raw?.eofExitMs),
      (v) =>
        `${v.toFixed(2)}× (${
          toolkit?.eofExitMs?.toFixed(1)
        } ms), ${toolkit?.eofAnswered} answered`,
      (v) => v <= 2 && eofAll,
    ),
    // A probe stands for a call of the same tool, so that call is the
    // "plain call" it is held to; the echo call is shown beside it.
    check(
      "probe round trip ≤ 1.0× a plain call of the same tool",
      over(toolkit?.probe?.probeUs, toolkit?.probe?.patternUs),
      (v) =>
        `${v.toFixed(2)}× (probe ${
          toolkit?.probe?.probeUs.toFixed(0)
        } µs, call of the same tool ${
          toolkit?.probe?.patternUs.toFixed(0)
        } µs, echo call ${toolkit?.probe?.plainUs.toFixed(0)} µs)`,
      (v) => v <= 1.0,
    ),
  ];
}

/**
 * The target checks as a markdown list.
 *
 * @example
 * ```ts ignore
 * console.log(renderTargets(checkTargets(summaries)));
 * ```
 */
export function renderTargets(checks: readonly TargetCheck[]): string {
  return checks.map((c) =>
    `- ${
      c.met === undefined ? "n/a " : c.met ? "met " : "MISSED"
    } ${c.target}: ${c.measured}`
  ).join("\n");
}

/** One start-up probe's medians. */
export interface StartupRow {
  /** What the probe loads. */
  label: string;
  /** Median spawn → `initialize` answered, in milliseconds. */
  coldMs: number;
  /** Median server CPU time by then, in milliseconds (undefined off Linux). */
  startCpuMs: number | undefined;
}

/**
 * The start-up table: wall and CPU time per probe, and what each adds to
 * the first row (the bare raw loop).
 *
 * @example
 * ```ts ignore
 * console.log(renderStartup(rows));
 * ```
 */
export function renderStartup(rows: readonly StartupRow[]): string {
  const floor = rows[0];
  const plus = (value: number | undefined, base: number | undefined) =>
    value === undefined || base === undefined
      ? "—"
      : `${value.toFixed(1)} (+${(value - base).toFixed(1)})`;
  return [
    "| loads | cold start ms (+ over raw) | start CPU ms (+ over raw) |",
    "|---|--:|--:|",
    ...rows.map((row) =>
      `| ${row.label} | ${plus(row.coldMs, floor?.coldMs)} | ${
        plus(row.startCpuMs, floor?.startCpuMs)
      } |`
    ),
  ].join("\n");
}
