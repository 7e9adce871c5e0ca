import assert from "node:assert/strict";
import { requestHeaders } from "./_http_headers.ts";

const STATE = { sessionId: "s-1", protocolVersion: "2025-11-25" };
const CALL = {
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "echo", arguments: {} },
};

Deno.test("requestHeaders() gives what new Headers(base) and set() would, as a record fetch copies cheaply", async (t) => {
  await t.step("a user's header given twice is one with both values", () => {
    const headers = requestHeaders({
      ...STATE,
      base: [["X-Team", "a"], ["x-team", "b"], ["Authorization", "Bearer t"]],
    }, CALL);
    assert.deepEqual([...new Headers(headers)], [
      ["accept", "application/json, text/event-stream"],
      ["authorization", "Bearer t"],
      ["content-type", "application/json"],
      ["mcp-protocol-version", "2025-11-25"],
      ["mcp-session-id", "s-1"],
      ["x-team", "a, b"],
    ]);
  });
  await t.step(
    "the gate's own headers replace a user's of the same name",
    () => {
      const headers = requestHeaders({
        ...STATE,
        base: [["Accept", "text/html"], ["MCP-Session-Id", "other"]],
      }, CALL);
      assert.equal(headers.accept, "application/json, text/event-stream");
      assert.equal(headers["mcp-session-id"], "s-1");
    },
  );
  await t.step("a name an object already has is an ordinary header", () => {
    const headers = requestHeaders({
      ...STATE,
      base: [["toString", "x"], ["__proto__", "y"], ["constructor", "z"]],
    });
    assert.deepEqual(
      [...new Headers(headers)].filter(([name]) => !name.startsWith("mcp-")),
      [
        ["__proto__", "y"],
        ["accept", "text/event-stream"],
        ["constructor", "z"],
        ["tostring", "x"],
      ],
    );
  });
});
