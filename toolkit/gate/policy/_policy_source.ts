// Internal: where the gate's policy comes from: a Policy object that never
// changes, or a file watched with configreload whose last good content is
// the policy, with every refused edit reported as `file:line:column: …`.
// The watcher's debounce alone would let calls sent just after a save be
// decided by the old policy, so the file's identity is checked before each
// decision and a changed file read then.

import { sha256HexSync } from "../../_util/sha256_hex_sync.ts";
import {
  ConfigError,
  type ConfigWatcher,
  watchConfig,
} from "../../../configreload/mod.ts";
import type { Decision, Policy } from "../../policy/mod.ts";
import { type Format, parse } from "../../../validate/mod.ts";
import { settingsFormat } from "./_settings_file.ts";
import { GatePolicyError, parseGatePolicy } from "./policy_file.ts";
import type { GatePolicy } from "./policy_file.ts";
import { locateField } from "./_locate.ts";
import { ToolMapping } from "./_tool_mapping.ts";
import { compileTemplate } from "./_template.ts";
import type { RecordEntries } from "./_redact.ts";
import type { Flow } from "./_flows.ts";

/** What the next call is decided with. */
export interface PolicyInForce {
  policy: Policy;
  /** The decision for a tool without the probe and without a `tools` entry. */
  unprobed: Decision;
  /** The decisions by tool name; empty when there are none. */
  tools: ReadonlyMap<string, Decision>;
  /** Entries by name and glob, templates, presets, roots and annotation defaults. */
  mapping: ToolMapping;
  /** The policy's `record`: the tools whose exec and custom patterns are recorded whole. */
  record?: RecordEntries;
  /** The policy's flows; `undefined` when it has none. */
  flows?: readonly Flow[];
  /** The policy file as checked; absent for a fixed `Policy`. */
  file?: GatePolicy;
}

/** The policy in force now, and a way to stop following its file. */
export interface PolicySource {
  /** The policy, `unprobed` decision and tools' decisions to decide the next call with. */
  current(): PolicyInForce;
  /**
   * The policy to decide a call received now with: a policy file saved
   * before it is read first (the last good policy is kept when the saved
   * file is invalid).
   */
  fresh(): Promise<PolicyInForce>;
  /**
   * What `fresh()` resolves with, when that needs no wait (the file was
   * checked within {@linkcode CHECK_EVERY_MS}, or a stat finds it as last
   * compared); `undefined` when `fresh()` must be awaited.
   */
  freshNow?(): PolicyInForce | undefined;
  /** Stops watching. */
  close(): Promise<void>;
  /**
   * Tells `listener` of each good new version of the file, until the
   * function it returns is called; absent for a fixed policy.
   */
  onReload?(listener: (file: GatePolicy) => void): () => void;
}

/** Quiet time after a change to the file before it is read. */
const DEBOUNCE_MS = 150;
/**
 * How long after its last change a file's stat cannot vouch for its
 * content: a rewrite in the same timestamp tick keeps mtime, size and inode.
 * Ticks are whole seconds on some file systems (2 s on FAT), which give
 * mtimes in whole seconds; elsewhere a tick is a kernel clock tick (at
 * most 10 ms on Linux), so a shorter wait covers it.
 */
const RACY_MS = 2000;
/** The same, for a file system whose mtimes have a fraction of a second. */
const RACY_FINE_MS = 50;
/**
 * How often, at most, the file is checked on a decision's path: a call sent
 * this long after a save (or longer) is decided by it.
 */
export const CHECK_EVERY_MS = 1;
/** A policy file up to this size is compared by its bytes, without configreload's reload. */
const COMPARED_BYTES = 1024 * 1024;

/** A source that always answers the same. */
export function fixedPolicy(
  given: Omit<PolicyInForce, "mapping">,
): PolicySource {
  const current = {
    ...given,
    mapping: new ToolMapping({ tools: given.tools }),
  };
  return {
    current: () => current,
    fresh: () => Promise.resolve(current),
    freshNow: () => current,
    close: () => Promise.resolve(),
  };
}

/** The mapping of a policy file, with `tools` standing in for its absent `tools`. */
function mappingOf(
  file: GatePolicy,
  tools: ReadonlyMap<string, Decision>,
): ToolMapping {
  return new ToolMapping({
    tools: file.tools ?? tools,
    templates: new Map(
      [...file.templates ?? []].map((
        [name, list],
      ) => [name, list.map(compileTemplate)]),
    ),
    presets: file.presets,
    roots: file.roots,
    annotations: file.annotations,
  });
}

/**
 * A checked policy file as the gate decides with it, without following
 * the file (`gate test`, `gate replay`).
 */
export function policyInForce(
  file: GatePolicy,
  defaults: { unprobed: Decision; tools: ReadonlyMap<string, Decision> },
): PolicyInForce {
  return {
    policy: file.policy,
    unprobed: file.unprobed ?? defaults.unprobed,
    tools: file.tools ?? defaults.tools,
    mapping: mappingOf(file, defaults.tools),
    record: file.record,
    flows: file.flows,
  };
}

/**
 * The policy that one server of a gate of many (`servers:`) is decided by,
 * following `source`: its entry's policy in each version of the file. A
 * version without the entry (a reload removed it) decides by the top level
 * alone. Closing it leaves `source` open.
 */
export function serverPolicy(
  source: PolicySource,
  name: string,
  defaults: { unprobed: Decision; tools: ReadonlyMap<string, Decision> },
): PolicySource {
  // One view per version of the file, as watchPolicy keeps one mapping.
  let viewed: { whole: PolicyInForce; view: PolicyInForce } | undefined;
  const view = (whole: PolicyInForce): PolicyInForce => {
    if (
      viewed !== undefined && viewed.whole.file === whole.file &&
      viewed.whole.policy === whole.policy
    ) {
      return viewed.view;
    }
    const entry = whole.file?.servers?.get(name);
    const view = entry === undefined
      ? whole
      : { ...policyInForce(entry.policy, defaults), file: entry.policy };
    viewed = { whole, view };
    return view;
  };
  return viewSource(
    source,
    view,
    (file) => file.servers?.get(name)?.policy ?? file,
  );
}

/**
 * A source that answers `view` of what `source` answers, and tells its
 * reload listeners `reloaded` of each new version: the views of one server
 * or one caller. Closing it leaves `source` open.
 */
export function viewSource(
  source: PolicySource,
  view: (whole: PolicyInForce) => PolicyInForce,
  reloaded: (file: GatePolicy) => GatePolicy,
): PolicySource {
  return {
    current: () => view(source.current()),
    fresh: () => source.fresh().then(view),
    ...(source.freshNow === undefined ? {} : {
      freshNow: () => {
        const whole = source.freshNow!();
        return whole === undefined ? undefined : view(whole);
      },
    }),
    close: () => Promise.resolve(),
    ...(source.onReload === undefined ? {} : {
      onReload: (listener) =>
        source.onReload!((file) => listener(reloaded(file))),
    }),
  };
}

/** Options for {@linkcode watchPolicy}. */
export interface WatchPolicyOptions {
  /** The decision for unprobed tools when the file does not say. */
  unprobed: Decision;
  /** The decisions by tool name when the file does not say. */
  tools: ReadonlyMap<string, Decision>;
  /** Where reload news and refused edits go. */
  log: (line: string) => void;
  /** Quiet time before a changed file is read. */
  debounceMs?: number;
}

/**
 * Loads the policy file at `path` and follows it. Rejects with an `Error`
 * whose message names the file (and `line:column` for content that is
 * wrong) when the file is missing, unreadable or invalid at start.
 */
export async function watchPolicy(
  path: string,
  options: WatchPolicyOptions,
): Promise<PolicySource> {
  const format = settingsFormat(path);
  if (typeof format !== "string") {
    throw new TypeError(`Cannot load the policy: ${format.problem}`);
  }
  const debounceMs = options.debounceMs ?? DEBOUNCE_MS;
  let watcher: ConfigWatcher<GatePolicy>;
  try {
    watcher = await watchConfig<GatePolicy>(path, {
      format: (text) => parsePolicyText(text, format),
      debounceMs,
      // Events next to the file (the audit log, when it shares the folder:
      // a line per call) must not postpone a reload: a stream of them
      // delays it by one debounce at most, not configreload's default 1 s.
      maxWaitMs: debounceMs,
    });
  } catch (error) {
    if (error instanceof ConfigError) {
      throw new Error(`Cannot load the policy: ${describe(error)}`, {
        cause: error,
      });
    }
    throw error;
  }
  const { log } = options;
  const reloaded = new Set<(file: GatePolicy) => void>();
  watcher.subscribe((event) => {
    if (event.type === "change") {
      const { rules, unprobed, tools, templates, presets } = event.value;
      const named = (tools ?? options.tools).size + (templates?.size ?? 0);
      log(
        `policy reloaded from ${path}: ${rules.allow.length} allow, ${rules.ask.length} ask, ${rules.deny.length} deny rules, ${named} ${
          named === 1 ? "tool" : "tools"
        } by name, unprobed: ${unprobed ?? options.unprobed}${
          presets?.length ? `, presets: ${presets.join(", ")}` : ""
        }`,
      );
      for (const listener of reloaded) listener(event.value);
    } else if (event.error.kind === "watch") {
      log(`${path}: ${strip(event.error.message)}`);
    } else {
      log(`${describe(event.error)} (keeping the last good policy)`);
    }
  });
  // One mapping per version of the file: its root's real path is resolved
  // once, not for every call.
  let mapped: { file: GatePolicy; mapping: ToolMapping } | undefined;
  const mapping = (file: GatePolicy) => {
    if (mapped?.file !== file) {
      mapped = { file, mapping: mappingOf(file, options.tools) };
    }
    return mapped.mapping;
  };
  // One object per version of the file too: current() is read several
  // times on each call's path.
  let inForce: PolicyInForce | undefined;
  const current = () => {
    const file = watcher.current;
    if (inForce?.file !== file) {
      inForce = {
        policy: file.policy,
        unprobed: file.unprobed ?? options.unprobed,
        tools: file.tools ?? options.tools,
        mapping: mapping(file),
        record: file.record,
        flows: file.flows,
        file,
      };
    }
    return inForce;
  };
  const identity = new FileIdentity(path, watcher);
  return {
    current,
    fresh: async () => {
      await identity.confirm();
      return current();
    },
    freshNow: () => identity.confirmedNow() ? current() : undefined,
    close: () => watcher.close(),
    onReload: (listener) => {
      // A per-session gate (--http) listens for its lifetime only.
      const own = (file: GatePolicy) => listener(file);
      reloaded.add(own);
      return () => reloaded.delete(own);
    },
  };
}

/**
 * Whether the file is still what the watcher's value was read from, by its
 * stat: device, inode (a rename over it or a new link target changes them),
 * size, mtime and ctime (which no tool can set back). A file that changed,
 * or may have within the racy window, is read and compared with the bytes
 * behind the watcher's value, and reloaded when they differ.
 */
class FileIdentity {
  readonly #path: string;
  readonly #watcher: ConfigWatcher<unknown>;
  /** The stat taken before the last comparison, and when. */
  #known:
    | { key: StatKey; changedAt: number; checkedAt: number; racyMs: number }
    | undefined;

  /** When the last check began (performance.now()), and the check. */
  #confirmedAt = -Infinity;
  #confirming: Promise<void> = Promise.resolve();
  /** Whether #confirming has resolved. */
  #settled = true;

  constructor(path: string, watcher: ConfigWatcher<unknown>) {
    this.#path = path;
    this.#watcher = watcher;
  }

  /**
   * Resolves once the watcher's value is the file as it is now (or the
   * last good one), as of {@linkcode CHECK_EVERY_MS} ago at most.
   */
  confirm(): Promise<void> {
    // A stat costs ~20 µs on a decision's path under load (bench/gate.ts's
    // profile): calls within CHECK_EVERY_MS share one check, and wait for
    // its reload. That check began after any save made CHECK_EVERY_MS or
    // more before the call, so it saw that save.
    const tick = performance.now();
    if (tick - this.#confirmedAt >= CHECK_EVERY_MS) {
      this.#confirmedAt = tick;
      this.#settled = false;
      const checking = this.#check();
      this.#confirming = checking;
      // A failed check stays unsettled: confirm() gives its failure.
      checking.then(() => {
        if (this.#confirming === checking) this.#settled = true;
      }, () => {});
    }
    return this.#confirming;
  }

  /**
   * Whether what confirm() would wait for is known now, without a wait:
   * the last check is settled and began within CHECK_EVERY_MS, or a stat
   * taken now finds the file as last compared. `false` leaves it to
   * confirm() (a change, a reload under way, a racy stat).
   */
  confirmedNow(): boolean {
    if (!this.#settled) return false;
    const tick = performance.now();
    if (tick - this.#confirmedAt < CHECK_EVERY_MS) return true;
    if (!this.#unchanged(statKey(this.#path))) return false;
    this.#confirmedAt = tick;
    return true;
  }

  /** Whether `key` is the stat last compared, and that stat vouches for the bytes. */
  #unchanged(key: StatKey | undefined): boolean {
    const known = this.#known;
    return key !== undefined && known !== undefined &&
      sameStat(known.key, key) &&
      known.changedAt < known.checkedAt - known.racyMs;
  }

  async #check(): Promise<void> {
    const now = Date.now();
    const key = statKey(this.#path);
    if (this.#unchanged(key)) return;
    // Read after the stat, so what is compared is at least as new as what
    // it saw. Equal bytes: the value is the file (a touch, a save of the
    // same text, a reload the watcher already made).
    if (
      key === undefined || digestOf(this.#path, key) !== this.#watcher.hash
    ) {
      await this.#watcher.reload();
    }
    this.#known = key === undefined ? undefined : {
      key,
      changedAt: Math.max(key.mtime ?? now, key.ctime ?? now),
      checkedAt: now,
      racyMs: (key.mtime ?? 0) % 1000 === 0 ? RACY_MS : RACY_FINE_MS,
    };
  }
}

/**
 * What a stat says of a file's identity: device, inode, size, mtime and
 * ctime (ms), and whether it is a file.
 */
interface StatKey {
  dev: number;
  ino: number | null;
  size: number;
  mtime: number | undefined;
  ctime: number | undefined;
  isFile: boolean;
}

/** The file's {@linkcode StatKey}; `undefined` when it is missing or unreadable. */
function statKey(path: string): StatKey | undefined {
  let stat: Deno.FileInfo;
  try {
    // Sync: ~4 µs on a decision's path, where an async stat's trip
    // through the thread pool costs ~20 µs.
    stat = Deno.statSync(path);
  } catch {
    // Missing or unreadable: the watcher's read reports it.
    return undefined;
  }
  return {
    dev: stat.dev,
    ino: stat.ino,
    size: stat.size,
    mtime: stat.mtime?.getTime(),
    ctime: stat.ctime?.getTime(),
    isFile: stat.isFile,
  };
}

function sameStat(a: StatKey, b: StatKey): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size &&
    a.mtime === b.mtime && a.ctime === b.ctime && a.isFile === b.isFile;
}

/** The hex SHA-256 of a small file's bytes, as configreload hashes them; undefined for a large or unreadable one. */
function digestOf(path: string, stat: StatKey): string | undefined {
  if (!stat.isFile || stat.size > COMPARED_BYTES) return undefined;
  try {
    return sha256HexSync(Deno.readFileSync(path));
  } catch {
    return undefined;
  }
}

/** Parses and checks the text of a policy file; a wrong field throws with its position. */
export function parsePolicyText(text: string, format: Format): GatePolicy {
  if (text.trim() === "") {
    throw located(
      "the file is empty: expected allow, ask and deny lists, unprobed and tools",
      1,
      1,
    );
  }
  const parsed = parse(text, format);
  // A warning refuses the file too: for JSON and JSONC the one warning is a
  // key given twice, whose first value would be silently dropped (a second
  // "deny" replacing the first), which YAML and TOML refuse as errors.
  const first = parsed.diagnostics.find((d) => d.severity === "error") ??
    parsed.diagnostics[0];
  if (!parsed.ok || first !== undefined) {
    throw located(first.message, first.line, first.column);
  }
  try {
    return parseGatePolicy(parsed.value);
  } catch (error) {
    if (!(error instanceof GatePolicyError)) throw error;
    // The list that holds the wrong item, for locating it among its copies.
    let list: unknown = parsed.value;
    for (const key of error.path) {
      if (typeof key === "number") break;
      list = (list as Record<string, unknown> | undefined)?.[key];
    }
    const place = locateField(
      text,
      error.path,
      Array.isArray(list) ? list : [],
      error.column,
    );
    throw located(error.message, place.line, place.column);
  }
}

function located(message: string, line: number, column: number): Error {
  return Object.assign(new Error(message), { line, column });
}

/** `file:line:column: message` for content, `file: message` for the rest. */
function describe(error: ConfigError): string {
  if (error.kind === "missing") return `file not found: ${error.path}`;
  const [first] = error.diagnostics;
  if (first !== undefined) {
    return `${error.path}:${first.line}:${first.column}: ${first.message}`;
  }
  const message = strip(error.message);
  return message.startsWith(error.path) ? message : `${error.path}: ${message}`;
}

// configreload's own prefix ("Cannot load config: "), which the gate's
// messages replace.
function strip(message: string): string {
  return message.replace(
    /^Cannot (?:re)?load config: |^Cannot watch config: /,
    "",
  );
}
