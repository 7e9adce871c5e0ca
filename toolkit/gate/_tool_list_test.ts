import assert from "node:assert/strict";
import type { JsonRpcMessage } from "../jsonrpc/mod.ts";
import { ToolList } from "./_tool_list.ts";

const PROBED = { _meta: { "forge.supports_permission_patterns": true } };

function result(body: Record<string, unknown>): JsonRpcMessage {
  return { jsonrpc: "2.0", id: "forge-gate:1", result: body };
}

Deno.test("ToolList learns which tools answer probes, and forgets them all on a change", () => {
  const tools = new ToolList(() => Promise.reject(new Error("unused")));
  tools.learn({
    tools: [{ name: "a", ...PROBED }, { name: "b" }, { nameless: 1 }, 3],
  });
  assert.deepEqual(tools.get("a"), { probed: true });
  assert.deepEqual(tools.get("b"), { probed: false });
  tools.learn({ tools: "not a list" });
  tools.clear();
  assert.equal(tools.get("a"), undefined);
});

Deno.test("ToolList fetches every page in the call's revision, one walk for all", async () => {
  const era = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };
  const asked: Record<string, unknown>[] = [];
  const tools = new ToolList((method, params) => {
    assert.equal(method, "tools/list");
    asked.push(params);
    return Promise.resolve(
      params.cursor === undefined
        ? result({ tools: [{ name: "a" }], nextCursor: "2" })
        : result({ tools: [{ name: "b", ...PROBED }] }),
    );
  });
  await Promise.all([tools.fetch(era), tools.fetch(era)]);
  assert.deepEqual(asked, [{ _meta: era }, { cursor: "2", _meta: era }]);
  assert.deepEqual(tools.get("b"), { probed: true });
  await tools.fetch(undefined);
  assert.deepEqual(asked.slice(2), [{}, { cursor: "2" }], "a new walk");
});

Deno.test("ToolList stops at an error answer, and after 1000 pages of a repeated cursor", async () => {
  let pages = 0;
  const looping = new ToolList(() => {
    pages++;
    return Promise.resolve(result({ tools: [], nextCursor: "same" }));
  });
  await looping.fetch(undefined);
  assert.equal(pages, 1000);
  const failing = new ToolList(() =>
    Promise.resolve({
      jsonrpc: "2.0",
      id: "forge-gate:1",
      error: { code: -32601, message: "no tools" },
    })
  );
  await failing.fetch(undefined);
  assert.equal(failing.get("a"), undefined);
});
