// Internal: "did you mean" suggestions, shared by the server's unknown-tool
// error, argument issues and the gate, so all three suggest alike.

/** Near enough to suggest: this many edits at most, or the same name in another case. */
const MAX_SUGGESTED_EDITS = 2;

/** How many names a suggestion offers at most. */
const MAX_SUGGESTED_NAMES = 3;

/**
 * The names nearest to an unknown `name` (a different case, or at most two
 * edits), the nearest first, at most three.
 *
 * @example
 * ```ts
 * import { nearestNames } from "./nearest_names.ts";
 * nearestNames("helo", ["hello", "write_file"]); // ["hello"]
 * ```
 */
export function nearestNames(
  name: string,
  names: Iterable<string>,
): string[] {
  const scored: { candidate: string; distance: number }[] = [];
  for (const candidate of names) {
    // Edits are at least the length difference: a long name is near
    // nothing, and costs no distance table.
    if (Math.abs(candidate.length - name.length) > MAX_SUGGESTED_EDITS) {
      continue;
    }
    const distance = candidate.toLowerCase() === name.toLowerCase()
      ? 0
      : editDistance(name, candidate);
    if (distance <= MAX_SUGGESTED_EDITS) scored.push({ candidate, distance });
  }
  return scored.sort((a, b) => a.distance - b.distance)
    .slice(0, MAX_SUGGESTED_NAMES)
    .map((s) => s.candidate);
}

/**
 * `; did you mean "a" or "b"?` for the names nearest to `name`, or `""`
 * when none is near.
 *
 * @example
 * ```ts
 * import { didYouMean } from "./nearest_names.ts";
 * `Unknown tool: "helo"${didYouMean("helo", ["hello"])}`;
 * // 'Unknown tool: "helo"; did you mean "hello"?'
 * ```
 */
export function didYouMean(name: string, names: Iterable<string>): string {
  const near = nearestNames(name, names);
  return near.length === 0
    ? ""
    : `; did you mean ${near.map((n) => JSON.stringify(n)).join(" or ")}?`;
}

/**
 * Edit distance where swapping two neighbouring letters counts as one edit.
 *
 * @example
 * ```ts
 * import { editDistance } from "./nearest_names.ts";
 * editDistance("nmae", "name"); // 1
 * ```
 */
export function editDistance(a: string, b: string): number {
  const rows = Array.from(
    { length: a.length + 1 },
    (_, i) =>
      Array.from(
        { length: b.length + 1 },
        (_, j) => (i === 0 ? j : j === 0 ? i : 0),
      ),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(
        rows[i - 1][j] + 1,
        rows[i][j - 1] + 1,
        rows[i - 1][j - 1] + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
      }
    }
  }
  return rows[a.length][b.length];
}
