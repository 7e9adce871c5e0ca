import assert from "node:assert/strict";
import type { SessionResult } from "./_measure.ts";
import {
  checkTargets,
  renderStartup,
  renderTable,
  renderTargets,
  type ServerRecord,
  summarize,
} from "./_report.ts";

function session(scale: number, answered = 64): SessionResult {
  return {
    coldMs: 50 * scale,
    startCpuMs: 40 * scale,
    cpuPerCallUs: 10 * scale,
    sequentialMs: Array.from(
      { length: 100 },
      (_, i) => (i + 1) * 0.001 * scale,
    ),
    callsPerSecond: 100_000 / scale,
    bigMs: [10 * scale, 12 * scale],
    bigCpuMs: 8 * scale,
    peakRssBytes: 40 * 1024 * 1024 * scale,
    eof: { exitMs: 5 * scale, answered, sent: 64, exited: true },
  };
}

function record(id: string, sessions: SessionResult[]): ServerRecord {
  return { id, label: id, sessions, coldStarts: [], failures: [] };
}

Deno.test("summarize() pools latencies over rounds and takes medians of the rest", () => {
  const summary = summarize({
    ...record("x", [session(1), session(3), session(2, 60)]),
    coldStarts: [
      { coldMs: 400, startCpuMs: 60 },
      { coldMs: 500, startCpuMs: undefined },
    ],
  });
  assert.equal(summary.sessions, 3);
  // Cold starts: 50, 150, 100 from sessions plus 400, 500 measured apart.
  assert.equal(summary.coldMs, 150);
  // Start-up CPU: 40, 120, 80 and 60; a start without the figure is skipped.
  assert.equal(summary.startCpuMs, 70);
  assert.equal(summary.cpuPerCallUs, 20);
  // 300 latencies (1..100, 2..200 by 2, 3..300 by 3 µs): the 150th smallest
  // is 82 (82 + 41 + 27 values up to it); a median of the rounds' p50s
  // would have said 100.
  assert.equal(Math.round(summary.p50Us!), 82);
  assert.equal(Math.round(summary.callsPerSecond!), 50_000);
  assert.equal(summary.peakRssMiB, 80);
  // The worst session's count, not the best.
  assert.equal(summary.eofAnswered, "60/64");
});

Deno.test("summarize() keeps a server with no complete session, with its failures", () => {
  const summary = summarize({
    ...record("dead", []),
    failures: ["round 1: initialize failed"],
  });
  assert.equal(summary.sessions, 0);
  assert.equal(summary.p50Us, undefined);
  assert.deepEqual(summary.failures, ["round 1: initialize failed"]);
  assert.match(
    renderTable([summary], "dead"),
    /failed: round 1: initialize failed/,
  );
});

Deno.test("renderTable() shows ratios against the floor of the same run", () => {
  const table = renderTable(
    [
      summarize(record("raw-deno", [session(1)])),
      summarize(record("slow", [session(2)])),
    ],
    "raw-deno",
  );
  const slow = table.split("\n").find((line) => line.startsWith("| slow"))!;
  assert.match(slow, /^\| slow \| 100\.0 \(2\.00×\) \| 80\.0 \(2\.00×\) \|/);
  assert.match(slow, /\| 20\.0 \(2\.00×\) \|/);
  assert.match(slow, /\| 16\.00 \(2\.00×\) \|/);
  assert.match(slow, /\| 50000 \(0\.50×\) \|/);
  assert.match(slow, /\| 64\/64 \|$/);
});

Deno.test("checkTargets() judges the toolkit against the raw loop and the peers", async (t) => {
  const raw = summarize(record("raw-deno", [session(1)]));
  await t.step("a toolkit as fast as the floor meets the ratio targets", () => {
    const toolkit = summarize(record("toolkit", [session(1)]));
    const checks = checkTargets([raw, toolkit]);
    const met = (text: string) =>
      checks.find((c) => c.target.includes(text))?.met;
    assert.equal(met("sequential p50"), true);
    assert.equal(met("1 MiB"), true);
    assert.equal(met("peak RSS"), true);
    assert.equal(met("≥ 50k calls/s"), true);
    assert.equal(met("EOF"), true);
    assert.equal(met("cold start ≤ 2.5×"), true);
    // No peers and no probe figures in this run: not measured, not failed.
    assert.equal(met("below tmcp"), undefined);
    assert.equal(met("probe"), undefined);
  });
  await t.step(
    "a toolkit twice as slow misses them, and a lost answer misses EOF",
    () => {
      const toolkit = summarize(record("toolkit", [session(2, 63)]));
      const checks = checkTargets([raw, toolkit]);
      assert.equal(checks.find((c) => c.target.includes("p50"))?.met, false);
      assert.equal(checks.find((c) => c.target.includes("EOF"))?.met, false);
      assert.match(
        renderTargets(checks),
        /MISSED stdin EOF → exit ≤ 2× the raw loop.*63\/64 answered/,
      );
    },
  );
  await t.step(
    "three times the floor misses the start, memory and exit ratios",
    () => {
      const toolkit = summarize(record("toolkit", [session(3)]));
      const checks = checkTargets([raw, toolkit]);
      const met = (text: string) =>
        checks.find((c) => c.target.includes(text))?.met;
      assert.equal(met("cold start ≤ 2.5×"), false);
      assert.equal(met("peak RSS ≤ 1.4×"), false);
      assert.equal(met("EOF"), false);
    },
  );
});

Deno.test("renderStartup() shows what each import adds over the bare loop", () => {
  const table = renderStartup([
    { label: "raw", coldMs: 50, startCpuMs: 40 },
    { label: "+ zod", coldMs: 80.25, startCpuMs: 70 },
    { label: "elsewhere", coldMs: 60, startCpuMs: undefined },
  ]);
  const lines = table.split("\n");
  assert.equal(lines[2], "| raw | 50.0 (+0.0) | 40.0 (+0.0) |");
  assert.equal(lines[3], "| + zod | 80.3 (+30.3) | 70.0 (+30.0) |");
  assert.equal(lines[4], "| elsewhere | 60.0 (+10.0) | — |");
});

Deno.test("checkTargets() holds the probe to a real call of the same tool", async (t) => {
  const raw = summarize(record("raw-deno", [session(1)]));
  const withProbe = (probeMs: number, patternMs: number) =>
    summarize(record("toolkit", [{
      ...session(1),
      probe: {
        plainMs: [0.1, 0.1, 0.1],
        probeMs: [probeMs, probeMs, probeMs],
        patternMs: [patternMs, patternMs, patternMs],
      },
    }]));
  const probeCheck = (toolkit: ReturnType<typeof summarize>) =>
    checkTargets([raw, toolkit]).find((c) => c.target.includes("probe"))!;
  await t.step(
    "a probe cheaper than the call is met, even if dearer than echo",
    () => {
      const check = probeCheck(withProbe(0.19, 0.2));
      assert.equal(check.met, true);
      assert.match(
        check.measured,
        /^0\.95× \(probe 190 µs, call of the same tool 200 µs, echo call 100 µs\)$/,
      );
    },
  );
  await t.step("a probe dearer than the call is missed", () => {
    assert.equal(probeCheck(withProbe(0.22, 0.2)).met, false);
  });
});
