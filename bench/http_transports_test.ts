import assert from "node:assert/strict";
import {
  coldStart,
  directoryBytes,
  graphSize,
  VARIANTS,
} from "./http_transports.ts";
import { sessionCaller, statelessCaller } from "./transports/_requests.ts";

Deno.test("Every transport variant answers checked tools/call requests", async (t) => {
  for (const variant of VARIANTS) {
    if (variant.open === undefined) continue;
    await t.step(variant.id, async () => {
      const caller = await variant.open!();
      for (let i = 0; i < 3; i++) await caller.call();
    });
  }
});

Deno.test("The callers refuse an answer that does not echo the call", async () => {
  const wrong = () =>
    Promise.resolve(
      Response.json({ jsonrpc: "2.0", id: 1, result: { content: [] } }),
    );
  await assert.rejects(() => statelessCaller(wrong).call(), {
    message: /Unexpected answer to tools\/call 1: 200/,
  });
  await assert.rejects(() => sessionCaller(wrong), {
    message: /initialize answered no session id: 200/,
  });
});

Deno.test("graphSize() closes a graph's npm packages over their dependencies", async () => {
  const info = {
    modules: [
      { kind: "esm", specifier: "file:///a.ts", size: 100 },
      { kind: "esm", specifier: "file:///b.ts", size: 50 },
      { kind: "npm", specifier: "npm:/top@1.0.0", npmPackage: "top@1.0.0" },
      { kind: "node", specifier: "node:fs" },
    ],
    npmPackages: {
      "top@1.0.0": {
        name: "top",
        version: "1.0.0",
        dependencies: ["mid@2.0.0_peer@1.0.0"],
        localPath: "/npm/top",
      },
      "mid@2.0.0_peer@1.0.0": {
        name: "mid",
        version: "2.0.0",
        dependencies: ["top@1.0.0"],
        localPath: "/npm/mid",
      },
      "unused@9.0.0": {
        name: "unused",
        version: "9.0.0",
        dependencies: [],
        localPath: "/npm/unused",
      },
    },
  };
  const sizes: Record<string, number> = { "/npm/top": 1000, "/npm/mid": 24 };
  assert.deepEqual(
    await graphSize(info, (path) => Promise.resolve(sizes[path])),
    {
      packages: ["mid@2.0.0", "top@1.0.0"],
      packageBytes: 1024,
      localModules: 2,
      localBytes: 150,
    },
  );
  info.modules.push({
    kind: "npm",
    specifier: "npm:/ghost@1.0.0",
    npmPackage: "ghost@1.0.0",
  });
  await assert.rejects(() => graphSize(info, () => Promise.resolve(0)), {
    message: /deno info names npm package ghost@1\.0\.0 but not its entry/,
  });
});

Deno.test("directoryBytes() sums the files of a tree", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/sub`);
    await Deno.writeTextFile(`${dir}/a`, "12345");
    await Deno.writeTextFile(`${dir}/sub/b`, "123");
    assert.equal(await directoryBytes(dir), 8);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("coldStart() reports when a cold process had imported and answered", async () => {
  const figures = await coldStart("empty");
  assert.ok(figures.importedMs > 0 && figures.importedMs < figures.wallMs);
  assert.equal(figures.firstAnswerMs, figures.importedMs);
  await assert.rejects(() => coldStart("no_such_variant"), {
    message: /Cold start of no_such_variant failed/,
  });
});
