// Each shipped preset against the real server it was written for: every
// tool it names is in the server's list, every placeholder is an argument
// of that tool's input schema ([] on an array), and the filesystem preset
// covers all of its server's tools.

import assert from "node:assert/strict";
import { spawnStdio } from "../testing/stdio_client.ts";
import { PRESETS } from "./_presets.ts";

const ROOT = await Deno.makeTempDir();
const COMMANDS: Record<string, string[]> = {
  filesystem: [
    "npm:@modelcontextprotocol/server-filesystem@2026.8.31",
    ROOT,
  ],
  memory: ["npm:@modelcontextprotocol/server-memory@2026.8.31"],
  fetch: ["npm:mcp-fetch-server@1.1.2"],
  commands: ["npm:mcp-server-commands@0.5.0"],
};

for (const [name, preset] of PRESETS) {
  Deno.test(`the ${name} preset fits the real ${preset.server}`, async () => {
    const [specifier, ...args] = COMMANDS[name];
    assert.match(specifier, new RegExp(`${preset.server}@${preset.tested}$`));
    await using server = spawnStdio(
      "deno",
      ["run", "-A", "--no-lock", "--quiet", specifier, ...args],
      { env: { MEMORY_FILE_PATH: `${ROOT}/memory.jsonl` }, timeoutMs: 60_000 },
    );
    await server.initialize({
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "presets-test", version: "1" },
    });
    const listed = await server.exchange("tools/list", {});
    // deno-lint-ignore no-explicit-any
    const tools = (listed.result as any).tools as any[];
    const matched = new Set<string>();
    for (const [toolName, templates] of preset.tools) {
      const glob = new RegExp(`^${toolName.replaceAll("*", ".*")}$`);
      const hits = tools.filter((tool) => glob.test(tool.name));
      assert.ok(hits.length > 0, `${toolName} is not a tool of ${name}`);
      for (const tool of hits) {
        matched.add(tool.name);
        const properties = tool.inputSchema.properties ?? {};
        for (const template of templates) {
          for (const part of template.parts) {
            if (typeof part === "string") continue;
            const [first] = part.steps;
            assert.ok(
              first.key in properties,
              `${tool.name}: ${template.text}: no argument ${first.key}`,
            );
            if (first.each) {
              assert.equal(properties[first.key].type, "array", template.text);
            }
          }
        }
      }
    }
    if (name === "filesystem") {
      assert.equal(tools.length, 14);
      assert.deepEqual(
        tools.map((t) => t.name).filter((n) => !matched.has(n)),
        [],
      );
    }
  });
}
