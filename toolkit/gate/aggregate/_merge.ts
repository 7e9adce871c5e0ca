// Internal: what the host of a gate of many servers sees of them as one:
// the servers' answers to initialize (or server/discover) merged into one,
// and their lists under the names the host calls them by. Pure functions
// over plain answers; _aggregate.ts decides whom to ask and when.

import { isRecord } from "../../_util/json_type.ts";
import { joinName } from "../../_util/mount_names.ts";

/** The gate's name in the answers it merges (its version is the package's, in deno.json). */
export const AGGREGATE_INFO = { name: "forge-gate", version: "0.1.0" };

/** One server's answer, with its name and prefix. */
export interface Answered {
  name: string;
  prefix: string;
  result: Record<string, unknown>;
}

/** The lists the gate merges, and the key their items are named by. */
export const LISTS = {
  "tools/list": { key: "tools", named: true },
  "prompts/list": { key: "prompts", named: true },
  "resources/list": { key: "resources", named: false },
  "resources/templates/list": { key: "resourceTemplates", named: false },
} as const;

/** A method of {@linkcode LISTS}. */
export type ListMethod = keyof typeof LISTS;

/**
 * The capabilities the host may use: each kind some server offers, and
 * which the gate routes. Every list announces its changes, since the gate
 * does when a server stops or comes back; resources can be subscribed to
 * when some server lets them be.
 */
export function mergeCapabilities(
  answers: readonly Answered[],
): Record<string, unknown> {
  const offered = (kind: string) =>
    answers.map((a) => a.result.capabilities).filter(isRecord).map((c) =>
      c[kind]
    ).filter((v) => v !== undefined);
  const merged: Record<string, unknown> = {};
  if (offered("tools").length > 0) merged.tools = { listChanged: true };
  if (offered("prompts").length > 0) merged.prompts = { listChanged: true };
  const resources = offered("resources");
  if (resources.length > 0) {
    merged.resources = {
      listChanged: true,
      ...(resources.some((r) => isRecord(r) && r.subscribe === true)
        ? { subscribe: true }
        : {}),
    };
  }
  if (offered("logging").length > 0) merged.logging = {};
  if (offered("completions").length > 0) merged.completions = {};
  return merged;
}

/** Each server's instructions under its name; `undefined` when none gives any. */
export function mergeInstructions(
  answers: readonly Answered[],
): string | undefined {
  const parts = answers.flatMap(({ name, prefix, result }) => {
    const text = result.instructions;
    if (typeof text !== "string" || text.trim() === "") return [];
    const tools = prefix === "" ? "" : ` (its tools are named ${prefix}_…)`;
    return [`## Server "${name}"${tools}\n\n${text.trim()}`];
  });
  return parts.length === 0 ? undefined : parts.join("\n\n");
}

/**
 * The answer to a 2025 host's `initialize`: the revision every server
 * answered (the oldest one when they differ, which all of them speak as
 * far as a host of that revision goes), the merged capabilities and
 * instructions, and the gate's name.
 */
export function mergeInitialize(
  requested: unknown,
  answers: readonly Answered[],
): Record<string, unknown> {
  const versions = answers.map((a) => a.result.protocolVersion).filter((
    v,
  ): v is string => typeof v === "string").sort();
  const instructions = mergeInstructions(answers);
  return {
    protocolVersion: versions[0] ??
      (typeof requested === "string" ? requested : "2025-11-25"),
    capabilities: mergeCapabilities(answers),
    serverInfo: AGGREGATE_INFO,
    ...(instructions === undefined ? {} : { instructions }),
  };
}

/** The answer to a 2026-07-28 `server/discover`: as initialize, with the revisions all servers support. */
export function mergeDiscover(
  answers: readonly Answered[],
  serverInfoKey: string,
): Record<string, unknown> {
  const supported = answers.map((a) => a.result.supportedVersions).filter(
    Array.isArray,
  );
  const versions = supported.length === 0
    ? []
    : supported.reduce((common, list) =>
      common.filter((v: unknown) => list.includes(v))
    );
  const ttls = answers.map((a) => a.result.ttlMs).filter((t) =>
    typeof t === "number"
  ) as number[];
  const instructions = mergeInstructions(answers);
  return {
    resultType: "complete",
    supportedVersions: versions,
    capabilities: mergeCapabilities(answers),
    ...(instructions === undefined ? {} : { instructions }),
    ...(ttls.length === 0 ? {} : { ttlMs: Math.min(...ttls) }),
    _meta: { [serverInfoKey]: AGGREGATE_INFO },
  };
}

/**
 * One server's page of a list as the host sees it: tools and prompts
 * under `<prefix>_<name>`; resources keep their URIs.
 */
export function exposeItems(
  method: ListMethod,
  prefix: string,
  result: Record<string, unknown>,
): Record<string, unknown>[] {
  const { key, named } = LISTS[method];
  const items = Array.isArray(result[key]) ? result[key] : [];
  return items.filter(isRecord).map((item) =>
    named && prefix !== "" && typeof item.name === "string"
      ? { ...item, name: joinName(prefix, item.name) }
      : item
  );
}
