// env.string(), env.bool(), env.url(), env.list() and env.enum(): the kinds
// read from text as it is, or from a fixed set of words.

import type { EnvOptions, EnvVar } from "./env_var.ts";
import type { EnvListOptions, EnvUrlOptions } from "./kind_options.ts";
import {
  checkDefault,
  checkName,
  checkOptions,
  describeValue,
  makeVar,
  orDefault,
} from "./_declare.ts";

const TRUE_WORDS = new Set(["true", "1", "yes", "on"]);
const FALSE_WORDS = new Set(["false", "0", "no", "off"]);
const BOOL_EXPECTED = "a boolean (true/false, 1/0, yes/no, on/off)";
export function declareString(
  name: string,
  options?: EnvOptions<string>,
): EnvVar<string> {
  checkName(name);
  checkOptions(name, options);
  const expected = "a non-empty string";
  const fallback = checkDefault(
    name,
    "a string",
    options,
    (value) => typeof value === "string" ? value : "type",
  );
  return makeVar(
    name,
    expected,
    false,
    (raw) => orDefault(raw, fallback, (text) => text),
  );
}

export function declareBool(
  name: string,
  options?: EnvOptions<boolean>,
): EnvVar<boolean> {
  checkName(name);
  checkOptions(name, options);
  const fallback = checkDefault(
    name,
    "a boolean",
    options,
    (value) => typeof value === "boolean" ? value : "type",
  );
  return makeVar(
    name,
    BOOL_EXPECTED,
    false,
    (raw) =>
      orDefault(raw, fallback, (text) => {
        const word = text.trim().toLowerCase();
        if (TRUE_WORDS.has(word)) return true;
        if (FALSE_WORDS.has(word)) return false;
        return undefined;
      }),
  );
}

export function declareUrl(name: string, options?: EnvUrlOptions): EnvVar<URL> {
  checkName(name);
  checkOptions(name, options);
  let protocols: string[] | undefined;
  if (options?.protocols !== undefined) {
    const list = options.protocols;
    if (
      !Array.isArray(list) || list.length === 0 ||
      !list.every((p) =>
        typeof p === "string" && /^[a-z][a-z0-9+.-]*:?$/i.test(p)
      )
    ) {
      throw new TypeError(
        `Invalid options for ${name}: protocols must be a non-empty array of schemes such as "https", got ${
          describeValue(list)
        }`,
      );
    }
    protocols = list.map((p) => p.toLowerCase().replace(/:$/, "") + ":");
  }
  const expected = protocols === undefined
    ? "an absolute URL"
    : `an absolute URL with scheme ${
      protocols.map((p) => p.slice(0, -1)).join(" or ")
    }`;
  const parse = (text: string): URL | undefined => {
    const url = URL.parse(text.trim());
    if (url === null) return undefined;
    return protocols === undefined || protocols.includes(url.protocol)
      ? url
      : undefined;
  };
  const fallback = checkDefault(name, expected, options, (value) => {
    if (typeof value !== "string" && !(value instanceof URL)) return "type";
    const url = parse(String(value));
    return url === undefined ? "range" : url.href;
  });
  // The default is kept as text and parsed per read: a URL object is mutable,
  // and configs read twice must not share one.
  return makeVar(name, expected, false, (raw) => {
    if (raw === undefined && fallback !== undefined) {
      return { ok: true, value: new URL(fallback.value) };
    }
    return orDefault(raw, undefined, parse);
  });
}

export function declareList(
  name: string,
  options?: EnvListOptions,
): EnvVar<string[]> {
  checkName(name);
  checkOptions(name, options);
  const separator = options?.separator ?? ",";
  if (typeof separator !== "string" || separator === "") {
    throw new TypeError(
      `Invalid options for ${name}: separator must be a non-empty string, got ${
        describeValue(separator)
      }`,
    );
  }
  const expected = separator === ","
    ? "a comma-separated list"
    : `a list separated by ${JSON.stringify(separator)}`;
  const fallback = checkDefault(
    name,
    "an array of strings",
    options,
    (value) =>
      Array.isArray(value) && value.every((item) => typeof item === "string")
        ? [...value]
        : "type",
  );
  return makeVar(name, expected, false, (raw) => {
    // Copies, so a caller that mutates its list cannot change the default.
    if (raw === undefined && fallback !== undefined) {
      return { ok: true, value: [...fallback.value] };
    }
    return orDefault(
      raw,
      undefined,
      (text) =>
        text.split(separator).map((item) => item.trim()).filter((item) =>
          item !== ""
        ),
    );
  });
}

export function declareEnum<const V extends readonly string[]>(
  name: string,
  values: V,
  options?: EnvOptions<V[number]>,
): EnvVar<V[number]> {
  checkName(name);
  checkOptions(name, options);
  if (
    !Array.isArray(values) || values.length === 0 ||
    !values.every((v) => typeof v === "string" && v !== "") ||
    new Set(values).size !== values.length
  ) {
    throw new TypeError(
      `Invalid values for ${name}: expected a non-empty array of distinct non-empty strings, got ${
        Array.isArray(values) ? JSON.stringify(values) : describeValue(values)
      }`,
    );
  }
  const allowed: ReadonlySet<string> = new Set(values);
  const expected = `one of ${values.map((v) => JSON.stringify(v)).join(", ")}`;
  const fallback = checkDefault(name, expected, options, (value) => {
    if (typeof value !== "string") return "type";
    return allowed.has(value) ? value as V[number] : "range";
  });
  return makeVar(
    name,
    expected,
    false,
    (raw) =>
      orDefault(raw, fallback, (text) => {
        const trimmed = text.trim();
        return allowed.has(trimmed) ? trimmed as V[number] : undefined;
      }),
  );
}
