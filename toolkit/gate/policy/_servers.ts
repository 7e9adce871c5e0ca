// Internal: `servers:` in a policy file, the gate of many servers. Each
// entry says how its server is reached (`command`, or `url` with
// `headers`), what the server is given (`env`), its name prefix, how often
// the gate pings it (`ping`), and any
// key a one-server policy takes; its `allow`, `ask` and `deny` add to the
// top-level rules, and its other keys stand in for the top level's. Each
// entry is checked as the policy its server's calls are decided by, so a
// wrong field is found where it is written. `${NAME}` in `headers` and
// `env` is kept as written here: the gate fills it from its environment
// when it starts the server (expandVariables), so a shared file holds no
// secret.

import { isRecord, typeName } from "../../_util/json_type.ts";
import { checkPrefix } from "../../_util/mount_names.ts";
import { MappingError } from "./_tool_mapping.ts";

/** One server of a policy's `servers:`, checked. */
export interface ServerEntry<P> {
  /** Its key under `servers:`, which names it in audit lines and errors. */
  readonly name: string;
  /** What its tools and prompts are listed under: `<prefix>_<tool>`; `""` lists them as they are. */
  readonly prefix: string;
  /** The program and arguments the gate spawns; absent for a `url` server. */
  readonly command?: readonly string[];
  /** The Streamable HTTP endpoint the gate speaks to; absent for a spawned one. */
  readonly url?: string;
  /** Headers sent to `url`, as written (`${NAME}` unfilled). */
  readonly headers: readonly (readonly [string, string])[];
  /** Variables added to the spawned server's environment, as written. */
  readonly env: Readonly<Record<string, string>>;
  /** Seconds between the gate's pings of the server while it is up; 0: never. */
  readonly ping: number;
  /** The policy its calls are decided by: the top level's with its own keys. */
  readonly policy: P;
}

/** The keys that say how a server is reached and run; the others are policy keys. */
const CONNECTION_KEYS: readonly string[] = [
  "command",
  "url",
  "headers",
  "env",
  "prefix",
  "ping",
];
/** Seconds between two pings of a server that is up, unless its entry says. */
export const PING_EVERY_S = 30;
/**
 * The keys of one server's policy: what an entry may hold besides how its
 * server is reached, and what a caller's view starts from (_principals.ts).
 */
export const ENTRY_POLICY_KEYS: readonly string[] = [
  "allow",
  "ask",
  "deny",
  "unprobed",
  "tools",
  "roots",
  "presets",
  "annotations",
  "pins",
  "record",
  "sandbox",
  "scopes",
];
/** The top-level keys that each entry takes unless it has its own. */
const DEFAULT_KEYS: readonly string[] = [
  "unprobed",
  "tools",
  "roots",
  "presets",
  "annotations",
  "record",
  "sandbox",
  "scopes",
];
const RULE_LISTS = ["allow", "ask", "deny"] as const;
const SERVER_NAME = /^[A-Za-z0-9.-][A-Za-z0-9._-]{0,62}$/;
const VARIABLE = /\$\{([^}]*)\}/g;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A policy checker and how its errors read, given by the policy file. */
export interface PolicyChecker<P> {
  /** Checks a one-server policy object. */
  check(value: Record<string, unknown>): P;
  /** The problem, path and column of an error `check` threw; `undefined` for another error. */
  explain(
    error: unknown,
  ):
    | { problem: string; path: readonly (string | number)[]; column?: number }
    | undefined;
}

/**
 * Checks `servers:` of a policy file whose top level is `top`: an object of
 * server names to entries. Each entry's policy is checked by `checker`,
 * merged with the top level's.
 *
 * @throws {MappingError} Naming the wrong field from the file's top.
 */
export function parseServers<P>(
  value: unknown,
  top: Record<string, unknown>,
  checker: PolicyChecker<P>,
): ReadonlyMap<string, ServerEntry<P>> {
  if (!isRecord(value) || Object.keys(value).length === 0) {
    throw new MappingError(
      `expected an object of server names to { command: [...] } or { url: "..." }, got ${
        isRecord(value) ? "an empty object" : typeName(value)
      }`,
      ["servers"],
    );
  }
  if (top.pins !== undefined && top.pins !== null) {
    throw new MappingError(
      "a policy with servers keeps pins per server: expected pins in each server's entry",
      ["pins"],
    );
  }
  const servers = new Map<string, ServerEntry<P>>();
  const prefixes = new Map<string, string>();
  for (const [name, entry] of Object.entries(value)) {
    const path = ["servers", name];
    if (!SERVER_NAME.test(name)) {
      throw new MappingError(
        "invalid server name: expected 1-63 characters of A-Z a-z 0-9 . _ - not starting with _",
        path,
      );
    }
    if (!isRecord(entry)) {
      throw new MappingError(
        `expected { command: [...] } or { url: "..." }, got ${typeName(entry)}`,
        path,
      );
    }
    for (const key of Object.keys(entry)) {
      if (!CONNECTION_KEYS.includes(key) && !ENTRY_POLICY_KEYS.includes(key)) {
        const why = key === "flows"
          ? "flows span servers: expected them at the top level"
          : `unknown key: expected ${
            [...CONNECTION_KEYS, ...ENTRY_POLICY_KEYS].join(", ")
          }`;
        throw new MappingError(why, [...path, key]);
      }
    }
    const connection = parseConnection(entry, path);
    const prefix = parsePrefix(entry.prefix ?? name, [...path, "prefix"]);
    if (prefix !== "") {
      const other = prefixes.get(prefix);
      if (other !== undefined) {
        throw new MappingError(
          `servers ${JSON.stringify(other)} and ${
            JSON.stringify(name)
          } share the prefix ${
            JSON.stringify(prefix)
          }: expected a prefix of its own for each`,
          [...path, "prefix"],
        );
      }
      prefixes.set(prefix, name);
    }
    servers.set(
      name,
      Object.freeze({
        name,
        prefix,
        ...connection,
        ping: parsePing(entry.ping, [...path, "ping"]),
        policy: entryPolicy(entry, top, {
          path,
          checker,
          remote: connection.url !== undefined,
        }),
      }),
    );
  }
  return servers;
}

/** The entry's `command` or `url`, `headers` and `env`. */
function parseConnection(
  entry: Record<string, unknown>,
  path: readonly (string | number)[],
): {
  command?: readonly string[];
  url?: string;
  headers: readonly (readonly [string, string])[];
  env: Readonly<Record<string, string>>;
} {
  const { command, url } = entry;
  if ((command === undefined) === (url === undefined)) {
    throw new MappingError(
      command === undefined
        ? 'missing: expected command: ["program", "arg", ...] or url: "https://…/mcp"'
        : "both command and url: expected one way to reach the server",
      path,
    );
  }
  const headers = parseStrings(entry.headers, [...path, "headers"]);
  const env = parseStrings(entry.env, [...path, "env"]);
  if (url !== undefined) {
    if (typeof url !== "string" || !isHttpUrl(url)) {
      throw new MappingError(
        `expected an http:// or https:// URL, got ${
          typeof url === "string" ? JSON.stringify(url) : typeName(url)
        }`,
        [...path, "url"],
      );
    }
    if (Object.keys(env).length > 0) {
      throw new MappingError(
        "a url server is not spawned: expected env only with command",
        [...path, "env"],
      );
    }
    return { url, headers: Object.freeze(Object.entries(headers)), env: {} };
  }
  if (
    !Array.isArray(command) || command.length === 0 ||
    !command.every((part) => typeof part === "string") || command[0] === ""
  ) {
    throw new MappingError(
      `expected the program and its arguments as a non-empty list of strings, got ${
        typeName(command)
      }`,
      [...path, "command"],
    );
  }
  if (Object.keys(headers).length > 0) {
    throw new MappingError(
      "headers are sent to a url server: expected headers only with url",
      [...path, "headers"],
    );
  }
  return {
    command: Object.freeze([...command as string[]]),
    headers: [],
    env: Object.freeze(env),
  };
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

/** An object of strings (`headers`, `env`), whose `${NAME}`s are well formed. */
function parseStrings(
  value: unknown,
  path: readonly (string | number)[],
): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) {
    throw new MappingError(
      `expected an object of names to strings, got ${typeName(value)}`,
      path,
    );
  }
  const checked: Record<string, string> = {};
  for (const [key, text] of Object.entries(value)) {
    if (typeof text !== "string") {
      throw new MappingError(
        `expected a string, got ${typeName(text)}`,
        [...path, key],
      );
    }
    for (const [, variable] of text.matchAll(VARIABLE)) {
      if (!VARIABLE_NAME.test(variable)) {
        throw new MappingError(
          `invalid variable \${${variable}}: expected \${NAME} with letters, digits and _`,
          [...path, key],
        );
      }
    }
    checked[key] = text;
  }
  return checked;
}

/** `ping`: seconds (fractions allowed) between two pings; 0 turns them off. */
function parsePing(
  value: unknown,
  path: readonly (string | number)[],
): number {
  if (value === undefined || value === null) return PING_EVERY_S;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new MappingError(
      `expected the seconds between two pings of the server, a number >= 0 (0: never), got ${
        typeof value === "number" ? value : typeName(value)
      }`,
      path,
    );
  }
  return value;
}

function parsePrefix(
  value: unknown,
  path: readonly (string | number)[],
): string {
  try {
    return checkPrefix(value, "Invalid prefix");
  } catch (error) {
    const problem = (error as Error).message.replace(/^Invalid prefix: /, "");
    throw new MappingError(problem, path);
  }
}

/**
 * The raw policy object an entry's calls are decided by (what
 * {@linkcode parseServers} checks): the top level's rules and then the
 * entry's, its own other keys, else the top level's. Other views of a
 * server (principals.ts) start from it.
 */
export function serverPolicyValue(
  entry: Record<string, unknown>,
  top: Record<string, unknown>,
): Record<string, unknown> {
  return mergedEntry(entry, top, entry.url !== undefined).merged;
}

function mergedEntry(
  entry: Record<string, unknown>,
  top: Record<string, unknown>,
  remote: boolean,
): {
  merged: Record<string, unknown>;
  given: string[];
  topLengths: Record<string, number>;
} {
  const merged: Record<string, unknown> = {};
  for (const key of DEFAULT_KEYS) {
    // A url server runs where it runs: the top level's sandbox is for
    // the servers the gate spawns.
    if (key === "sandbox" && remote) continue;
    if (top[key] !== undefined && top[key] !== null) merged[key] = top[key];
  }
  const given: string[] = [];
  for (const key of ENTRY_POLICY_KEYS) {
    if (entry[key] === undefined || entry[key] === null) continue;
    given.push(key);
    if ((RULE_LISTS as readonly string[]).includes(key)) continue;
    merged[key] = entry[key];
  }
  const topLengths: Record<string, number> = {};
  for (const list of RULE_LISTS) {
    const above = Array.isArray(top[list]) ? top[list] as unknown[] : [];
    const own = entry[list];
    topLengths[list] = above.length;
    if (own === undefined || own === null) {
      if (above.length > 0) merged[list] = above;
      continue;
    }
    // Not a list: checked as the entry's own, where it is written.
    merged[list] = Array.isArray(own) ? [...above, ...own] : own;
    if (!Array.isArray(own)) topLengths[list] = 0;
  }
  return { merged, given, topLengths };
}

/**
 * The policy an entry's calls are decided by: the top level's rules and
 * then the entry's, its own other keys, else the top level's. A wrong field
 * is named where it is written: in the entry, or at the top.
 */
function entryPolicy<P>(
  entry: Record<string, unknown>,
  top: Record<string, unknown>,
  context: {
    path: readonly (string | number)[];
    checker: PolicyChecker<P>;
    remote: boolean;
  },
): P {
  const { merged, given, topLengths } = mergedEntry(
    entry,
    top,
    context.remote,
  );
  if (context.remote && given.includes("sandbox") && entry.sandbox !== false) {
    throw new MappingError(
      "a url server cannot be sandboxed: the fence is for a server the gate spawns (run it fenced where it runs)",
      [...context.path, "sandbox"],
    );
  }
  try {
    return context.checker.check(merged);
  } catch (error) {
    const explained = context.checker.explain(error);
    if (explained === undefined) throw error;
    const [key, index, ...rest] = explained.path;
    let path: readonly (string | number)[];
    if (typeof key === "string" && key in topLengths) {
      const above = topLengths[key];
      path = typeof index === "number" && index < above ? explained.path : [
        ...context.path,
        key,
        ...(typeof index === "number"
          ? [index - above, ...rest]
          : index === undefined
          ? []
          : [index, ...rest]),
      ];
    } else if (typeof key === "string" && !given.includes(key)) {
      path = explained.path;
    } else {
      path = [...context.path, ...explained.path];
    }
    throw new MappingError(explained.problem, path, explained.column);
  }
}

/**
 * `text` with each `${NAME}` replaced by `lookup(NAME)`; a variable that
 * `lookup` does not have is an error naming it and `where` it is used.
 */
export function expandVariables(
  text: string,
  lookup: (name: string) => string | undefined,
  where: string,
): string {
  return text.replace(VARIABLE, (_, name: string) => {
    const value = lookup(name);
    if (value === undefined) {
      throw new Error(
        `Cannot start the server: ${where} uses \${${name}}, which is not set in the gate's environment`,
      );
    }
    return value;
  });
}
