// env.duration(): text such as 1h30m, read as whole milliseconds.

import type { EnvVar } from "./env_var.ts";
import type { EnvDurationOptions } from "./kind_options.ts";
import {
  checkDefault,
  checkName,
  checkOptions,
  describeValue,
  makeVar,
  orDefault,
} from "./_declare.ts";
import { checkWholeNumber } from "../_util/whole_number.ts";

const DURATION_PART_RE = /(\d+(?:\.\d+)?|\.\d+)(ms|d|h|m|s)/y;
// Largest first: a duration lists its units in this order, each at most once.
const DURATION_UNITS = ["d", "h", "m", "s", "ms"] as const;
const UNIT_MS: Readonly<Record<string, number>> = {
  d: 86_400_000,
  h: 3_600_000,
  m: 60_000,
  s: 1_000,
  ms: 1,
};
const DURATION_EXAMPLES = "such as 500ms, 5s, 2m, 1h30m";
/** Parses duration text to whole milliseconds, or `undefined` if malformed. */
function parseDuration(text: string): number | undefined {
  if (text === "0") return 0;
  if (text === "") return undefined;
  let total = 0;
  let lastUnit = -1;
  DURATION_PART_RE.lastIndex = 0;
  while (DURATION_PART_RE.lastIndex < text.length) {
    const match = DURATION_PART_RE.exec(text);
    if (match === null) return undefined;
    const unit = DURATION_UNITS.indexOf(
      match[2] as typeof DURATION_UNITS[number],
    );
    if (unit <= lastUnit) return undefined;
    lastUnit = unit;
    total += Number(match[1]) * UNIT_MS[match[2]];
  }
  const ms = Math.round(total);
  return Number.isSafeInteger(ms) ? ms : undefined;
}

function formatDuration(ms: number): string {
  if (ms === 0) return "0";
  let rest = ms;
  let out = "";
  for (const unit of DURATION_UNITS) {
    const size = UNIT_MS[unit];
    const count = unit === "ms" ? rest : Math.floor(rest / size);
    if (count > 0) out += `${count}${unit}`;
    rest -= count * size;
  }
  return out;
}

function checkDurationOption(
  name: string,
  key: string,
  value: unknown,
): { ms: number; text: string } | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "number") {
    checkWholeNumber(`Invalid options for ${name}`, key, value, {
      unit: "milliseconds",
    });
    return { ms: value, text: formatDuration(value) };
  }
  if (typeof value === "string") {
    const ms = parseDuration(value.trim());
    if (ms === undefined) {
      throw new TypeError(
        `Invalid options for ${name}: ${key} must be a duration ${DURATION_EXAMPLES}, got ${
          JSON.stringify(value)
        }`,
      );
    }
    return { ms, text: value.trim() };
  }
  throw new TypeError(
    `Invalid options for ${name}: ${key} must be a duration string or milliseconds, got ${
      describeValue(value)
    }`,
  );
}

export function declareDuration(
  name: string,
  options?: EnvDurationOptions,
): EnvVar<number> {
  checkName(name);
  checkOptions(name, options);
  const min = checkDurationOption(name, "min", options?.min);
  const max = checkDurationOption(name, "max", options?.max);
  if (min !== undefined && max !== undefined && min.ms > max.ms) {
    throw new RangeError(
      `Invalid options for ${name}: min must not exceed max, got min ${min.text} and max ${max.text}`,
    );
  }
  let range = "";
  if (min !== undefined && max !== undefined) {
    range = ` from ${min.text} to ${max.text}`;
  } else if (min !== undefined) range = ` of at least ${min.text}`;
  else if (max !== undefined) range = ` of at most ${max.text}`;
  const expected = `a duration${range} (${DURATION_EXAMPLES})`;
  const accept = (ms: number): boolean =>
    (min === undefined || ms >= min.ms) && (max === undefined || ms <= max.ms);
  const fallback = checkDefault(name, expected, options, (value) => {
    let ms: number | undefined;
    if (typeof value === "number") {
      ms = Number.isSafeInteger(value) && value >= 0 ? value : undefined;
    } else if (typeof value === "string") {
      ms = parseDuration(value.trim());
    } else {
      return "type";
    }
    return ms !== undefined && accept(ms) ? ms : "range";
  });
  return makeVar(
    name,
    expected,
    false,
    (raw) =>
      orDefault(raw, fallback, (text) => {
        const ms = parseDuration(text.trim());
        return ms !== undefined && accept(ms) ? ms : undefined;
      }),
  );
}
