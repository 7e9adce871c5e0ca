// What a server loads at start: the Node built-ins some paths need
// (node:async_hooks for 2026-07-28 requests, node:crypto for signed
// request state, node:fs and node:net for the gate's socket pipes) cost
// megabytes of memory each, so a server imports them only when such a path
// first runs, never in the static graph every stdio server loads.

import assert from "node:assert/strict";

interface InfoModule {
  specifier: string;
  dependencies?: { specifier: string; isDynamic?: boolean }[];
}

Deno.test("a server's static module graph loads no Node built-in", async () => {
  const entry = new URL("../../mod.ts", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert.ok(output.success, "deno info mod.ts");
  const info = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    modules: InfoModule[];
  };
  const builtins = info.modules.flatMap((module) =>
    (module.dependencies ?? [])
      .filter((d) => d.specifier.startsWith("node:"))
      .map((d) => ({ from: module.specifier, ...d }))
  );
  assert.ok(
    builtins.some((d) => d.specifier === "node:async_hooks"),
    "the 2026-07-28 path still reaches node:async_hooks",
  );
  const eager = builtins.filter((d) => !d.isDynamic)
    .map((d) => `${d.from} imports ${d.specifier}`);
  assert.deepEqual(eager, []);
});
