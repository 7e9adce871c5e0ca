/**
 * Reading a V8 `.cpuprofile` (what `deno run --cpu-prof` writes): self time
 * per function, and per part of the stack — the toolkit, the SDK, zod
 * (split by who called it: the SDK checking every message, or the toolkit
 * checking a tool's arguments), the Deno runtime, the garbage collector.
 *
 * @module
 */

/** A frame of a V8 CPU profile. */
export interface CallFrame {
  /** The function's name, empty for anonymous ones. */
  functionName: string;
  /** The script's URL, empty for V8's own pseudo-frames. */
  url: string;
  /** 0-based line. */
  lineNumber: number;
  /** 0-based column. */
  columnNumber: number;
}

/** A V8 CPU profile, as far as this module reads it. */
export interface CpuProfile {
  /** The call tree. */
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[];
  /** The leaf node of each sample. */
  samples: number[];
  /** Microseconds from the previous sample to each one. */
  timeDeltas: number[];
}

/** One function's self time. */
export interface ProfileEntry {
  /** The function, `(anonymous)` when unnamed. */
  name: string;
  /** Where it is, shortened: `toolkit/server.ts:412`, `zod@4.6.7/v4/core/schemas.js:88`. */
  location: string;
  /** The part of the stack it belongs to (see {@linkcode categorize}). */
  category: string;
  /** Self time, in milliseconds. */
  selfMs: number;
  /** Share of the busy (non-idle) time, 0 to 1. */
  share: number;
}

/** Self time per category, and the top functions. */
export interface ProfileSummary {
  /** Sampled time the process was busy (not idle), in milliseconds. */
  busyMs: number;
  /** Sampled idle time, in milliseconds. */
  idleMs: number;
  /** Self time per category, largest first. */
  categories: { category: string; selfMs: number; share: number }[];
  /** The functions with the most self time, largest first. */
  top: ProfileEntry[];
}

/** Options for {@linkcode summarizeProfile}. */
export interface SummarizeOptions {
  /**
   * How many functions to list.
   *
   * @default {15}
   */
  top?: number;
  /**
   * Count only the samples after the first idle stretch at least this long,
   * in milliseconds, so that start-up and warm-up (which the driver follows
   * with a pause) stay out of the figures. 0 counts every sample.
   *
   * @default {0}
   */
  afterIdleMs?: number;
}

const IDLE = "(idle)";

/**
 * The category of a sample, from its stack (leaf first). zod frames are
 * split by caller, because the question is who makes zod run.
 *
 * @example
 * ```ts
 * import { categorize } from "./_profile.ts";
 *
 * categorize([{ functionName: "parse", url: "file:///x/zod/4.6.7/v4/core/parse.js", lineNumber: 0, columnNumber: 0 },
 *   { functionName: "_onrequest", url: "file:///x/@modelcontextprotocol/sdk/1.32.2/dist/esm/shared/protocol.js", lineNumber: 0, columnNumber: 0 }]);
 * // "zod: SDK message schemas"
 * ```
 */
export function categorize(stack: readonly CallFrame[]): string {
  const leaf = stack[0];
  if (leaf === undefined) return "other";
  const url = leaf.url;
  if (url === "") {
    if (leaf.functionName === "(garbage collector)") return "garbage collector";
    if (leaf.functionName === IDLE) return IDLE;
    if (leaf.functionName === "(program)") return "V8 and native code";
    if (leaf.functionName.startsWith("op_")) return "Deno ops (I/O)";
    return "V8 built-ins";
  }
  if (url.includes("/zod/")) {
    for (const frame of stack) {
      if (frame.url.includes("/toolkit/args.ts")) {
        return "zod: tool argument schema";
      }
      if (frame.url.includes("@modelcontextprotocol/sdk")) {
        return "zod: SDK message schemas";
      }
    }
    return "zod: other";
  }
  if (url.includes("@modelcontextprotocol/sdk")) return "SDK (not zod)";
  if (url.includes("/toolkit/") || url.endsWith("/mod.ts")) return "toolkit";
  if (url.includes("/bench/")) return "server script";
  if (url.startsWith("ext:") || url.startsWith("node:")) return "Deno runtime";
  if (url.includes("/npm/") || url.includes("/node_modules/")) {
    return "other npm packages";
  }
  return "other";
}

/**
 * A URL made short and stable: paths inside the repository relative to it,
 * npm packages as `name@version/path`.
 *
 * @example
 * ```ts
 * import { shortenUrl } from "./_profile.ts";
 *
 * shortenUrl("file:///root/.cache/deno/npm/registry.npmjs.org/zod/4.6.7/v4/core/core.js", "/work/main");
 * // "zod@4.6.7/v4/core/core.js"
 * ```
 */
export function shortenUrl(url: string, root: string): string {
  const npm = /\/registry\.npmjs\.org\/((?:@[^/]+\/)?[^/]+)\/([^/]+)\/(.*)$/
    .exec(url);
  if (npm !== null) return `${npm[1]}@${npm[2]}/${npm[3]}`;
  const prefix = `file://${root}/`;
  if (url.startsWith(prefix)) return url.slice(prefix.length);
  return url;
}

/**
 * Self time per function and per category of a CPU profile.
 *
 * @example
 * ```ts ignore
 * const profile = JSON.parse(await Deno.readTextFile("server.cpuprofile"));
 * const summary = summarizeProfile(profile, "/work/main", { top: 10 });
 * ```
 */
export function summarizeProfile(
  profile: CpuProfile,
  root: string,
  options: SummarizeOptions = {},
): ProfileSummary {
  if (
    !Array.isArray(profile?.nodes) || !Array.isArray(profile.samples) ||
    !Array.isArray(profile.timeDeltas)
  ) {
    throw new TypeError(
      "Cannot summarize the profile: expected a V8 CPU profile with nodes, samples and timeDeltas",
    );
  }
  const top = options.top ?? 15;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const afterIdleUs = (options.afterIdleMs ?? 0) * 1000;
  if (!(afterIdleUs >= 0)) {
    throw new RangeError(
      `Cannot summarize the profile: afterIdleMs must be >= 0, got ${options.afterIdleMs}`,
    );
  }
  const isIdle = (id: number) =>
    byId.get(id)?.callFrame.functionName === IDLE &&
    byId.get(id)?.callFrame.url === "";
  let first = 0;
  if (afterIdleUs > 0) {
    let idleRun = 0;
    first = -1;
    for (let i = 0; i < profile.samples.length; i++) {
      idleRun = isIdle(profile.samples[i])
        ? idleRun + (profile.timeDeltas[i + 1] ?? 0)
        : 0;
      if (idleRun >= afterIdleUs) {
        first = i + 1;
        break;
      }
    }
    if (first === -1) {
      throw new RangeError(
        `Cannot summarize the profile: no idle stretch of ${options.afterIdleMs} ms to start after`,
      );
    }
  }
  const selfByNode = new Map<number, number>();
  // A sample's time is the delta to the next sample (V8's own convention).
  for (let i = first; i < profile.samples.length; i++) {
    const next = profile.timeDeltas[i + 1] ?? 0;
    const id = profile.samples[i];
    selfByNode.set(id, (selfByNode.get(id) ?? 0) + next);
  }
  let busyUs = 0;
  let idleUs = 0;
  const categories = new Map<string, number>();
  const functions = new Map<string, ProfileEntry>();
  for (const [id, us] of selfByNode) {
    const stack: CallFrame[] = [];
    for (
      let at: number | undefined = id;
      at !== undefined;
      at = parent.get(at)
    ) {
      const frame = byId.get(at)?.callFrame;
      if (frame !== undefined) stack.push(frame);
    }
    const category = categorize(stack);
    if (category === IDLE) {
      idleUs += us;
      continue;
    }
    busyUs += us;
    categories.set(category, (categories.get(category) ?? 0) + us);
    const leaf = stack[0];
    const location = leaf.url === ""
      ? ""
      : `${shortenUrl(leaf.url, root)}:${leaf.lineNumber + 1}`;
    const name = leaf.functionName || "(anonymous)";
    // Split by category too: zod's parse called by the SDK and by the
    // toolkit are different costs.
    const key = `${name}\0${location}\0${category}`;
    const entry = functions.get(key) ??
      { name, location, category, selfMs: 0, share: 0 };
    entry.selfMs += us / 1000;
    functions.set(key, entry);
  }
  const share = (us: number) => busyUs === 0 ? 0 : us / busyUs;
  return {
    busyMs: busyUs / 1000,
    idleMs: idleUs / 1000,
    categories: [...categories]
      .map(([category, us]) => ({
        category,
        selfMs: us / 1000,
        share: share(us),
      }))
      .sort((a, b) => b.selfMs - a.selfMs),
    top: [...functions.values()]
      .map((entry) => ({ ...entry, share: share(entry.selfMs * 1000) }))
      .sort((a, b) => b.selfMs - a.selfMs)
      .slice(0, top),
  };
}
