/**
 * The servers the stdio harness compares: the same `echo` tool written with
 * the toolkit, the bare SDK, fastmcp, tmcp and by hand, under Deno and Node.
 * Deno runs resolve packages through bench/deno.json and bench/deno.lock
 * (peers pinned exactly there, the toolkit through its public entries);
 * Node runs through bench/node/package-lock.json.
 *
 * @module
 */

/** One server under test. */
export interface ServerSpec {
  /** A short id for flags and JSON output, such as `sdk-node`. */
  id: string;
  /** The label in the table. */
  label: string;
  /** The runtime it runs on. */
  runtime: "deno" | "node";
  /** The command that starts it. */
  command: string[];
  /** Whether it has the toolkit's `note` pattern tool for the probe round trip. */
  probe: boolean;
}

/** The harness's repository root, as a path. */
export const REPO_ROOT: string = new URL("..", import.meta.url).pathname
  .replace(/\/$/, "");

/** The benchmarks' own project: its deno.json, lock and servers. */
export const BENCH_DIR: string = `${REPO_ROOT}/bench`;

/** The config every Deno server under test runs with. */
export const BENCH_CONFIG: string = `${BENCH_DIR}/deno.json`;

/** Where the Node peers are installed. */
export const NODE_DIR: string = `${BENCH_DIR}/node`;

/**
 * Every server, the raw Deno loop (the floor the ratios divide by) first.
 *
 * @example
 * ```ts
 * import { serverCatalogue } from "./_servers.ts";
 *
 * serverCatalogue().map((s) => s.id).includes("toolkit"); // true
 * ```
 */
export function serverCatalogue(): ServerSpec[] {
  const deno = (file: string) => [
    Deno.execPath(),
    "run",
    "--allow-all",
    "--config",
    BENCH_CONFIG,
    `${BENCH_DIR}/${file}`,
  ];
  const node = (file: string) => ["node", `${BENCH_DIR}/${file}`];
  return [
    {
      id: "raw-deno",
      label: "raw JSON-RPC loop (Deno)",
      runtime: "deno",
      command: deno("servers/raw_echo.ts"),
      probe: false,
    },
    {
      id: "toolkit",
      label: "@forge/toolkit (Deno)",
      runtime: "deno",
      command: deno("servers/toolkit_echo.ts"),
      probe: true,
    },
    {
      id: "toolkit-json",
      label: "@forge/toolkit, JSON Schema input, no zod (Deno)",
      runtime: "deno",
      command: deno("servers/toolkit_json_echo.ts"),
      probe: false,
    },
    {
      id: "sdk-deno",
      label: "SDK McpServer (Deno)",
      runtime: "deno",
      command: deno("node/sdk_echo.mjs"),
      probe: false,
    },
    {
      id: "tmcp-deno",
      label: "tmcp + zod (Deno)",
      runtime: "deno",
      command: deno("node/tmcp_echo.mjs"),
      probe: false,
    },
    {
      id: "fastmcp-deno",
      label: "fastmcp (Deno)",
      runtime: "deno",
      command: deno("node/fastmcp_echo.mjs"),
      probe: false,
    },
    {
      id: "raw-node",
      label: "raw JSON-RPC loop (Node)",
      runtime: "node",
      command: node("node/raw_echo.mjs"),
      probe: false,
    },
    {
      id: "sdk-node",
      label: "SDK McpServer (Node)",
      runtime: "node",
      command: node("node/sdk_echo.mjs"),
      probe: false,
    },
    {
      id: "tmcp-node",
      label: "tmcp + zod (Node)",
      runtime: "node",
      command: node("node/tmcp_echo.mjs"),
      probe: false,
    },
    {
      id: "fastmcp-node",
      label: "fastmcp (Node)",
      runtime: "node",
      command: node("node/fastmcp_echo.mjs"),
      probe: false,
    },
  ];
}

/**
 * Start-up probes: the raw Deno loop after one import each, from zod alone
 * to the toolkit's main entry, then the toolkit's echo server itself, so the
 * table can say which part of the module graph costs what.
 *
 * @example
 * ```ts
 * import { importCostCatalogue } from "./_servers.ts";
 *
 * importCostCatalogue()[0].id; // "raw-deno"
 * ```
 */
export function importCostCatalogue(): ServerSpec[] {
  const deno = (file: string) => [
    Deno.execPath(),
    "run",
    "--allow-all",
    "--config",
    BENCH_CONFIG,
    `${BENCH_DIR}/servers/${file}`,
  ];
  const probe = (id: string, label: string, file: string): ServerSpec => ({
    id,
    label,
    runtime: "deno",
    command: deno(file),
    probe: false,
  });
  return [
    probe("raw-deno", "raw loop, no imports", "raw_echo.ts"),
    probe("zod", "+ zod", "imports/zod.ts"),
    probe("sdk-types", "+ SDK types.js (imports zod)", "imports/sdk_types.ts"),
    probe(
      "sdk-protocol",
      "+ SDK shared/protocol.js",
      "imports/sdk_protocol.ts",
    ),
    probe(
      "sdk-server",
      "+ SDK server/index.js (ajv too)",
      "imports/sdk_server.ts",
    ),
    probe("toolkit-mod", "+ toolkit mod.ts (no zod)", "imports/toolkit.ts"),
    probe(
      "toolkit-json",
      "toolkit echo server, JSON Schema input (mod.ts, no zod)",
      "toolkit_json_echo.ts",
    ),
    probe(
      "toolkit",
      "toolkit echo server (mod.ts + zod, 2 tools)",
      "toolkit_echo.ts",
    ),
  ];
}

/**
 * The toolkit echo server of another checkout (its
 * `bench/servers/toolkit_echo.ts`, run with its `bench/deno.json`, or with
 * its root `deno.json` when it predates bench's own project), to measure a
 * change side by side with the current tree:
 * `deno task bench --compare=../before`.
 *
 * @example
 * ```ts ignore
 * const before = checkoutServer("/tmp/before");
 * ```
 */
export function checkoutServer(dir: string): ServerSpec {
  const root = dir.replace(/\/+$/, "");
  let config = `${root}/bench/deno.json`;
  try {
    Deno.statSync(config);
  } catch {
    config = `${root}/deno.json`;
  }
  return {
    id: `toolkit@${root}`,
    label: `@forge/toolkit at ${root}`,
    runtime: "deno",
    command: [
      Deno.execPath(),
      "run",
      "--allow-all",
      "--config",
      config,
      `${root}/bench/servers/toolkit_echo.ts`,
    ],
    probe: true,
  };
}
