// Internal: the fence a sandboxed server runs in, derived from the policy
// that already says what may be touched. A pure function of (rules, roots,
// server command, environment names) and what is on disk now, so that a
// per-server entry can derive its own. _sandbox.ts turns it into a
// bubblewrap command line.
//
// The whole filesystem is read-only (so a server's program, runtime and
// caches are readable as outside), /tmp and /run are empty tmpfs (/run
// holds the sockets of the system's daemons, docker's and D-Bus's, which a
// read-only mount does not stop a connect to), and on top:
// - each folder an allow or ask `write:`/`delete:` rule reaches under the
//   roots is bound writable: a rule's literal folder (`write:notes/**` and
//   `write:notes/*.md` make `notes/` writable; `write:notes/a.txt` its
//   folder `notes/`, since a bind narrower than a folder breaks an atomic
//   replace of the file); a folder outside the roots is never writable;
// - a folder a deny `write:`/`delete:` rule names inside one of those is
//   bound read-only again;
// - a deny `read:` target (`read:secrets/**`, `read:.env`) is hidden under
//   an empty read-only tmpfs (a folder) or /dev/null (a file);
// - the network is unshared unless an allow or ask `net:` rule exists.
// Globs inside a segment (`deny: read:**/*.key`) stay the policy's job.

import { sha256HexSync } from "../../_util/sha256_hex_sync.ts";
import {
  dirname,
  isAbsolute,
  join,
  resolve,
  sep as SEPARATOR,
} from "node:path";
import type { PolicyRules } from "../../policy/mod.ts";
import {
  expandBraces,
  isSpecial,
  lex,
  splitTokens,
  text,
} from "../../policy/_lex.ts";

/**
 * The variables a runtime needs to start, passed on when the gate has them:
 * PATH (to find the program), HOME and the cache locations (deno's
 * DENO_DIR and XDG_CACHE_HOME, npm's cache), the locale and time zone, and
 * where TLS certificates are.
 */
export const RUNTIME_ENV: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LANG",
  "LC_ALL",
  "TZ",
  "TMPDIR",
  "DENO_DIR",
  "DENO_CERT",
  "XDG_CACHE_HOME",
  "NPM_CONFIG_CACHE",
  "npm_config_cache",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
];

/** The folders the fence empties: the server gets tmpfs of its own there. */
export const PRIVATE_DIRS: readonly string[] = ["/tmp", "/run"];

/** What a fence is derived from. */
export interface FenceInput {
  /** The policy's rule lists. */
  rules: Readonly<Required<PolicyRules>>;
  /** The policy's roots: relative rules resolve against the first. */
  roots: readonly string[];
  /** The server's program and arguments. */
  command: readonly string[];
  /** The variables the server is given besides the runtime's. */
  env: readonly string[];
}

/** One mount, in the order bubblewrap applies them (later ones on top). */
export interface FenceMount {
  /** `ro` readable, `rw` writable, `hide` an empty read-only tmpfs, `hide-file` /dev/null. */
  kind: "ro" | "rw" | "hide" | "hide-file";
  /** The real, absolute path. */
  path: string;
  /** Why: the rule or the reason. */
  why: string;
}

/** The fence of one server. */
export interface Fence {
  /** Mounts over the read-only filesystem, in order. */
  mounts: readonly FenceMount[];
  /** Whether the server shares the host's network, and why. */
  network: { shared: boolean; why: string };
  /** The server's whole environment. */
  env: Readonly<Record<string, string>>;
  /** What the policy says that the fence cannot: rules that made no mount. */
  notes: readonly string[];
}

/** Options for {@linkcode deriveFence}. */
export interface FenceOptions {
  /** The gate's environment, where the variables' values come from. */
  environment?: Readonly<Record<string, string>>;
  /** The folder the server starts in. */
  cwd?: string;
}

const WRITE_VERBS = ["write", "delete"];

/**
 * Derives the fence for a server from the policy's rules and roots, its
 * command and the variables it is given. Reads the disk (real paths) but
 * changes nothing.
 */
export async function deriveFence(
  input: FenceInput,
  options: FenceOptions = {},
): Promise<Fence> {
  const environment = options.environment ?? Deno.env.toObject();
  const cwd = options.cwd ?? Deno.cwd();
  const notes: string[] = [];
  const roots: string[] = [];
  for (const root of input.roots) {
    const real = await realPath(root);
    if (real === undefined) notes.push(`root ${root}: missing, not mounted`);
    else roots.push(real);
  }
  const [first] = input.roots;
  const mounts: FenceMount[] = [];

  // What the private folders' tmpfs would hide but the server needs to see.
  const readable = new Set<string>();
  for (const root of roots) readable.add(root);
  for (const path of await programPaths(input.command, environment, cwd)) {
    readable.add(path);
  }
  // The resolver's configuration, often a link into /run.
  const resolver = await realPath("/etc/resolv.conf");
  if (resolver !== undefined) readable.add(resolver);
  for (const path of [...readable].sort()) {
    const under = PRIVATE_DIRS.find((dir) => within(path, dir) && path !== dir);
    if (under !== undefined) {
      mounts.push({
        kind: "ro",
        path,
        why: `under ${under}, needed by the server`,
      });
    }
  }

  // Writable folders of allow and ask write:/delete: rules.
  const writable = new Map<string, string>();
  for (const list of ["allow", "ask"] as const) {
    for (const rule of input.rules[list]) {
      const verb = verbOf(rule);
      if (!WRITE_VERBS.includes(verb)) continue;
      for (const target of literalFolders(rule, "folder")) {
        const at = place(target, first);
        if (at === undefined) {
          notes.push(`${list}: ${rule}: relative, and no roots: no mount`);
          continue;
        }
        const real = await realPath(at);
        if (real === undefined) {
          notes.push(`${list}: ${rule}: ${at} is missing: not writable`);
          continue;
        }
        const inside = roots.filter((root) => within(real, root));
        if (inside.length > 0) {
          if (!writable.has(real)) writable.set(real, `${list}: ${rule}`);
          continue;
        }
        // A rule above the roots (`write:/**`) makes the roots under it writable.
        const below = roots.filter((root) => within(root, real));
        for (const root of below) {
          if (!writable.has(root)) writable.set(root, `${list}: ${rule}`);
        }
        if (below.length === 0) {
          notes.push(
            `${list}: ${rule}: ${real} is outside the roots: not writable`,
          );
        }
      }
    }
  }
  const folders = [...writable.keys()].sort();
  for (const path of folders) {
    // A folder inside another writable one is writable already.
    if (folders.some((other) => other !== path && within(path, other))) {
      continue;
    }
    mounts.push({ kind: "rw", path, why: writable.get(path)! });
  }

  for (const rule of input.rules.deny) {
    const verb = verbOf(rule);
    if (WRITE_VERBS.includes(verb)) {
      // Read-only again where a deny rule names a folder inside a writable one.
      for (const target of literalFolders(rule, "whole")) {
        const at = place(target, first);
        const real = at === undefined ? undefined : await realPath(at);
        if (real === undefined || !(await isDirectory(real))) continue;
        if (folders.some((folder) => within(real, folder))) {
          mounts.push({ kind: "ro", path: real, why: `deny: ${rule}` });
        }
      }
    } else if (verb === "read") {
      const targets = literalFolders(rule, "whole");
      if (targets.length === 0) {
        notes.push(
          `deny: ${rule}: a glob inside a name: left to the policy (not hidden)`,
        );
      }
      for (const target of targets) {
        const at = place(target, first);
        const real = at === undefined ? undefined : await realPath(at);
        if (real === undefined) continue;
        if (real === "/" || roots.some((root) => within(root, real))) {
          notes.push(
            `deny: ${rule}: holds a root: left to the policy (not hidden)`,
          );
          continue;
        }
        mounts.push({
          kind: (await isDirectory(real)) ? "hide" : "hide-file",
          path: real,
          why: `deny: ${rule}`,
        });
      }
    }
  }

  const netRule = [
    ...input.rules.allow.map((r) => ["allow", r]),
    ...input.rules.ask.map((r) => ["ask", r]),
  ]
    .find(([, rule]) => verbOf(rule) === "net");
  const network = netRule === undefined
    ? { shared: false, why: "no allow or ask net: rule" }
    : { shared: true, why: `${netRule[0]}: ${netRule[1]}` };

  const env: Record<string, string> = {};
  for (const name of [...RUNTIME_ENV, ...input.env]) {
    const value = environment[name];
    if (value !== undefined) env[name] = value;
  }
  return { mounts, network, env, notes };
}

/**
 * The fence's digest: SHA-256 over its mounts, network and the names (not
 * the values) of its environment, so that an audit line records it and no
 * secret.
 */
export function fenceDigest(fence: Fence): string {
  const canonical = JSON.stringify({
    mounts: fence.mounts.map((m) => [m.kind, m.path]),
    network: fence.network.shared,
    env: Object.keys(fence.env).sort(),
  });
  return `sha256:${sha256HexSync(canonical)}`;
}

/** The fence as lines for a person: mounts, network, environment names, notes. */
export function describeFence(fence: Fence): string[] {
  const lines = [
    "filesystem: read-only; /dev, /proc and empty /tmp and /run of its own",
  ];
  const words = {
    ro: "read-only",
    rw: "writable ",
    hide: "hidden   ",
    "hide-file": "hidden   ",
  };
  for (const mount of fence.mounts) {
    lines.push(
      `  ${
        words[mount.kind].trimEnd().padEnd(9)
      } ${mount.path}  (${mount.why})`,
    );
  }
  lines.push(
    `network: ${
      fence.network.shared ? "shared" : "none"
    } (${fence.network.why})`,
  );
  lines.push(
    `environment: ${Object.keys(fence.env).sort().join(", ") || "(empty)"}`,
  );
  for (const note of fence.notes) lines.push(`note: ${note}`);
  lines.push(`digest: ${fenceDigest(fence)}`);
  return lines;
}

function verbOf(rule: string): string {
  const colon = rule.indexOf(":");
  return colon === -1 ? "" : rule.slice(0, colon);
}

/**
 * The literal folders of a path rule, one per brace alternative: the
 * segments before the first one with a wildcard. `folder` is for writable
 * mounts: a rule without a wildcard names a file, so its folder. `whole` is
 * for what is hidden or protected: the rule's literal target when it has
 * no wildcard or ends in `/**` (the whole subtree), nothing otherwise.
 */
function literalFolders(rule: string, mode: "folder" | "whole"): string[] {
  const colon = rule.indexOf(":");
  let alternatives;
  try {
    alternatives = expandBraces(lex(rule.slice(colon + 1), colon + 1, true));
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const tokens of alternatives) {
    const absolute = tokens.length > 0 && isSpecial(tokens[0], "/");
    const segments = splitTokens(absolute ? tokens.slice(1) : tokens, "/", 0)
      .map((piece) => piece.tokens);
    const wild = segments.findIndex((segment) =>
      segment.some((t) => !t.lit && "*?[".includes(t.c))
    );
    const names = segments.map(text);
    let kept: string[] | undefined;
    if (wild === -1) {
      kept = mode === "folder" ? names.slice(0, -1) : names;
    } else if (mode === "folder") {
      kept = names.slice(0, wild);
    } else if (wild === segments.length - 1 && names[wild] === "**") {
      kept = names.slice(0, wild);
    }
    if (kept === undefined) continue;
    if (kept.some((name) => name === ".." || name === "")) continue;
    const path = kept.filter((name) => name !== ".").join("/");
    found.push(absolute ? `/${path}` : path);
  }
  return found;
}

/** A rule's target as a path: relative ones under the first root. */
function place(target: string, root: string | undefined): string | undefined {
  if (isAbsolute(target)) return target;
  return root === undefined ? undefined : join(root, target);
}

/** Whether `path` is `folder` or inside it (both real and absolute). */
function within(path: string, folder: string): boolean {
  if (folder === SEPARATOR) return true;
  return path === folder || path.startsWith(folder + SEPARATOR);
}

async function realPath(path: string): Promise<string | undefined> {
  try {
    return await Deno.realPath(path);
  } catch {
    return undefined;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

/**
 * What of the server's program must stay readable: the program as found on
 * PATH, its arguments that are existing paths, the folder it starts in,
 * and the runtime's caches.
 */
async function programPaths(
  command: readonly string[],
  environment: Readonly<Record<string, string>>,
  cwd: string,
): Promise<string[]> {
  const candidates: string[] = [cwd];
  const [program, ...args] = command;
  if (program !== undefined) {
    if (program.includes("/")) candidates.push(resolve(cwd, program));
    else {
      for (const dir of (environment.PATH ?? "").split(":")) {
        if (dir !== "") candidates.push(join(dir, program));
      }
    }
  }
  for (const arg of args) {
    if (arg.startsWith("/") || arg.startsWith("./") || arg.startsWith("../")) {
      candidates.push(resolve(cwd, arg));
    }
  }
  for (
    const name of [
      "DENO_DIR",
      "XDG_CACHE_HOME",
      "NPM_CONFIG_CACHE",
      "npm_config_cache",
    ]
  ) {
    if (environment[name]) candidates.push(environment[name]);
  }
  const found: string[] = [];
  for (const candidate of candidates) {
    const real = await realPath(candidate);
    if (real === undefined) continue;
    found.push(await projectOf(real));
  }
  return found;
}

const MANIFESTS = ["package.json", "deno.json", "deno.jsonc"];

/**
 * The folder whose files a script loads: above its first `node_modules`
 * (where npm hoists its dependencies), else the nearest folder with a
 * package.json or deno.json, else its own folder.
 */
async function projectOf(path: string): Promise<string> {
  const modules = path.indexOf(`${SEPARATOR}node_modules${SEPARATOR}`);
  if (modules > 0) return path.slice(0, modules);
  const own = (await isDirectory(path)) ? path : dirname(path);
  for (let dir = own; dir !== dirname(dir); dir = dirname(dir)) {
    for (const manifest of MANIFESTS) {
      if (await exists(join(dir, manifest))) return dir;
    }
  }
  return own;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
