// Internal: which tools a caller's tools/list shows. A tool the caller can
// never run is left out, so that a model is not offered what it will be
// refused; one it may run with some arguments stays. The gate hides a tool
// only when the caller's policy refuses every call of it whatever the
// arguments, and it is sure of that only in these cases:
//
// - its `tools` entry is `deny` (by name or glob; for a probed tool the
//   entry is read before any probe);
// - it does not answer the probe, has no `tools` entry, and its
//   annotation default (or else `unprobed`) is `deny`;
// - it does not answer the probe and its templates (its own or a preset's)
//   give only patterns a deny rule covers whole: a rule of the template's
//   verb whose target is `**` (for files, both `**` and `/**`, since a
//   template's path may resolve inside the root or outside it). A call
//   either fills its templates, giving at least one pattern, or is
//   refused; so every call is denied.
//
// Anything else (a probed tool's patterns, a deny rule narrower than the
// verb) depends on the call, and the tool stays listed: its calls are
// refused one by one, naming the rule.

import { isRecord } from "../../_util/json_type.ts";
import { META_SUPPORTS_PERMISSION_PATTERNS } from "../../patterns/probe_meta.ts";
import { type Compiled, compileRule } from "../../policy/_compile.ts";
import { ANY } from "../../policy/_item.ts";
import type { PolicyInForce } from "./_policy_source.ts";
import type { Template } from "./_template.ts";

/** What the gate knows of a listed tool. */
export interface ListedToolInfo {
  /** Whether it lists `forge.supports_permission_patterns`. */
  probed: boolean;
  /** Its `annotations`, as listed. */
  annotations?: Record<string, unknown>;
}

/**
 * Why `tool` can never run under `inForce` (the rule or setting that
 * refuses all its calls), or `undefined` when some call of it may.
 *
 * @example
 * ```ts
 * import { Policy } from "../../policy/mod.ts";
 * import { fixedPolicy } from "./_policy_source.ts";
 * import { neverRuns } from "./_visible.ts";
 *
 * const inForce = fixedPolicy({
 *   policy: new Policy({}),
 *   unprobed: "ask",
 *   tools: new Map([["run_shell", "deny"]]),
 * }).current();
 * neverRuns(inForce, "run_shell", { probed: true }); // "tools.run_shell"
 * neverRuns(inForce, "search", { probed: false }); // undefined
 * ```
 */
export function neverRuns(
  inForce: PolicyInForce,
  tool: string,
  info: ListedToolInfo,
): string | undefined {
  const { mapping } = inForce;
  if (info.probed) {
    const entry = mapping.decision(tool);
    return entry?.decision === "deny" ? entry.source : undefined;
  }
  const found = mapping.entry(tool);
  if (typeof found?.entry === "string") {
    return found.entry === "deny" ? found.source : undefined;
  }
  if (found !== undefined) {
    const deny = inForce.file?.rules.deny ?? [];
    const rules = found.entry.map((t) => coveringRule(t, deny));
    return rules.every((r) => r !== undefined)
      ? [...new Set(rules)].join(", ")
      : undefined;
  }
  const byHint = mapping.byAnnotation(info.annotations);
  if (byHint !== undefined) {
    return byHint.decision === "deny"
      ? `annotations.${byHint.hint}`
      : undefined;
  }
  return inForce.unprobed === "deny" ? "unprobed" : undefined;
}

/**
 * The tools of a `tools/list` page a caller may see: those not refused
 * whatever their arguments ({@linkcode neverRuns}), in their order.
 *
 * @example
 * ```ts
 * import { Policy } from "../../policy/mod.ts";
 * import { fixedPolicy } from "./_policy_source.ts";
 * import { visibleTools } from "./_visible.ts";
 *
 * const inForce = fixedPolicy({
 *   policy: new Policy({}),
 *   unprobed: "deny",
 *   tools: new Map([["search", "allow"]]),
 * }).current();
 * visibleTools(inForce, [{ name: "search" }, { name: "run_shell" }]); // [{ name: "search" }]
 * ```
 */
export function visibleTools<T>(
  inForce: PolicyInForce,
  tools: readonly T[],
): T[] {
  return tools.filter((tool) => {
    if (!isRecord(tool) || typeof tool.name !== "string") return true;
    const meta = isRecord(tool._meta) ? tool._meta : {};
    return neverRuns(inForce, tool.name, {
      probed: meta[META_SUPPORTS_PERMISSION_PATTERNS] === true,
      ...(isRecord(tool.annotations) ? { annotations: tool.annotations } : {}),
    }) === undefined;
  });
}

/** Deny rules compiled once per list (a version of the file). */
const COMPILED = new WeakMap<readonly string[], Compiled[]>();

/**
 * The deny rule (or rules, `a, b`) that meets every pattern `template`
 * can give, if any: a universal target for its verb.
 */
function coveringRule(
  template: Template,
  deny: readonly string[],
): string | undefined {
  let compiled = COMPILED.get(deny);
  if (compiled === undefined) {
    compiled = deny.map((rule) => compileRule(rule));
    COMPILED.set(deny, compiled);
  }
  const shapes = template.kind === "path"
    ? ["relative", "absolute"] as const
    : ["any"] as const;
  const found: string[] = [];
  for (const shape of shapes) {
    const index = compiled.findIndex((rule) =>
      rule.verb === template.verb &&
      rule.alternatives.some((form) => universal(form, shape))
    );
    if (index === -1) return undefined;
    found.push(deny[index]);
  }
  return [...new Set(found)].join(", ");
}

/** Whether a compiled form matches every target of its kind (of `shape`, for paths). */
function universal(
  form: Compiled["alternatives"][number],
  shape: "relative" | "absolute" | "any",
): boolean {
  switch (form.kind) {
    case "path":
      return form.absolute === (shape === "absolute") &&
        form.items.length === 1 && form.items[0] === ANY;
    case "exec":
      return form.items.length === 1 && form.items[0] === ANY;
    case "net":
      return form.scheme === ANY && form.port === ANY &&
        form.host.length === 1 && form.host[0] === ANY;
    case "opaque":
      return form.item === ANY ||
        (typeof form.item === "object" && form.item.steps.length === 1 &&
          form.item.steps[0] === ANY);
  }
}
