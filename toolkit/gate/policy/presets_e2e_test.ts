// Each shipped preset against the real server it was written for: every
// tool it names is in the server's list, every placeholder is an argument
// of that tool's input schema ([] on an array), the templates fill from a
// valid call of each tool (one the memory server runs), and the filesystem
// preset covers all of its server's tools (mapped_e2e_test.ts runs each).

import assert from "node:assert/strict";
import { fileAccess } from "../../patterns/file.ts";
import { spawnStdio } from "../../testing/stdio_client.ts";
import { PRESETS } from "./_presets.ts";
import { fillTemplates, type Template } from "./_template.ts";

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
    // A valid call of each listed tool, from its input schema, fills the
    // templates of its entry.
    for (const tool of tools.filter((t) => matched.has(t.name))) {
      const templates = [...preset.tools].find(([toolName]) =>
        new RegExp(`^${toolName.replaceAll("*", ".*")}$`).test(tool.name)
      )![1];
      const args = sampleCall(tool.inputSchema, templates);
      const patterns = await fillTemplates(templates, args, fileAccess(ROOT));
      assert.ok(patterns.length > 0, tool.name);
      if (name === "memory") {
        const ran = await server.exchange("tools/call", {
          name: tool.name,
          arguments: args,
        });
        // deno-lint-ignore no-explicit-any
        assert.notEqual((ran.result as any)?.isError, true, tool.name);
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

/**
 * A valid call from a tool's input schema: every required argument and
 * every optional one a template names, strings `"x"` (a URL where the
 * template is a `net` one), arrays of one element.
 */
// deno-lint-ignore no-explicit-any
function sampleCall(schema: any, templates: readonly Template[]) {
  const named = new Set(
    templates.flatMap((t) =>
      t.parts.flatMap((part) => typeof part === "string" ? [] : part.steps)
    ).map((step) => step.key),
  );
  const net = templates.some((t) => t.kind === "net");
  // deno-lint-ignore no-explicit-any
  function sample(node: any, key: string): unknown {
    switch (node?.type) {
      case "array":
        return [sample(node.items, key)];
      case "object": {
        const out: Record<string, unknown> = {};
        for (const [name, inner] of Object.entries(node.properties ?? {})) {
          if (node.required?.includes(name) || named.has(name)) {
            out[name] = sample(inner, name);
          }
        }
        return out;
      }
      case "number":
      case "integer":
        return 1;
      case "boolean":
        return false;
      default:
        return net ? `https://${key}.example.com/` : "x";
    }
  }
  return sample(schema, "") as Record<string, unknown>;
}
