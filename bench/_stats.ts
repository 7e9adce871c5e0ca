/**
 * Order statistics for the harness: medians and percentiles by the
 * nearest-rank method, so a p99 is always a latency that was measured.
 *
 * @module
 */

/**
 * The `p`-th percentile (0 < p <= 100) of `values` by nearest rank.
 *
 * @example
 * ```ts
 * import { percentile } from "./_stats.ts";
 *
 * percentile([5, 1, 4, 2, 3], 50); // 3
 * ```
 */
export function percentile(values: readonly number[], p: number): number {
  if (!(p > 0 && p <= 100)) {
    throw new RangeError(
      `Cannot take a percentile: p must be in (0, 100], got ${p}`,
    );
  }
  if (values.length === 0) {
    throw new RangeError("Cannot take a percentile: no values");
  }
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil((p / 100) * sorted.length) - 1];
}

/**
 * The median of `values`: the mean of the two middle values for an even
 * count.
 *
 * @example
 * ```ts
 * import { median } from "./_stats.ts";
 *
 * median([4, 1, 3, 2]); // 2.5
 * ```
 */
export function median(values: readonly number[]): number {
  if (values.length === 0) {
    throw new RangeError("Cannot take a median: no values");
  }
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? sorted[middle]
    : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * `list` rotated left by `by` places: round `r` of the harness starts with
 * server `r`, so no server always runs first (or right after a heavy one).
 *
 * @example
 * ```ts
 * import { rotate } from "./_stats.ts";
 *
 * rotate(["a", "b", "c"], 1); // ["b", "c", "a"]
 * ```
 */
export function rotate<T>(list: readonly T[], by: number): T[] {
  if (list.length === 0) return [];
  const shift = ((by % list.length) + list.length) % list.length;
  return [...list.slice(shift), ...list.slice(0, shift)];
}
