// Internal: `gate test CASES --policy FILE`: decides each case of a cases
// file with the gate's own decision code (_offline.ts), no server started,
// and prints each case whose decision is not the expected one, with what
// decided it. Exit 0 when every case holds, 1 on a miss, 2 for a bad
// command line or a file that cannot be read or is wrong (located). With a
// policy that names its servers, every call of a case names its server and
// is decided by that server's view of the policy, as in the gate. A case
// with `claims:` (a caller's token claims: sub, groups, scope, any other)
// is decided by that caller's view: the principals they match, with their
// rules and flows, as a gate with `auth:` decides their calls.

import type { Decision } from "../../policy/mod.ts";
import { isRecord, typeName } from "../../_util/json_type.ts";
import { parse } from "../../../validate/mod.ts";
import { readSettingsFile } from "./_settings_file.ts";
import { locateField } from "./_locate.ts";
import { type CallerClaims, claimsOfRecord } from "./_claims.ts";
import {
  decidedBy,
  loadPolicy,
  type OfflineCall,
  OfflineSession,
  serverNames,
} from "./_offline.ts";
import { listWords } from "../../patterns/_messages.ts";

/** The usage of the test subcommand. */
export const CASES_USAGE = "Usage: gate test CASES --policy FILE";

const DECISIONS: readonly string[] = ["allow", "ask", "deny"];
const CALL_KEYS: readonly string[] = [
  "server",
  "tool",
  "arguments",
  "patterns",
  "annotations",
  "listed",
];
const CASE_KEYS: readonly string[] = [
  "name",
  ...CALL_KEYS,
  "claims",
  "before",
  "expect",
];

/**
 * One case: a call, the calls before it in its session, the caller's
 * claims, the decision expected.
 */
interface Case {
  name: string;
  path: (string | number)[];
  call: OfflineCall;
  before: OfflineCall[];
  claims: CallerClaims | undefined;
  expect: Decision;
}

/** A wrong field of the cases file (placed at `at`, the field by default). */
class CaseError extends TypeError {
  readonly path: readonly (string | number)[];
  constructor(
    problem: string,
    path: readonly (string | number)[],
    at: readonly (string | number)[] = path,
  ) {
    super(`${fieldName(path)}: ${problem}`);
    this.path = at;
  }
}

/**
 * Runs `test <args>`; resolves with the exit status. `options.path` makes
 * a file named on the command line the path to open.
 */
export async function casesCommand(
  args: readonly string[],
  options: { path?: (given: string) => string } = {},
): Promise<number> {
  const parsed = testArgs(args);
  if (parsed === undefined) {
    console.error(
      `forge gate: Expected test CASES --policy FILE, got test ${
        args.join(" ")
      }`,
    );
    return 2;
  }
  const open = options.path ?? ((given: string) => given);
  const inForce = await loadPolicy(open(parsed.policy), parsed.policy);
  if ("problem" in inForce) {
    console.error(`forge gate: Cannot load the policy: ${inForce.problem}`);
    return 2;
  }
  const read = await readCases(
    open(parsed.cases),
    parsed.cases,
    serverNames(inForce),
  );
  if ("problem" in read) {
    console.error(`forge gate: Cannot read the cases: ${read.problem}`);
    return 2;
  }
  let missed = 0;
  for (const test of read.cases) {
    // Each case is a session of its own: the calls before it, then it.
    const session = new OfflineSession(inForce, { claims: test.claims });
    for (const call of test.before) {
      const before = await session.decide(call);
      // An asked call is taken as approved: it runs, as a denied one never does.
      if (before.decision !== "deny") session.ran(before.call);
    }
    const decided = await session.decide(test.call);
    if (decided.decision === test.expect) continue;
    missed++;
    const place = read.place(test.path);
    const on = test.call.server === undefined
      ? ""
      : ` on server "${test.call.server}"`;
    console.log(
      `${parsed.cases}:${place.line}:${place.column}: ${test.name}${on}: expected ${test.expect}, got ${decided.decision} by ${
        decidedBy(decided)
      }`,
    );
  }
  const total = read.cases.length;
  console.log(
    missed === 0
      ? `${parsed.cases}: ${total} ${total === 1 ? "case holds" : "cases hold"}`
      : `${parsed.cases}: ${missed} of ${total} ${
        total === 1 ? "case" : "cases"
      } missed`,
  );
  return missed === 0 ? 0 : 1;
}

/** `CASES --policy FILE`, in either order. */
function testArgs(
  args: readonly string[],
): { cases: string; policy: string } | undefined {
  let cases: string | undefined;
  let policy: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--policy" || arg.startsWith("--policy=")) {
      if (policy !== undefined) return undefined;
      policy = arg === "--policy" ? args[++i] : arg.slice(9);
      if (policy === undefined || policy === "") return undefined;
    } else if (cases === undefined && !arg.startsWith("-")) cases = arg;
    else return undefined;
  }
  return cases === undefined || policy === undefined
    ? undefined
    : { cases, policy };
}

/** Reads and checks a cases file; a wrong field is placed at its line. */
async function readCases(
  path: string,
  shown: string,
  servers: readonly string[] | undefined,
): Promise<
  | {
    cases: Case[];
    place: (path: readonly (string | number)[]) => {
      line: number;
      column: number;
    };
  }
  | { problem: string }
> {
  const file = await readSettingsFile(path, shown);
  if ("problem" in file) return file;
  const { text, format } = file;
  const parsed = parse(text, format);
  const first = parsed.diagnostics.find((d) => d.severity === "error") ??
    parsed.diagnostics[0];
  if (!parsed.ok || first !== undefined) {
    return {
      problem: `${shown}:${first.line}:${first.column}: ${first.message}`,
    };
  }
  const value = parsed.value;
  const place = (at: readonly (string | number)[]) => {
    let list: unknown = value;
    for (const key of at) {
      if (typeof key === "number") break;
      list = isRecord(list) ? list[key] : undefined;
    }
    return locateField(text, at, Array.isArray(list) ? list : []);
  };
  try {
    return { cases: checkCases(value, servers), place };
  } catch (error) {
    if (!(error instanceof CaseError)) throw error;
    const { line, column } = place(error.path);
    return { problem: `${shown}:${line}:${column}: ${error.message}` };
  }
}

function checkCases(
  value: unknown,
  servers: readonly string[] | undefined,
): Case[] {
  if (!isRecord(value) || !Array.isArray(value.cases)) {
    throw new CaseError(
      `expected a list of cases ({ tool, arguments or patterns, expect }), got ${
        typeName(isRecord(value) ? value.cases : value)
      }`,
      ["cases"],
    );
  }
  for (const key of Object.keys(value)) {
    if (key !== "cases") {
      throw new CaseError("unknown key: expected cases", [key]);
    }
  }
  return value.cases.map((entry: unknown, index) => {
    const path = ["cases", index];
    const object = objectAt(entry, path);
    for (const key of Object.keys(object)) {
      if (!CASE_KEYS.includes(key)) {
        throw new CaseError(
          `unknown key: expected ${listWords(CASE_KEYS)}`,
          [...path, key],
        );
      }
    }
    const { name, before, expect, claims } = object;
    if (name !== undefined && typeof name !== "string") {
      throw new CaseError(`expected a string, got ${typeName(name)}`, [
        ...path,
        "name",
      ]);
    }
    if (typeof expect !== "string" || !DECISIONS.includes(expect)) {
      throw new CaseError(
        `expected allow, ask or deny, got ${
          expect === undefined ? "nothing" : JSON.stringify(expect)
        }`,
        [...path, "expect"],
      );
    }
    if (before !== undefined && !Array.isArray(before)) {
      throw new CaseError(
        `expected a list of the calls before it, got ${typeName(before)}`,
        [...path, "before"],
      );
    }
    return {
      name: `cases[${index}]${name === undefined ? "" : ` (${name})`}`,
      path: [...path, "expect"],
      call: callOf(object, path, servers),
      before: (before ?? []).map((call: unknown, i: number) => {
        const at = [...path, "before", i];
        const given = objectAt(call, at);
        for (const key of Object.keys(given)) {
          if (!CALL_KEYS.includes(key)) {
            throw new CaseError(
              `unknown key: expected ${CALL_KEYS.join(", ")}`,
              [...at, key],
            );
          }
        }
        return callOf(given, at, servers);
      }),
      claims: claims === undefined
        ? undefined
        : claimsAt(claims, [...path, "claims"]),
      expect: expect as Decision,
    };
  });
}

/**
 * A case's `claims:`, the caller's as a verified token gives them: `sub`
 * a string, `groups` a string or list of them, `scope` space-separated or
 * a list, any other claim as it is.
 */
function claimsAt(
  value: unknown,
  path: (string | number)[],
): CallerClaims {
  if (!isRecord(value)) {
    throw new CaseError(
      `expected the caller's token claims ({ sub: alice, groups: [admins] }), got ${
        typeName(value)
      }`,
      path,
    );
  }
  const { sub, groups, scope } = value;
  if (sub !== undefined && (typeof sub !== "string" || sub === "")) {
    throw new CaseError(
      `expected a non-empty string, got ${sub === "" ? '""' : typeName(sub)}`,
      [...path, "sub"],
    );
  }
  const strings = (list: unknown) =>
    typeof list === "string" ||
    Array.isArray(list) && list.every((item) => typeof item === "string");
  if (groups !== undefined && !strings(groups)) {
    throw new CaseError(
      `expected a group or a list of groups, got ${typeName(groups)}`,
      [...path, "groups"],
    );
  }
  if (scope !== undefined && !strings(scope)) {
    throw new CaseError(
      `expected scopes ("files:read files:write", or a list), got ${
        typeName(scope)
      }`,
      [...path, "scope"],
    );
  }
  return claimsOfRecord(value);
}

function objectAt(
  value: unknown,
  path: (string | number)[],
): Record<string, unknown> {
  if (!isRecord(value)) {
    throw new CaseError(
      `expected a call ({ tool, arguments or patterns }), got ${
        typeName(value)
      }`,
      path,
    );
  }
  return value;
}

function callOf(
  object: Record<string, unknown>,
  path: (string | number)[],
  servers: readonly string[] | undefined,
): OfflineCall {
  const { server, tool, arguments: args, patterns, annotations, listed } =
    object;
  if (servers === undefined && server !== undefined) {
    throw new CaseError(
      "the policy names no servers: expected no server in a case",
      [...path, "server"],
    );
  }
  if (servers !== undefined && server === undefined) {
    // Each server decides by its own view: none stands for the others.
    throw new CaseError(
      `missing server: the policy names servers (${
        servers.join(", ")
      }): expected the server the call is for, such as server: ${servers[0]}`,
      path,
      [...path, "tool"],
    );
  }
  if (
    servers !== undefined &&
    (typeof server !== "string" || !servers.includes(server))
  ) {
    throw new CaseError(
      `expected one of the policy's servers (${servers.join(", ")}), got ${
        typeof server === "string" ? JSON.stringify(server) : typeName(server)
      }`,
      [...path, "server"],
    );
  }
  if (typeof tool !== "string" || tool === "") {
    throw new CaseError(
      `expected the tool's name, got ${
        tool === undefined ? "nothing" : typeName(tool)
      }`,
      [...path, "tool"],
    );
  }
  if (args !== undefined && patterns !== undefined) {
    throw new CaseError(
      "both arguments and patterns: expected arguments (a tool decided by name or templates) or patterns (what a probed tool answers)",
      [...path, "patterns"],
    );
  }
  if (args !== undefined && !isRecord(args)) {
    throw new CaseError(`expected an object, got ${typeName(args)}`, [
      ...path,
      "arguments",
    ]);
  }
  if (
    patterns !== undefined &&
    (!Array.isArray(patterns) || patterns.some((p) => typeof p !== "string"))
  ) {
    throw new CaseError(
      `expected a list of pattern strings, got ${typeName(patterns)}`,
      [...path, "patterns"],
    );
  }
  if (annotations !== undefined && !isRecord(annotations)) {
    throw new CaseError(`expected an object, got ${typeName(annotations)}`, [
      ...path,
      "annotations",
    ]);
  }
  if (listed !== undefined && typeof listed !== "boolean") {
    throw new CaseError(`expected true or false, got ${typeName(listed)}`, [
      ...path,
      "listed",
    ]);
  }
  return {
    ...(server === undefined ? {} : { server: server as string }),
    tool,
    ...(args === undefined ? {} : { arguments: args }),
    ...(patterns === undefined ? {} : { patterns: patterns as string[] }),
    ...(annotations === undefined ? {} : { annotations }),
    ...(listed === undefined ? {} : { listed }),
  };
}

/** `cases[2].expect`. */
function fieldName(path: readonly (string | number)[]): string {
  return path.map((part, i) =>
    typeof part === "number" ? `[${part}]` : i === 0 ? part : `.${part}`
  ).join("");
}
