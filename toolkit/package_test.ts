// The package's shape, as a user and a reader meet it: every entry in
// deno.json is small, and the modules behind them import each other without
// a circle (a circle makes load order matter and the layers meaningless).

import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
const MAX_ENTRY_NAMES = 40;

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

Deno.test(`every entry exports at most ${MAX_ENTRY_NAMES} names`, async () => {
  const exports = await entries();
  const sizes: Record<string, number> = {};
  for (const [name, file] of Object.entries(exports)) {
    const doc = await denoJson(["doc", "--json", file]) as {
      nodes: Record<string, { symbols: unknown[] }>;
    };
    sizes[name] = Object.values(doc.nodes)[0].symbols.length;
  }
  assert.ok(sizes["."] > 10, "the main entry was read");
  const over = Object.entries(sizes).filter(([, n]) => n > MAX_ENTRY_NAMES);
  assert.deepEqual(over, [], JSON.stringify(sizes));
});
