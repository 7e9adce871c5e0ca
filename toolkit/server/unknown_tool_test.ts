// An unknown tool's -32602 suggests the registered names near it, and a
// result that breaks the output schema is worded as argument problems are.

import assert from "node:assert/strict";
import { z } from "zod";
import { createServer } from "./server.ts";
import { json, text } from "../result/result.ts";
import { connect, RpcError } from "../testing/testing.ts";

async function rpcError(promise: Promise<unknown>): Promise<RpcError> {
  const cause = await promise.then(
    () => assert.fail("expected a JSON-RPC error"),
    (cause: unknown) => cause,
  );
  assert.ok(cause instanceof RpcError, String(cause));
  return cause;
}

Deno.test("an unknown tool's -32602 names the registered tools near it", async () => {
  const server = createServer({ name: "s", version: "1" });
  for (const name of ["save_note", "save_notes", "read_note", "Search"]) {
    server.tool({ name, description: "d", handler: () => text(name) });
  }
  server.tool({ name: "send", description: "d", handler: () => text("x") })
    .disable();
  await using client = await connect(server);
  const message = async (name: string) => {
    const refused = await rpcError(client.call(name));
    assert.equal(refused.code, -32602);
    return refused.message;
  };
  // The nearest first: one edit, then two.
  assert.equal(
    await message("save_nte"),
    'Unknown tool: "save_nte"; did you mean "save_note" or "save_notes"?',
  );
  assert.equal(
    await message("red_note"),
    'Unknown tool: "red_note"; did you mean "read_note"?',
  );
  // Another case is near, however long the name.
  assert.equal(
    await message("search"),
    'Unknown tool: "search"; did you mean "Search"?',
  );
  // Nothing near, a disabled tool, or a name far longer: no suggestion.
  assert.equal(await message("delete_all"), 'Unknown tool: "delete_all"');
  assert.equal(await message("sent"), 'Unknown tool: "sent"');
  assert.equal(
    await message("save_note".repeat(1000)).then((m) => m.includes("did you")),
    false,
  );
});

Deno.test("a result that breaks the output schema says what it got, as argument errors do", async () => {
  const server = createServer({ name: "s", version: "1" });
  server.tool({
    name: "count",
    description: "d",
    output: z.object({ count: z.number() }),
    handler: () => json({ count: "three" } as unknown as { count: number }),
  });
  await using client = await connect(server);
  const failed = await rpcError(client.call("count"));
  assert.equal(failed.code, -32603);
  assert.equal(
    failed.message,
    "Tool count failed: invalid result: structuredContent does not match the output schema: count: expected number, got string",
  );
});
