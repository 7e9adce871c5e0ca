// Off costs nothing: no entry but this one loads @opentelemetry/api, so a
// server without the layer never has it in its module graph.

import assert from "node:assert/strict";

async function graphOf(file: string): Promise<string[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", file],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert.ok(output.success, `deno info ${file}`);
  const info = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    modules: { specifier: string }[];
  };
  return info.modules.map((m) => m.specifier);
}

const OTEL = /opentelemetry/;

Deno.test("the main and server entries do not load @opentelemetry/api; the otel entry does", async () => {
  const root = new URL("../../", import.meta.url);
  for (const entry of ["mod.ts", "toolkit/server/mod.ts"]) {
    const graph = await graphOf(new URL(entry, root).pathname);
    assert.deepEqual(graph.filter((s) => OTEL.test(s)), [], entry);
  }
  const otel = await graphOf(new URL("toolkit/otel/mod.ts", root).pathname);
  assert.ok(otel.some((s) => OTEL.test(s)));
});
