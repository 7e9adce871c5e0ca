import assert from "node:assert/strict";
import { connect } from "@forge/toolkit/testing";
import { buildServer } from "./main.ts";

Deno.test("hello greets by name with the configured greeting", async () => {
  await using client = await connect(buildServer({ greeting: "Hi" }));
  const result = await client.call("hello", { name: "Ada" });
  assert.deepEqual(result, { content: [{ type: "text", text: "Hi, Ada!" }] });
});

Deno.test("hello tells the model which argument is wrong", async () => {
  await using client = await connect(buildServer({ greeting: "Hi" }));
  const result = await client.call("hello", { name: "" });
  assert.equal(result.isError, true);
  assert.match(JSON.stringify(result.content), /name/);
});

Deno.test("hello is listed as read-only", async () => {
  await using client = await connect(buildServer({ greeting: "Hi" }));
  const [tool] = await client.listTools();
  assert.equal(tool.name, "hello");
  assert.equal(tool.annotations?.readOnlyHint, true);
});
