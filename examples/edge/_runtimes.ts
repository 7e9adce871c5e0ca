// The four runtimes the edge server runs on, where their binaries are and
// how each one is built for and started. Bun, workerd and a current Node LTS
// come from npm, pinned here, into one cache directory that install.ts
// fills (and .ci/run calls it), so that no test fetches them mid-run.

/** The runtimes serve.ts starts. */
export const RUNTIMES = ["deno", "node", "bun", "workerd"] as const;

/** One of {@linkcode RUNTIMES}. */
export type Runtime = typeof RUNTIMES[number];

/** The npm packages install.ts puts in the cache: each runtime's binary. */
export const NPM_PACKAGES = [
  "bun@1.4.5",
  "workerd@1.20261123.1",
  // Node's current LTS line (26, LTS since October 2026), beside the
  // machine's own node (20, the oldest supported).
  "node@26.10.0",
] as const;

/** The command that fills the cache; tests name it when a runtime is missing. */
export const INSTALL_LINE = "deno run -A examples/edge/install.ts";

/** The cache directory: `$FORGE_EDGE_RUNTIMES`, else under Deno's cache. */
export function cacheDir(): string {
  const set = Deno.env.get("FORGE_EDGE_RUNTIMES");
  if (set) return set;
  const denoDir = Deno.env.get("DENO_DIR") ??
    `${
      Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`
    }/deno`;
  return `${denoDir}/forge-edge-runtimes`;
}

/** The cached npm binary `name`, or undefined when not installed. */
export function cachedBinary(name: string): string | undefined {
  const path = `${cacheDir()}/node_modules/.bin/${name}`;
  try {
    Deno.statSync(path);
    return path;
  } catch {
    return undefined;
  }
}

/** Where `name` is on PATH, or undefined. */
export function onPath(name: string): string | undefined {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (dir === "") continue;
    try {
      if (Deno.statSync(`${dir}/${name}`).isFile) return `${dir}/${name}`;
    } catch {
      // not in this one
    }
  }
  return undefined;
}

/**
 * The binary that runs `runtime` by default: Deno itself; the machine's
 * node; bun and workerd from the cache, else from PATH. Undefined when
 * there is none.
 */
export function defaultBinary(runtime: Runtime): string | undefined {
  switch (runtime) {
    case "deno":
      return Deno.execPath();
    case "node":
      return onPath("node") ?? cachedBinary("node");
    case "bun":
    case "workerd":
      return cachedBinary(runtime) ?? onPath(runtime);
  }
}

/**
 * A runtime the tests and the benchmark start the server on: its name, and
 * its binary, or why it is skipped (the install line).
 */
export interface Target {
  readonly label: string;
  readonly runtime: Runtime;
  /** The binary to pass as `--bin`; undefined for the default. */
  readonly bin?: string;
  /** Why it is skipped (the install line), when it is. */
  readonly missing?: string;
}

function target(
  label: string,
  runtime: Runtime,
  bin: string | undefined,
): Target {
  return bin === undefined
    ? { label, runtime, missing: ` (${label} not installed: ${INSTALL_LINE})` }
    : { label, runtime, bin };
}

/** Deno, the machine's Node, Node's current LTS, Bun and workerd. */
export function targets(): Target[] {
  return [
    { label: "Deno", runtime: "deno" },
    target("Node (the machine's)", "node", onPath("node")),
    target("Node (current LTS, npm)", "node", cachedBinary("node")),
    target("Bun", "bun", cachedBinary("bun") ?? onPath("bun")),
    target("workerd", "workerd", cachedBinary("workerd") ?? onPath("workerd")),
  ];
}
