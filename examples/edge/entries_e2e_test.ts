// The entries a remote server needs run unchanged outside Deno: each is
// bundled on its own (`deno bundle --platform browser`) and imported under
// Node (the machine's and the current LTS), Bun and workerd, where `Deno`
// does not exist and workerd refuses timers and random values at a
// module's top level. Then, on each, the stateless handler answers
// `server/discover` in-process and reports a tool that throws, and on workerd a handler with sessions is
// refused with the error that points to stateless mode.

import assert from "node:assert/strict";
import { cachedBinary, INSTALL_LINE, onPath } from "./_runtimes.ts";
import { spawnUntil } from "./_spawn.ts";

const ROOT = new URL("../../", import.meta.url);

/** The entries the issue lists as the remote server's, by deno.json export. */
const PORTABLE_ENTRIES: Record<string, string> = {
  ".": "mod.ts",
  "./server": "toolkit/server/mod.ts",
  "./result": "toolkit/result/mod.ts",
  "./args": "toolkit/args/mod.ts",
  "./probe": "toolkit/probe.ts",
  "./http": "toolkit/http/mod.ts",
  "./jsonrpc": "toolkit/jsonrpc/mod.ts",
  "./policy": "toolkit/policy/mod.ts",
  "./validate": "validate/mod.ts",
};

const DISCOVER = {
  jsonrpc: "2.0",
  id: 1,
  method: "server/discover",
  params: {
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    },
  },
};

// Imports every bundle, then serves one request through the stateless
// handler and tries a handler with sessions; answers what happened.
const PROBE = `
const entries = ${JSON.stringify(Object.keys(PORTABLE_ENTRIES))};
export async function probe(load) {
  const imported = {};
  for (const [index, entry] of entries.entries()) {
    try {
      imported[entry] = Object.keys(await load(index)).length;
    } catch (error) {
      imported[entry] = String(error?.stack ?? error);
    }
  }
  const { createServer, text } = await load(0);
  const { createHttpHandler } = await load(5);
  const server = createServer({ name: "portable", version: "1" });
  server.tool({ name: "ping", description: "Answers pong", handler: () => text("pong") });
  server.tool({ name: "fail", description: "Throws", handler: () => { throw new Error("boom"); } });
  const post = async (handler, body, name) => {
    const response = await handler(new Request("http://localhost/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": body.method,
        ...(name === undefined ? {} : { "mcp-name": name }),
      },
      body: JSON.stringify(body),
    }));
    return await response.json();
  };
  let discover, thrown;
  try {
    const handler = createHttpHandler(server, { stateless: true });
    discover = (await post(handler, ${
  JSON.stringify(DISCOVER)
})).result?.supportedVersions;
    const call = ${JSON.stringify(DISCOVER)};
    call.method = "tools/call";
    call.params.name = "fail";
    thrown = (await post(handler, call, "fail")).error?.message;
  } catch (error) {
    discover = String(error?.stack ?? error);
  }
  let sessions;
  try {
    await createHttpHandler(server).close();
    sessions = "created";
  } catch (error) {
    sessions = error.message;
  }
  return { denoGlobal: typeof globalThis.Deno, imported, discover, thrown, sessions };
}
`;

async function buildBundles(dir: string): Promise<void> {
  const files = Object.values(PORTABLE_ENTRIES).map((path) =>
    new URL(path, ROOT).pathname
  );
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=browser",
      "--outdir",
      dir,
      ...files,
    ],
    cwd: ROOT.pathname,
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  await Deno.writeTextFile(`${dir}/probe.mjs`, PROBE);
}

/** The bundle of `entry`, relative to the build directory. */
function bundleOf(entry: string): string {
  return `./${PORTABLE_ENTRIES[entry].replace(/\.ts$/, ".js")}`;
}

interface Report {
  denoGlobal: string;
  imported: Record<string, number | string>;
  discover: unknown;
  thrown: unknown;
  sessions: string;
}

function checkReport(report: Report, runtime: string): void {
  assert.equal(report.denoGlobal, "undefined", `${runtime} has a Deno global`);
  for (const entry of Object.keys(PORTABLE_ENTRIES)) {
    assert.equal(
      typeof report.imported[entry],
      "number",
      `${entry} failed to import on ${runtime}: ${report.imported[entry]}`,
    );
  }
  assert.deepEqual(report.discover, ["2026-07-28"]);
  // A tool's own failure, not a ReferenceError for Deno's permission errors.
  assert.match(String(report.thrown), /boom/);
}

/** Runs the probe in a Node-like runtime's process, answering its report. */
async function probeIn(binary: string, dir: string): Promise<Report> {
  const loads = Object.keys(PORTABLE_ENTRIES).map((entry) =>
    `() => import(${JSON.stringify(bundleOf(entry))})`
  );
  await Deno.writeTextFile(
    `${dir}/run.mjs`,
    `import { probe } from "./probe.mjs";
const loads = [${loads.join(", ")}];
console.log("REPORT " + JSON.stringify(await probe((i) => loads[i]())));
`,
  );
  const { code, stdout, stderr } = await new Deno.Command(binary, {
    args: ["run.mjs"],
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(stdout);
  const line = out.split("\n").find((l) => l.startsWith("REPORT "));
  assert.ok(
    code === 0 && line !== undefined,
    `${binary} failed (${code}):\n${out}${new TextDecoder().decode(stderr)}`,
  );
  return JSON.parse(line.slice("REPORT ".length));
}

/** Runs the probe in workerd: the bundles imported at the top level. */
async function probeInWorkerd(binary: string, dir: string): Promise<Report> {
  const names = Object.keys(PORTABLE_ENTRIES);
  const modules = names.map((entry) =>
    `(name = ${JSON.stringify(bundleOf(entry).slice(2))}, esModule = embed ${
      JSON.stringify(bundleOf(entry).slice(2))
    })`
  );
  await Deno.writeTextFile(
    `${dir}/main.mjs`,
    `import { probe } from "./probe.mjs";
${
      names.map((entry, i) =>
        `import * as e${i} from ${JSON.stringify(bundleOf(entry))};`
      ).join("\n")
    }
const loaded = [${names.map((_, i) => `e${i}`).join(", ")}];
export default {
  async fetch() {
    return Response.json(await probe(async (i) => loaded[i]));
  },
};
`,
  );
  await Deno.writeTextFile(
    `${dir}/config.capnp`,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .main)],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],
);
const main :Workerd.Worker = (
  modules = [(name = "main.mjs", esModule = embed "main.mjs"), (name = "probe.mjs", esModule = embed "probe.mjs"), ${
      modules.join(", ")
    }],
  compatibilityDate = "2026-11-01",
);
`,
  );
  const { started, value: port } = await spawnUntil(
    binary,
    ["serve", "config.capnp", "--control-fd=1"],
    (line) => /"event":"listen".*"port":(\d+)/.exec(line)?.[1],
    { cwd: dir },
  );
  try {
    const response = await fetch(`http://127.0.0.1:${port}/`);
    const body = await response.text();
    assert.equal(response.status, 200, `${body}\n${started.output()}`);
    return JSON.parse(body);
  } finally {
    await started.stop();
  }
}

const node = onPath("node");
const nodeLts = cachedBinary("node");
const bun = cachedBinary("bun") ?? onPath("bun");
const workerd = cachedBinary("workerd") ?? onPath("workerd");

const missing = (what: string) => ` (${what} not installed: ${INSTALL_LINE})`;

for (
  const [name, binary] of [
    ["Node (the machine's)", node],
    ["Node (current LTS, npm)", nodeLts],
    ["Bun", bun],
  ] as const
) {
  Deno.test({
    name: `the remote-server entries import and serve on ${name} without Deno${
      binary === undefined ? missing(name) : ""
    }`,
    ignore: binary === undefined,
    fn: async () => {
      const dir = await Deno.makeTempDir({ prefix: "forge-entries-" });
      try {
        await buildBundles(dir);
        const report = await probeIn(binary!, dir);
        checkReport(report, name);
        assert.equal(report.sessions, "created");
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}

Deno.test({
  name:
    `the remote-server entries import at workerd's top level, and sessions are refused there${
      workerd === undefined ? missing("workerd") : ""
    }`,
  ignore: workerd === undefined,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "forge-entries-" });
    try {
      await buildBundles(dir);
      const report = await probeInWorkerd(workerd!, dir);
      checkReport(report, "workerd");
      assert.match(
        report.sessions,
        /^Cannot create HTTP handler: sessions \(2025-11-25\) keep state in memory between requests, .*stateless: true/,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** The `Deno.*` types `node` (deno doc's JSON) names anywhere below it. */
function denoTypes(node: unknown, found: Set<string>): Set<string> {
  if (Array.isArray(node)) {
    for (const item of node) denoTypes(item, found);
  } else if (typeof node === "object" && node !== null) {
    const { kind, value } = node as { kind?: unknown; value?: unknown };
    const name = (value as { typeName?: unknown } | undefined)?.typeName;
    if (
      kind === "typeRef" && typeof name === "string" && name.startsWith("Deno.")
    ) found.add(name);
    for (const child of Object.values(node)) denoTypes(child, found);
  }
  return found;
}

Deno.test("the remote-server entries' public types name nothing from the Deno namespace", async (t) => {
  for (const [entry, path] of Object.entries(PORTABLE_ENTRIES)) {
    await t.step(entry, async () => {
      const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
        args: ["doc", "--json", path],
        cwd: ROOT.pathname,
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(code, 0, new TextDecoder().decode(stderr));
      const doc = JSON.parse(new TextDecoder().decode(stdout));
      // A Node or Bun project type-checks these without Deno's types.
      assert.deepEqual([...denoTypes(doc, new Set())], []);
    });
  }
});
