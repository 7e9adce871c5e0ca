// The gate's policy file: allow, ask and deny lists, the `unprobed`
// decision, decisions and pattern templates by tool name, presets, roots
// and defaults by annotation, checked field by field and built into a
// Policy.

import {
  type Decision,
  Policy,
  type PolicyRules,
  RuleSyntaxError,
} from "../../policy/mod.ts";
import { isRecord, typeName } from "../../_util/json_type.ts";
import {
  checkRoots,
  decisionAt,
  MappingError,
  parseAnnotations,
  parsePresets,
  parseRoots,
  parseToolEntries,
} from "./_tool_mapping.ts";
import { type Flow, type GateFlow, parseFlows } from "./_flows.ts";
import { parseServers, serverPolicyValue } from "./_servers.ts";
import { type GateAuth, parseAuth } from "./_auth.ts";
import {
  basePolicyValue,
  type GateApprovers,
  type GatePrincipal,
  keepBases,
  parseApprovers,
  parsePrincipals,
} from "./_principals.ts";
import { parseToolScopes } from "./_scopes.ts";
import { parseListen } from "./_listen.ts";
import { listWords } from "../../patterns/_messages.ts";

export type { GateFlow } from "./_flows.ts";

const LISTS = ["allow", "ask", "deny"] as const;
const KEYS: readonly string[] = [
  ...LISTS,
  "unprobed",
  "tools",
  "roots",
  "presets",
  "annotations",
  "pins",
  "record",
  "flows",
  "sandbox",
  "servers",
  "scopes",
  "auth",
  "principals",
  "approvers",
  "listen",
  "redis",
];
const RECORD_CHOICES: readonly string[] = ["patterns", "digests"];

/**
 * What a policy file holds once checked: the compiled {@linkcode Policy},
 * the rule lists it was built from, the decision for tools that do not
 * answer probes, and the decisions by tool name.
 *
 * @example
 * ```ts
 * import { parseGatePolicy } from "@forge/toolkit/gate";
 *
 * const gatePolicy = parseGatePolicy({
 *   allow: ["read:**"],
 *   unprobed: "deny",
 *   tools: { search: "allow" },
 * });
 * gatePolicy.policy.evaluate(["read:a.txt"]).decision; // "allow"
 * gatePolicy.unprobed; // "deny"
 * gatePolicy.tools?.get("search"); // "allow"
 * ```
 */
export interface GatePolicy {
  /** The allow, ask and deny rules, compiled. */
  readonly policy: Policy;
  /** The rule lists as the file gave them (absent lists are empty). */
  readonly rules: Required<PolicyRules>;
  /** The decision for a tool that does not list probe support; `undefined` when the file does not say. */
  readonly unprobed: Decision | undefined;
  /**
   * Decisions by tool name (`tools: { search: allow, run_shell: deny }`):
   * for a tool without the probe, its decision instead of `unprobed`; for a
   * tool with it, `deny` refuses every call and `ask` asks even when the
   * patterns are allowed (`allow` leaves the patterns to decide).
   * A name with `*` or `?` is a glob (`git_*`), tried after the exact
   * names, in the order written. `undefined` when the file does not say.
   */
  readonly tools: ReadonlyMap<string, Decision> | undefined;
  /**
   * Pattern templates by tool name or glob, for tools that do not answer
   * the probe (`tools: { write_file: { patterns: ["write:{path}"] } }`).
   * `undefined` when the file gives none.
   */
  readonly templates: ReadonlyMap<string, readonly string[]> | undefined;
  /** The directories file templates resolve against (the first one) and name targets by. */
  readonly roots: readonly string[] | undefined;
  /** The shipped presets the file names (`filesystem`, `memory`, `fetch`, `commands`). */
  readonly presets: readonly string[] | undefined;
  /**
   * Decisions by the tools' own annotations (`readOnlyHint`,
   * `destructiveHint`) for a tool nothing else decides.
   */
  readonly annotations:
    | Readonly<{ readOnly?: Decision; destructive?: Decision }>
    | undefined;
  /**
   * The tool pins file (`gate --pins`), relative to the policy file;
   * read once at start. `undefined` when the file does not say.
   */
  readonly pins?: string;
  /**
   * How the audit log, stderr and the gate's spans record the exec and
   * custom (`x-…`) patterns of a tool, by tool name or glob
   * (`record: { run_command: patterns }`): `"patterns"` whole, or
   * `"digests"`, the default (`exec:curl [redacted sha256:…]`), since such
   * a pattern holds the call's argument values. File and net patterns are
   * always recorded whole. `undefined` when the file does not say.
   */
  readonly record?: ReadonlyMap<string, "patterns" | "digests">;
  /**
   * Rules across calls: once a call that an `after` rule meets has run in
   * the session, the flow's `deny` and `ask` rules apply to later calls.
   * `undefined` when the file gives none.
   */
  readonly flows?: readonly GateFlow[];
  /**
   * `sandbox: true` (or `{ env: [NAMES] }`): the server runs in a fence
   * derived from the rules (docs/gate.md), given only the runtime's
   * variables and those named in `env`. `undefined` when off.
   */
  readonly sandbox?: Readonly<{ env: readonly string[] }>;
  /**
   * The servers of a gate of many (`servers:`), by name; `undefined` for a
   * policy of one server.
   */
  readonly servers?: ReadonlyMap<string, GateServer>;
  /**
   * The scopes a caller's token needs to call a tool, by tool name or glob
   * (`scopes: { write_*: ["files:write"] }`); every entry naming a tool
   * guards it. `undefined` when the file gives none.
   */
  readonly scopes?: ReadonlyMap<string, readonly string[]>;
  /**
   * `auth:`: the OAuth resource server in front of a gate served over
   * HTTP (issuer, keys, resource URL, scopes every request needs).
   */
  readonly auth?: GateAuth;
  /**
   * `principals:`: callers by the claims of their tokens, whose rules add
   * to the policy for their calls (callerPolicy()). `undefined` when the
   * file gives none.
   */
  readonly principals?: readonly GatePrincipal[];
  /** `approvers:`: who may approve asked calls in the browser. */
  readonly approvers?: GateApprovers;
  /**
   * Where the gate serves Streamable HTTP (`listen: "127.0.0.1:8080"`),
   * as `--http` does; read once at start. `undefined` when the file does
   * not say.
   */
  readonly listen?: string;
  /**
   * Where a gate served over HTTP keeps its approvals
   * (`redis: "redis://127.0.0.1:6379"`), as `--redis` does; read once at
   * start. `undefined` when the file does not say.
   */
  readonly redis?: string;
}

/**
 * One server of a policy's `servers:`, checked: how the gate reaches it and
 * the policy its calls are decided by (the top level's rules with the
 * entry's own, and its keys in place of the top level's).
 *
 * @example
 * ```ts
 * import { parseGatePolicy } from "@forge/toolkit/gate";
 *
 * const { servers } = parseGatePolicy({
 *   allow: ["read:**"],
 *   servers: {
 *     files: { command: ["node", "fs.js", "/work"], deny: ["write:**"] },
 *     web: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer ${WEB_TOKEN}" } },
 *   },
 * });
 * servers?.get("files")?.policy.rules.deny; // ["write:**"]
 * servers?.get("web")?.prefix; // "web"
 * ```
 */
export interface GateServer {
  /** Its key under `servers:`, which names it in audit lines and errors. */
  readonly name: string;
  /** What its tools and prompts are listed under (`<prefix>_<tool>`); `""` lists them as they are. */
  readonly prefix: string;
  /** The program and arguments the gate spawns; absent for a `url` server. */
  readonly command?: readonly string[];
  /** The Streamable HTTP endpoint the gate speaks to; absent for a spawned one. */
  readonly url?: string;
  /** Headers sent to `url`, as written: `${NAME}` is filled from the gate's environment at start. */
  readonly headers: readonly (readonly [string, string])[];
  /** Variables added to the spawned server's environment, as written (`${NAME}` as in headers). */
  readonly env: Readonly<Record<string, string>>;
  /**
   * Seconds between the gate's pings of the server while it is up (`ping`,
   * 30 unless the entry says); 0: never. One that does not answer a ping
   * in time hangs, and is stopped and started again.
   */
  readonly ping: number;
  /** The policy its calls are decided by. */
  readonly policy: GatePolicy;
}

/**
 * A field of a policy file that is wrong: {@linkcode path} names it (`["deny", 1]`
 * for the second deny rule), {@linkcode column} points into a rule string when
 * the problem is inside one.
 *
 * @example
 * ```ts
 * import { GatePolicyError, parseGatePolicy } from "@forge/toolkit/gate";
 *
 * try {
 *   parseGatePolicy({ deny: ["write:a", "WRITE:b"] });
 * } catch (error) {
 *   if (error instanceof GatePolicyError) console.error(error.path, error.message);
 *   // ["deny", 1] 'deny[1]: unknown verb "WRITE": …'
 * }
 * ```
 */
export class GatePolicyError extends TypeError {
  /** What is wrong and what was expected, without the field's name. */
  readonly problem: string;
  /** Keys and indexes from the file's top level to the wrong value. */
  readonly path: readonly (string | number)[];
  /** The 1-based column inside the rule string, for a rule that breaks the grammar. */
  readonly column: number | undefined;

  /**
   * Creates the error; the message is `<field>: <problem>`.
   *
   * @param problem What is wrong and what was expected.
   * @param path The field's path.
   * @param column The column inside a rule string, if any.
   */
  constructor(
    problem: string,
    path: readonly (string | number)[],
    column?: number,
  ) {
    super(path.length === 0 ? problem : `${fieldName(path)}: ${problem}`);
    this.name = "GatePolicyError";
    this.problem = problem;
    this.path = path;
    this.column = column;
  }
}

/**
 * Checks the parsed content of a policy file and builds its
 * {@linkcode Policy}. The file is an object with optional `allow`, `ask` and
 * `deny` lists of rule strings (the grammar of `@forge/toolkit/policy`), an
 * optional `unprobed` of `"allow"`, `"ask"` or `"deny"`, an optional `tools`
 * object of tool names (or globs) to one of those or to
 * `{ patterns: [templates] }`, and optional `roots`, `presets`,
 * `annotations`, `pins` and `record`; nothing else.
 *
 * @example A policy file in YAML
 * ```ts
 * import { parseGatePolicy } from "@forge/toolkit/gate";
 * import { parse } from "@forge/toolkit/validate";
 *
 * const text = 'allow: ["read:**"]\ndeny: ["delete:**"]\nunprobed: ask\n';
 * const parsed = parse(text, "yaml");
 * if (parsed.ok) parseGatePolicy(parsed.value).policy.evaluate(["delete:x"]).decision; // "deny"
 * ```
 *
 * @param value The parsed file (JSON, JSONC, YAML or TOML).
 * @returns The compiled policy, the rule lists, the `unprobed` decision and the tools' decisions.
 * @throws {GatePolicyError} Naming the first wrong field, what it holds and what was expected.
 */
export function parseGatePolicy(value: unknown): GatePolicy {
  if (!isRecord(value)) {
    const got = value === undefined
      ? "nothing (the file is empty)"
      : typeName(value);
    throw new GatePolicyError(
      `Invalid policy: expected an object with allow, ask and deny lists, unprobed and tools, got ${got}`,
      [],
    );
  }
  for (const key of Object.keys(value)) {
    if (!KEYS.includes(key)) {
      const near = KEYS.find((known) => closeTo(key, known));
      throw new GatePolicyError(
        `unknown key: expected ${listWords(KEYS)}${
          near === undefined ? "" : ` (did you mean "${near}"?)`
        }`,
        [key],
      );
    }
  }
  const rules: Record<(typeof LISTS)[number], string[]> = {
    allow: [],
    ask: [],
    deny: [],
  };
  for (const list of LISTS) {
    const entries = value[list];
    if (entries === undefined || entries === null) continue;
    if (!Array.isArray(entries)) {
      const hint = typeof entries === "string"
        ? ` (write ${list}: ["${entries}"])`
        : "";
      throw new GatePolicyError(
        `expected a list of rule strings, got ${typeName(entries)}${hint}`,
        [list],
      );
    }
    entries.forEach((rule: unknown, index) => {
      if (typeof rule !== "string") {
        throw new GatePolicyError(
          `expected a rule string, got ${typeName(rule)}`,
          [list, index],
        );
      }
      rules[list].push(rule);
    });
  }
  let unprobed: Decision | undefined;
  if (value.unprobed !== undefined && value.unprobed !== null) {
    unprobed = decisionOf(value.unprobed, ["unprobed"]);
  }
  const given = (key: string) =>
    value[key] !== undefined && value[key] !== null;
  let mapping;
  try {
    const entries = given("tools") ? parseToolEntries(value.tools) : undefined;
    const roots = given("roots") ? parseRoots(value.roots) : undefined;
    const presets = given("presets") ? parsePresets(value.presets) : undefined;
    const annotations = given("annotations")
      ? parseAnnotations(value.annotations)
      : undefined;
    checkRoots(roots, entries?.templates ?? new Map(), presets ?? []);
    const templates = entries === undefined || entries.templates.size === 0
      ? undefined
      : new Map(
        [...entries.templates].map((
          [name, list],
        ) => [name, Object.freeze(list.map((t) => t.text))]),
      );
    const flows = given("flows")
      ? parseFlows(value.flows, {
        servers: given("servers") && isRecord(value.servers)
          ? Object.keys(value.servers)
          : undefined,
      })
      : undefined;
    mapping = {
      ...(flows === undefined || flows.length === 0 ? {} : { flows }),
      tools: entries?.decisions,
      templates,
      roots: roots && Object.freeze(roots),
      presets: presets && Object.freeze(presets),
      annotations,
    };
  } catch (error) {
    if (!(error instanceof MappingError)) throw error;
    throw new GatePolicyError(error.message, error.path, error.column);
  }
  const pins = value.pins ?? undefined;
  if (pins !== undefined && (typeof pins !== "string" || pins === "")) {
    throw new GatePolicyError(
      `expected the pins file's path, got ${typeName(pins)}`,
      ["pins"],
    );
  }
  const redis = value.redis ?? undefined;
  if (
    redis !== undefined &&
    (typeof redis !== "string" || !/^rediss?:\/\/./.test(redis))
  ) {
    throw new GatePolicyError(
      `expected a redis:// or rediss:// URL, got ${
        typeof redis === "string" ? JSON.stringify(redis) : typeName(redis)
      }`,
      ["redis"],
    );
  }
  const record = value.record ?? undefined;
  const recordMap = record === undefined ? undefined : parseRecord(record);
  const sandbox = parseSandbox(value.sandbox);
  const listen = value.listen ?? undefined;
  if (
    listen !== undefined &&
    (typeof listen !== "string" || parseListen(listen) === undefined)
  ) {
    throw new GatePolicyError(
      `expected "host:port" (such as "127.0.0.1:8080"), got ${
        typeof listen === "string" ? JSON.stringify(listen) : typeName(listen)
      }`,
      ["listen"],
    );
  }
  const servers = given("servers")
    ? serversOf(value, mapping.flows)
    : undefined;
  const identities = identitiesOf(value);
  let policy: Policy;
  try {
    policy = new Policy(rules);
  } catch (error) {
    if (error instanceof RuleSyntaxError && error.list !== undefined) {
      throw new GatePolicyError(
        `${error.problem} (in rule ${JSON.stringify(error.rule)})`,
        [error.list, error.index ?? 0],
        error.column,
      );
    }
    throw error;
  }
  const file: GatePolicy = Object.freeze({
    policy,
    rules: Object.freeze(rules),
    unprobed,
    ...mapping,
    ...(pins === undefined ? {} : { pins }),
    ...(recordMap === undefined ? {} : { record: recordMap }),
    ...(sandbox === undefined ? {} : { sandbox }),
    ...(servers === undefined ? {} : { servers }),
    ...(identities.scopes === undefined ? {} : { scopes: identities.scopes }),
    ...(identities.auth === undefined ? {} : { auth: identities.auth }),
    ...(identities.approvers === undefined
      ? {}
      : { approvers: identities.approvers }),
    ...(identities.principals === undefined
      ? {}
      : { principals: identities.principals.principals }),
    ...(listen === undefined ? {} : { listen }),
    ...(redis === undefined ? {} : { redis }),
  });
  if (identities.principals !== undefined) {
    keepBases(file, {
      ...identities.principals.bases,
      rules: identities.principals.rules,
      check: parseGatePolicy,
    });
  }
  return file;
}

/**
 * The checked `scopes`, `auth`, `approvers` and `principals` of a file
 * (its other keys checked before), with what principals add to.
 */
function identitiesOf(value: Record<string, unknown>) {
  const given = (key: string) =>
    value[key] !== undefined && value[key] !== null;
  try {
    const scopes = given("scopes") ? parseToolScopes(value.scopes) : undefined;
    const auth = given("auth") ? parseAuth(value.auth) : undefined;
    const approvers = given("approvers")
      ? parseApprovers(value.approvers)
      : undefined;
    if (!given("principals")) return { scopes, auth, approvers };
    const { servers: _s, flows: _f, ...top } = value;
    const bases = {
      top: basePolicyValue(value),
      servers: new Map(
        given("servers")
          ? Object.entries(value.servers as Record<string, unknown>).map((
            [name, entry],
          ) => [
            name,
            serverPolicyValue(entry as Record<string, unknown>, top),
          ])
          : [],
      ),
    };
    const { principals, rules } = parsePrincipals(value.principals, bases, {
      check: parseGatePolicy,
      explain: (error) => error instanceof GatePolicyError ? error : undefined,
    });
    return {
      scopes,
      auth,
      approvers,
      principals: { principals, rules, bases },
    };
  } catch (error) {
    if (!(error instanceof MappingError)) throw error;
    throw new GatePolicyError(error.message, error.path, error.column);
  }
}

/** The checked `servers:` of a policy file, each entry's policy with the top level's flows. */
function serversOf(
  value: Record<string, unknown>,
  flows: readonly Flow[] | undefined,
): Map<string, GateServer> {
  const { servers: _servers, flows: _flows, ...top } = value;
  try {
    const entries = parseServers(value.servers, top, {
      check: parseGatePolicy,
      explain: (error) => error instanceof GatePolicyError ? error : undefined,
    });
    // One session's flows span its servers: every entry decides with the
    // same flows, so that a call on one sets off what applies on another.
    return new Map(
      [...entries].map(([name, entry]) => [
        name,
        flows === undefined ? entry : Object.freeze({
          ...entry,
          policy: Object.freeze({ ...entry.policy, flows }),
        }),
      ]),
    );
  } catch (error) {
    if (!(error instanceof MappingError)) throw error;
    throw new GatePolicyError(error.message, error.path, error.column);
  }
}

/** Checks `sandbox`: a boolean, or `{ env: [variable names] }`. */
function parseSandbox(
  value: unknown,
): Readonly<{ env: readonly string[] }> | undefined {
  if (value === undefined || value === null || value === false) return;
  if (value === true) return Object.freeze({ env: Object.freeze([]) });
  const expected =
    'expected true, false or { env: ["NAME", …] } (the variables the server is given)';
  if (!isRecord(value)) {
    throw new GatePolicyError(`${expected}, got ${typeName(value)}`, [
      "sandbox",
    ]);
  }
  for (const key of Object.keys(value)) {
    if (key !== "env") {
      throw new GatePolicyError(`unknown key: ${expected}`, ["sandbox", key]);
    }
  }
  const env = value.env ?? [];
  if (!Array.isArray(env)) {
    throw new GatePolicyError(
      `expected a list of variable names, got ${typeName(env)}`,
      ["sandbox", "env"],
    );
  }
  env.forEach((name: unknown, index) => {
    if (typeof name !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new GatePolicyError(
        `expected a variable name (letters, digits, _), got ${
          typeof name === "string" ? JSON.stringify(name) : typeName(name)
        }`,
        ["sandbox", "env", index],
      );
    }
  });
  return Object.freeze({ env: Object.freeze([...env]) });
}

/**
 * Checks `record`: tool names (or globs) to `"patterns"` or `"digests"`, as
 * a Map (a tool may be named "constructor").
 */
function parseRecord(
  value: unknown,
): ReadonlyMap<string, "patterns" | "digests"> {
  if (!isRecord(value)) {
    throw new GatePolicyError(
      `expected tool names with "patterns" or "digests" (record: { run_command: patterns }), got ${
        typeName(value)
      }`,
      ["record"],
    );
  }
  const record = new Map<string, "patterns" | "digests">();
  for (const [name, choice] of Object.entries(value)) {
    if (typeof choice !== "string" || !RECORD_CHOICES.includes(choice)) {
      throw new GatePolicyError(
        `expected "patterns" (recorded whole) or "digests", got ${
          typeof choice === "string" ? JSON.stringify(choice) : typeName(choice)
        }`,
        ["record", name],
      );
    }
    record.set(name, choice as "patterns" | "digests");
  }
  return record;
}

/**
 * Checks `tools`, an object of tool names to `"allow"`, `"ask"` or `"deny"`,
 * as a Map (a tool may be named "constructor" or "__proto__"). Internal: the
 * policy file's `tools` and startGate()'s option of the same name.
 *
 * @throws {GatePolicyError} Naming `tools`, or the tool whose decision is wrong.
 */
export function parseToolDecisions(value: unknown): Map<string, Decision> {
  if (!isRecord(value)) {
    throw new GatePolicyError(
      `expected tool names with "allow", "ask" or "deny" (tools: { search: allow }), got ${
        typeName(value)
      }`,
      ["tools"],
    );
  }
  const tools = new Map<string, Decision>();
  for (const [name, decision] of Object.entries(value)) {
    tools.set(name, decisionOf(decision, ["tools", name]));
  }
  return tools;
}

function decisionOf(value: unknown, path: readonly string[]): Decision {
  try {
    return decisionAt(value, path);
  } catch (error) {
    if (!(error instanceof MappingError)) throw error;
    throw new GatePolicyError(error.message, error.path);
  }
}

/** `deny[1]`, `unprobed`, `tools.write_file.patterns[0]`. */
function fieldName(path: readonly (string | number)[]): string {
  return path.map((part, i) =>
    typeof part === "number" ? `[${part}]` : i === 0 ? part : `.${part}`
  ).join("");
}

// A one-edit typo or a wrong case ("Allow", "alow", "denny").
function closeTo(a: string, b: string): boolean {
  const x = a.toLowerCase();
  if (x === b) return true;
  if (Math.abs(x.length - b.length) > 1) return false;
  let i = 0;
  let j = 0;
  let edits = 0;
  while (i < x.length && j < b.length) {
    if (x[i] === b[j]) {
      i++;
      j++;
      continue;
    }
    if (++edits > 1) return false;
    if (x.length > b.length) i++;
    else if (x.length < b.length) j++;
    else {
      i++;
      j++;
    }
  }
  return edits + (x.length - i) + (b.length - j) <= 1;
}
