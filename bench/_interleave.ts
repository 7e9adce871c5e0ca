// The in-process benchmarks' one measuring loop: every case runs in batches
// of a few milliseconds, the cases interleaved round by round so that a
// noisy neighbour slows them all alike, and each case's figure is the
// median of its rounds.

import { median } from "./_stats.ts";

/** One case: what a call does. */
export interface InterleavedCase {
  fn: () => unknown;
}

/** Rounds and batch length of {@linkcode interleavedMedians}. */
export interface InterleaveOptions {
  /** Rounds; each runs every case once. */
  rounds: number;
  /** How long one case's batch runs, in milliseconds. */
  batchMs: number;
}

/** Each case's median over the rounds, in nanoseconds per call. */
export async function interleavedMedians(
  cases: readonly InterleavedCase[],
  options: InterleaveOptions,
): Promise<number[]> {
  const samples = cases.map(() => [] as number[]);
  for (let round = 0; round < options.rounds; round++) {
    for (const [i, c] of cases.entries()) {
      let calls = 0;
      const start = performance.now();
      let now = start;
      while (now - start < options.batchMs) {
        for (let k = 0; k < 16; k++) await c.fn();
        calls += 16;
        now = performance.now();
      }
      samples[i].push(((now - start) * 1e6) / calls);
    }
  }
  return samples.map((values) => median(values));
}
