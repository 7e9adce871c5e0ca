import assert from "node:assert/strict";
import { importCostCatalogue, serverCatalogue } from "./_servers.ts";

Deno.test("every server and start-up probe the harness names exists on disk", async () => {
  for (const spec of [...serverCatalogue(), ...importCostCatalogue()]) {
    const file = spec.command.at(-1)!;
    const info = await Deno.stat(file);
    assert.ok(info.isFile, `${spec.id}: ${file}`);
  }
});

Deno.test("serverCatalogue() has unique ids, the floor and the toolkit, each peer on both runtimes", () => {
  const ids = serverCatalogue().map((s) => s.id);
  assert.equal(new Set(ids).size, ids.length);
  for (
    const id of [
      "raw-deno",
      "toolkit",
      "sdk-deno",
      "sdk-node",
      "fastmcp-deno",
      "fastmcp-node",
      "tmcp-deno",
      "tmcp-node",
    ]
  ) {
    assert.ok(ids.includes(id), id);
  }
  // Only the toolkit server has the pattern tool the probe comparison calls.
  assert.deepEqual(
    serverCatalogue().filter((s) => s.probe).map((s) => s.id),
    ["toolkit"],
  );
});
