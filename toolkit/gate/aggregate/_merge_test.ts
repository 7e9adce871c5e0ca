import assert from "node:assert/strict";
import {
  exposeItems,
  mergeCapabilities,
  mergeDiscover,
  mergeInitialize,
  mergeInstructions,
} from "./_merge.ts";

const files = {
  name: "files",
  prefix: "files",
  result: {
    protocolVersion: "2025-11-25",
    capabilities: { tools: {}, resources: { subscribe: true } },
    instructions: "Reads files.",
  },
};
const notes = {
  name: "notes",
  prefix: "",
  result: {
    protocolVersion: "2025-06-18",
    capabilities: { tools: { listChanged: false }, logging: {} },
  },
};

Deno.test("mergeCapabilities() offers each kind some server offers, every list announcing changes", () => {
  assert.deepEqual(mergeCapabilities([files, notes]), {
    tools: { listChanged: true },
    resources: { listChanged: true, subscribe: true },
    logging: {},
  });
  assert.deepEqual(mergeCapabilities([]), {});
});

Deno.test("mergeInstructions() puts each server's under its name, and none when none gives any", () => {
  assert.equal(
    mergeInstructions([files, notes]),
    '## Server "files" (its tools are named files_…)\n\nReads files.',
  );
  assert.equal(mergeInstructions([notes]), undefined);
});

Deno.test("mergeInitialize() answers the oldest revision the servers answered, as the gate", () => {
  const result = mergeInitialize("2025-11-25", [files, notes]);
  assert.equal(result.protocolVersion, "2025-06-18");
  assert.deepEqual(result.serverInfo, { name: "forge-gate", version: "0.1.0" });
  // No server answered: the host's own revision.
  assert.equal(mergeInitialize("2025-11-25", []).protocolVersion, "2025-11-25");
});

Deno.test("mergeDiscover() keeps the revisions every server supports and the shortest ttl", () => {
  const result = mergeDiscover([
    {
      ...files,
      result: { supportedVersions: ["2026-07-28", "2027-01-01"], ttlMs: 500 },
    },
    { ...notes, result: { supportedVersions: ["2026-07-28"], ttlMs: 100 } },
  ], "serverInfo");
  assert.deepEqual(result.supportedVersions, ["2026-07-28"]);
  assert.equal(result.ttlMs, 100);
  assert.equal(result.resultType, "complete");
});

Deno.test("exposeItems() prefixes tool and prompt names, never resource URIs", () => {
  const tools = exposeItems("tools/list", "files", {
    tools: [{ name: "read" }, "not an object", { name: 3 }],
  });
  assert.deepEqual(tools, [{ name: "files_read" }, { name: 3 }]);
  assert.deepEqual(
    exposeItems("tools/list", "", { tools: [{ name: "read" }] }),
    [{ name: "read" }],
  );
  assert.deepEqual(
    exposeItems("resources/list", "files", {
      resources: [{ uri: "file:///a", name: "a" }],
    }),
    [{ uri: "file:///a", name: "a" }],
  );
});
