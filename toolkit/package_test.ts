// The package's shape, as a user and a reader meet it: the top level is the
// design card's, every entry in deno.json is small and is the one home of
// what it exports, validate <- configreload <- toolkit depend in that order
// only, the modules import each other without a circle (a circle makes
// load order matter and the layers meaningless), and the gate's rooms
// import down only.

import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
const MAX_ENTRY_NAMES = 40;
const MAX_MAIN_ENTRY_NAMES = 25;
/** The top level the design card fixes, plus the repository's own files. */
const TOP_LEVEL = [
  ".ci",
  ".git",
  ".gitea",
  ".gitignore",
  "LICENSE",
  "README.md",
  "bench",
  "configreload",
  "deno.json",
  "deno.lock",
  "docs",
  "examples",
  "mod.ts",
  "template",
  "toolkit",
  "validate",
];

interface DenoJson {
  exports: Record<string, string>;
}

async function entries(): Promise<Record<string, string>> {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("deno.json", ROOT)),
  ) as DenoJson;
  return config.exports;
}

async function denoJson(args: string[]): Promise<unknown> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  return JSON.parse(new TextDecoder().decode(stdout));
}

interface InfoModule {
  specifier: string;
  dependencies?: {
    code?: { specifier: string };
    type?: { specifier: string };
  }[];
}

/** The package's own modules (no npm, no tests) and the ones each imports. */
async function localGraph(
  files: string[],
): Promise<Map<string, string[]>> {
  const modules: InfoModule[] = [];
  for (const file of files) {
    const info = await denoJson(["info", "--json", file]) as {
      modules: InfoModule[];
    };
    modules.push(...info.modules);
  }
  const root = ROOT.href;
  const local = (specifier: string) =>
    specifier.startsWith(root) && !specifier.includes("/node_modules/");
  const graph = new Map<string, string[]>();
  for (const module of modules) {
    if (!local(module.specifier)) continue;
    const deps = (module.dependencies ?? []).flatMap((d) =>
      [d.code?.specifier, d.type?.specifier].filter((s): s is string =>
        s !== undefined && local(s)
      )
    );
    graph.set(module.specifier.slice(root.length), [
      ...new Set(deps.map((s) => s.slice(root.length))),
    ]);
  }
  return graph;
}

/** Every circle of the graph, each as the path that closes it. */
function circles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") {
        found.push([...path.slice(path.indexOf(next)), next]);
      } else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(node, "done");
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

Deno.test("the package's modules import each other without a circle", async (t) => {
  await t.step("the circle finder finds a circle when there is one", () => {
    const graph = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], [
      "d",
      ["a"],
    ]]);
    assert.deepEqual(circles(graph), [["a", "b", "c", "a"]]);
    assert.deepEqual(circles(new Map([["a", ["b"]], ["b", []]])), []);
  });

  await t.step(
    "no entry's module graph, nor an example's, has one",
    async () => {
      const files = [
        ...Object.values(await entries()),
        "examples/hello-tool/main.ts",
        "examples/everything/main.ts",
      ];
      const graph = await localGraph(files);
      assert.ok(graph.size > files.length, "the graph was read");
      assert.deepEqual(
        circles(graph).map((c) => c.join(" -> ")),
        [],
      );
    },
  );
});

/** The names each entry exports, read as a user's editor reads them. */
async function exportedNames(): Promise<Map<string, string[]>> {
  const names = new Map<string, string[]>();
  for (const [entry, file] of Object.entries(await entries())) {
    const doc = await denoJson(["doc", "--json", file]) as {
      nodes: Record<string, { symbols: { name: string }[] }>;
    };
    names.set(entry, Object.values(doc.nodes)[0].symbols.map((s) => s.name));
  }
  return names;
}

Deno.test("every entry is small, and each name has one home", async (t) => {
  const names = await exportedNames();
  assert.ok(names.get(".")!.length > 10, "the main entry was read");

  await t.step(`every entry exports at most ${MAX_ENTRY_NAMES} names`, () => {
    const over = [...names].filter(([, n]) => n.length > MAX_ENTRY_NAMES)
      .map(([entry, n]) => `${entry}: ${n.length}`);
    assert.deepEqual(over, []);
  });

  await t.step(
    `the main entry exports at most ${MAX_MAIN_ENTRY_NAMES} names`,
    () => assert.ok(names.get(".")!.length <= MAX_MAIN_ENTRY_NAMES),
  );

  await t.step(
    "a name is exported by one entry, or by it and the main entry",
    () => {
      const homes = new Map<string, string[]>();
      for (const [entry, list] of names) {
        if (entry === ".") continue;
        for (const name of list) {
          homes.set(name, [...homes.get(name) ?? [], entry]);
        }
      }
      const shared = [...homes].filter(([, e]) => e.length > 1)
        .map(([name, e]) => `${name}: ${e.join(" ")}`);
      assert.deepEqual(shared, []);
      const homeless = names.get(".")!.filter((name) => !homes.has(name));
      assert.deepEqual(homeless, [], "the main entry only re-exports");
    },
  );
});

Deno.test("the top level is the design card's", async () => {
  const found: string[] = [];
  for await (const entry of Deno.readDir(ROOT)) found.push(entry.name);
  const extra = found.filter((name) => !TOP_LEVEL.includes(name));
  assert.deepEqual(extra, []);
  for (const part of ["mod.ts", "toolkit", "validate", "configreload"]) {
    assert.ok(found.includes(part), `${part} is there`);
  }
});

Deno.test("validate/ imports nothing of the package, configreload/ only validate/", async () => {
  const graph = await localGraph(["validate/mod.ts", "configreload/mod.ts"]);
  const edges = [...graph].flatMap(([from, deps]) =>
    deps.map((to) => `${from} -> ${to}`)
  );
  assert.ok(edges.length > 10, "the graph was read");
  const upward = edges.filter((edge) => {
    const [from, to] = edge.split(" -> ");
    if (from.startsWith("validate/")) return !to.startsWith("validate/");
    return !to.startsWith("configreload/") && !to.startsWith("validate/");
  });
  assert.deepEqual(upward, []);
});

/** The gate's rooms, each above the rooms it may import. */
const GATE_ROOMS: Record<string, string[]> = {
  "policy": [],
  "audit": ["policy"],
  "upstream": ["policy"],
  "pins": ["audit", "upstream", "policy"],
  "aggregate": [],
  "approvals": [],
};
/** The files at the gate's top that its rooms share. */
const GATE_LEAVES = [
  "toolkit/gate/_log.ts",
  "toolkit/gate/_cli.ts",
  "toolkit/gate/_era.ts",
];

/** Each import from a gate room that runs up, sideways or to the top. */
function gateRoomBreaches(graph: Map<string, string[]>): string[] {
  const roomOf = (file: string) => {
    const match = /^toolkit\/gate\/([^/]+)\//.exec(file);
    return match === null || match[1] === "testdata" ? undefined : match[1];
  };
  return [...graph].flatMap(([from, deps]) => {
    const room = roomOf(from);
    if (room === undefined) return [];
    return deps.filter((to) => {
      if (!to.startsWith("toolkit/gate/")) return false;
      const target = roomOf(to);
      if (target === undefined) return !GATE_LEAVES.includes(to);
      return target !== room && !(GATE_ROOMS[room] ?? []).includes(target);
    }).map((to) => `${from} -> ${to}`);
  });
}

Deno.test("the gate's rooms import down only", async (t) => {
  await t.step("an import up, sideways or to the top is found", () => {
    const graph = new Map([
      ["toolkit/gate/policy/a.ts", ["toolkit/gate/pins/b.ts"]],
      ["toolkit/gate/audit/c.ts", ["toolkit/gate/upstream/d.ts"]],
      ["toolkit/gate/upstream/e.ts", ["toolkit/gate/_relay.ts"]],
      ["toolkit/gate/pins/f.ts", [
        "toolkit/gate/audit/c.ts",
        "toolkit/gate/_log.ts",
        "toolkit/policy/mod.ts",
      ]],
      ["toolkit/gate/gate.ts", ["toolkit/gate/pins/f.ts"]],
    ]);
    assert.deepEqual(gateRoomBreaches(graph), [
      "toolkit/gate/policy/a.ts -> toolkit/gate/pins/b.ts",
      "toolkit/gate/audit/c.ts -> toolkit/gate/upstream/d.ts",
      "toolkit/gate/upstream/e.ts -> toolkit/gate/_relay.ts",
    ]);
  });

  await t.step("no file of a room does", async () => {
    const graph = await localGraph([
      "toolkit/gate/mod.ts",
      "toolkit/gate/main.ts",
      // Until the HTTP listener imports them.
      "toolkit/gate/approvals/_page.ts",
      "toolkit/gate/approvals/_redis_store.ts",
    ]);
    const rooms = new Set(
      [...graph.keys()].flatMap((file) =>
        /^toolkit\/gate\/([^/]+)\//.exec(file)?.[1] ?? []
      ),
    );
    assert.deepEqual([...rooms].sort(), Object.keys(GATE_ROOMS).sort());
    assert.deepEqual(gateRoomBreaches(graph), []);
  });
});
