import assert from "node:assert/strict";
import { createHttpHandler } from "@forge/toolkit/http";
import { connect } from "@forge/toolkit/testing";
import { createEverythingServer } from "./server.ts";

const VERSION = "2026-07-28";
const ALL = { elicitation: {}, sampling: {}, roots: {} };

/** One 2026-07-28 request to the everything server over its HTTP handler. */
async function call(
  handler: ReturnType<typeof createHttpHandler>,
  name: string,
  extra: Record<string, unknown> = {},
  capabilities: Record<string, unknown> = ALL,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await handler(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": VERSION,
        "mcp-method": "tools/call",
        "mcp-name": name,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name,
          arguments: {},
          ...extra,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": VERSION,
            "io.modelcontextprotocol/clientCapabilities": capabilities,
          },
        },
      }),
    }),
  );
  return { status: response.status, body: await response.json() };
}

Deno.test("the everything server's multi-round tools ask by input-required results in 2026-07-28 and finish on the retry", async (t) => {
  const handler = createHttpHandler(createEverythingServer());
  await t.step("one elicitation, keyed user_name", async () => {
    const first = await call(handler, "test_input_required_result_elicitation");
    const result = first.body.result as Record<string, unknown>;
    assert.equal(result.resultType, "input_required");
    assert.deepEqual(Object.keys(result.inputRequests as object), [
      "user_name",
    ]);
    const second = await call(
      handler,
      "test_input_required_result_elicitation",
      {
        requestState: result.requestState,
        inputResponses: {
          user_name: { action: "accept", content: { name: "Ada" } },
        },
      },
    );
    assert.deepEqual(second.body.result, {
      content: [{ type: "text", text: "Hello, Ada!" }],
      resultType: "complete",
    });
  });
  await t.step(
    "two rounds, the first answer carried by requestState",
    async () => {
      const first = await call(
        handler,
        "test_input_required_result_multi_round",
      );
      const one = first.body.result as Record<string, unknown>;
      assert.deepEqual(Object.keys(one.inputRequests as object), ["step1"]);
      const second = await call(
        handler,
        "test_input_required_result_multi_round",
        {
          requestState: one.requestState,
          inputResponses: {
            step1: { action: "accept", content: { name: "Ada" } },
          },
        },
      );
      const two = second.body.result as Record<string, unknown>;
      assert.deepEqual(Object.keys(two.inputRequests as object), ["step2"]);
      const third = await call(
        handler,
        "test_input_required_result_multi_round",
        {
          requestState: two.requestState,
          inputResponses: {
            step2: { action: "accept", content: { color: "teal" } },
          },
        },
      );
      assert.deepEqual(
        (third.body.result as { content: unknown }).content,
        [{ type: "text", text: "Ada likes teal" }],
      );
    },
  );
  await t.step("all three kinds at once", async () => {
    const first = await call(
      handler,
      "test_input_required_result_multiple_inputs",
    );
    const result = first.body.result as Record<string, unknown>;
    assert.deepEqual(
      Object.keys(result.inputRequests as object).sort(),
      ["greeting", "roots", "user_name"],
    );
  });
  await t.step("only the capabilities the request declared", async () => {
    const first = await call(
      handler,
      "test_input_required_result_capabilities",
      {},
      { sampling: {} },
    );
    const requests = (first.body.result as Record<string, unknown>)
      .inputRequests as Record<string, { method: string }>;
    assert.deepEqual(Object.values(requests).map((r) => r.method), [
      "sampling/createMessage",
    ]);
  });
  await t.step("an undeclared capability is -32021 with HTTP 400", async () => {
    const answer = await call(handler, "test_missing_capability", {}, {});
    assert.equal(answer.status, 400);
    assert.deepEqual(
      (answer.body.error as { data: unknown }).data,
      { requiredCapabilities: { sampling: {} } },
    );
  });
  await handler.close();
});

Deno.test("the same multi-round tool asks a 2025-11-25 client by a real elicitation request", async () => {
  const asked: string[] = [];
  await using client = await connect(createEverythingServer(), {
    capabilities: { elicitation: {} },
    onRequest: (method) => {
      asked.push(method);
      return { action: "accept", content: { name: "Grace" } };
    },
  });
  const result = await client.call("test_input_required_result_elicitation");
  assert.deepEqual(result.content, [{ type: "text", text: "Hello, Grace!" }]);
  assert.deepEqual(asked, ["elicitation/create"]);
});

Deno.test("a prompt asks for input too: an input-required prompts/get in 2026-07-28, an elicitation request in a 2025 session", async () => {
  const handler = createHttpHandler(createEverythingServer());
  const get = async (extra: Record<string, unknown>) => {
    const response = await handler(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": VERSION,
          "mcp-method": "prompts/get",
          "mcp-name": "test_input_required_result_prompt",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "prompts/get",
          params: {
            name: "test_input_required_result_prompt",
            ...extra,
            _meta: {
              "io.modelcontextprotocol/protocolVersion": VERSION,
              "io.modelcontextprotocol/clientCapabilities": ALL,
            },
          },
        }),
      }),
    );
    return (await response.json()).result as Record<string, unknown>;
  };
  const first = await get({});
  assert.equal(first.resultType, "input_required");
  assert.deepEqual(Object.keys(first.inputRequests as object), [
    "user_context",
  ]);
  const second = await get({
    requestState: first.requestState,
    inputResponses: {
      user_context: { action: "accept", content: { context: "tests" } },
    },
  });
  assert.equal(second.resultType, "complete");
  assert.deepEqual(second.messages, [{
    role: "user",
    content: { type: "text", text: "Use this context: tests" },
  }]);
  await handler.close();

  await using client = await connect(createEverythingServer(), {
    capabilities: { elicitation: {} },
    onRequest: () => ({ action: "accept", content: { context: "a session" } }),
  });
  const prompt = await client.request("prompts/get", {
    name: "test_input_required_result_prompt",
  }) as { messages: unknown };
  assert.deepEqual(prompt.messages, [{
    role: "user",
    content: { type: "text", text: "Use this context: a session" },
  }]);
});
