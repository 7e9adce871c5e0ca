// Internal: the one check of a whole-number option (a size, a count, a
// duration in milliseconds, a port), so that every option says what it
// expected in the same words:
// "Cannot create server: pageSize must be a whole number >= 1, got 0".

/** Options for {@linkcode checkWholeNumber}. */
export interface WholeNumberOptions {
  /** The smallest value accepted. @default {0} */
  min?: number;
  /** The largest value accepted. @default {Number.MAX_SAFE_INTEGER} */
  max?: number;
  /** A value accepted besides whole numbers (`Infinity`, `null`). */
  or?: number | null;
  /** What the number counts, for the message ("milliseconds", "bytes"). */
  unit?: string;
}

/**
 * Returns `value` when it is a whole number in range (or `options.or`);
 * otherwise throws a `RangeError` whose message starts with `where` and
 * names the option, the range and what came.
 *
 * @example
 * ```ts ignore
 * checkWholeNumber("Cannot create server", "pageSize", 0, { min: 1 });
 * // RangeError: Cannot create server: pageSize must be a whole number >= 1, got 0
 * ```
 */
export function checkWholeNumber(
  where: string,
  name: string,
  value: unknown,
  options: WholeNumberOptions = {},
): number {
  const { min = 0, max = Number.MAX_SAFE_INTEGER } = options;
  if ("or" in options && value === options.or) return value as number;
  if (
    typeof value === "number" && Number.isSafeInteger(value) && value >= min &&
    value <= max
  ) return value;
  const range = max === Number.MAX_SAFE_INTEGER
    ? `>= ${min}`
    : `from ${min} to ${max}`;
  const or = "or" in options ? ` or ${options.or}` : "";
  const unit = options.unit === undefined ? "" : ` of ${options.unit}`;
  const got = typeof value === "string" ? JSON.stringify(value) : String(value);
  throw new RangeError(
    `${where}: ${name} must be a whole number${unit} ${range}${or}, got ${got}`,
  );
}
