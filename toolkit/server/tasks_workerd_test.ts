import assert from "node:assert/strict";
import { createServer } from "./server.ts";
import { text } from "../result/result.ts";
import { RpcError } from "../testing/testing.ts";
import { connectStateless } from "./_stateless_test_helpers.ts";
import { asWorkerd } from "../_util/_workerd_test_helpers.ts";

const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };

Deno.test("a task call on Cloudflare Workers is refused at once, not left to hang; a plain call still runs", async () => {
  const s = createServer({ name: "tasks-workerd", version: "1" });
  let ran = 0;
  s.tool({
    name: "slow",
    description: "d",
    task: true,
    handler: () => {
      ran++;
      return text("done");
    },
  });
  s.tool({ name: "plain", description: "d", handler: () => text("plain") });
  await asWorkerd(async () => {
    await using client = await connectStateless(s, { capabilities: TASKS });
    await assert.rejects(
      client.call("slow"),
      (error: unknown) => {
        assert.ok(error instanceof RpcError);
        assert.match(
          error.message,
          /^Cannot create a task for tool slow: tasks run on after the call's response, which Cloudflare Workers cancel .*call the tool without a task$/,
        );
        return true;
      },
    );
    assert.equal(ran, 0);
    assert.deepEqual(await client.call("plain"), {
      content: [{ type: "text", text: "plain" }],
      resultType: "complete",
    });
  });
});
