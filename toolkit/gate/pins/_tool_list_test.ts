import assert from "node:assert/strict";
import type { JsonRpcMessage } from "../../jsonrpc/mod.ts";
import { MAX_LIST_PAGES, ToolList } from "./_tool_list.ts";

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

Deno.test("ToolList stops at an error answer, at a repeated cursor, and after 100 pages, and says the list did not end", async (t) => {
  const walk = async (cursorOf: (page: number) => string) => {
    let pages = 0;
    const unfinished: string[] = [];
    const tools = new ToolList(() => {
      pages++;
      return Promise.resolve(
        result({ tools: [{ name: "a" }], nextCursor: cursorOf(pages) }),
      );
    }, {
      review: (page) => Promise.resolve(page),
      unfinished: (why) => {
        unfinished.push(why);
        return Promise.resolve();
      },
    });
    await tools.fetch(undefined);
    assert.deepEqual(tools.get("a"), { probed: false });
    return { pages, unfinished };
  };
  await t.step("a cursor given twice ends the walk", async () => {
    assert.deepEqual(await walk(() => "same"), {
      pages: 2,
      unfinished: ["it gave a cursor twice"],
    });
    assert.deepEqual(await walk((page) => String(page % 3)), {
      pages: 4,
      unfinished: ["it gave a cursor twice"],
    });
  });
  await t.step(`new cursors end it after ${MAX_LIST_PAGES} pages`, async () => {
    assert.deepEqual(await walk(String), {
      pages: MAX_LIST_PAGES,
      unfinished: ["it did not end within 100 pages"],
    });
  });
  await t.step("an error answer ends it", async () => {
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
});
