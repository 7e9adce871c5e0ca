import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { serveHttp } from "@forge/toolkit/http";
import {
  createEverythingServer,
  PIXEL_PNG_BASE64,
  toneWav,
  WATCHED_URI,
} from "./server.ts";

type Block = Record<string, unknown>;

/** The everything server over real HTTP, and an SDK client that can sample and elicit. */
async function open() {
  const http = serveHttp(createEverythingServer(), {
    port: 0,
    handleSignals: false,
    onListen: () => {},
  });
  const client = new Client({ name: "everything-test", version: "1.0.0" }, {
    capabilities: { sampling: {}, elicitation: {} },
  });
  const transport = new StreamableHTTPClientTransport(http.url);
  await client.connect(transport);
  return {
    client,
    async [Symbol.asyncDispose]() {
      await client.close();
      await http.shutdown();
    },
  };
}

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ content: Block[]; isError?: boolean }> {
  return await client.callTool({ name, arguments: args }) as {
    content: Block[];
    isError?: boolean;
  };
}

Deno.test("the everything server lists every tool, resource and prompt the conformance suite calls", async () => {
  await using env = await open();
  const tools = (await env.client.listTools()).tools.map((t: Block) => t.name);
  for (
    const name of [
      "test_simple_text",
      "test_image_content",
      "test_audio_content",
      "test_embedded_resource",
      "test_multiple_content_types",
      "test_tool_with_logging",
      "test_tool_with_progress",
      "test_error_handling",
      "test_sampling",
      "test_elicitation",
      "test_elicitation_sep1034_defaults",
      "test_elicitation_sep1330_enums",
      "test_reconnection",
      "json_schema_2020_12_tool",
      // The 2026-07-28 scenarios' (revision_2026.ts).
      "test_missing_capability",
      "test_streaming_elicitation",
      "test_logging_tool",
      "test_trigger_tool_change",
      "test_trigger_prompt_change",
      "test_mirrored_header",
      "test_input_required_result_elicitation",
      "test_input_required_result_sampling",
      "test_input_required_result_list_roots",
      "test_input_required_result_request_state",
      "test_input_required_result_multiple_inputs",
      "test_input_required_result_multi_round",
      "test_input_required_result_tampered_state",
      "test_input_required_result_capabilities",
    ]
  ) assert.ok(tools.includes(name), `missing tool ${name}`);
  const resources = (await env.client.listResources()).resources.map((
    r: Block,
  ) => r.uri);
  assert.deepEqual(resources.sort(), [
    // The skills' SKILL.md files (examples/everything/skills.ts).
    "skill://acme/billing/refunds/SKILL.md",
    "skill://pdf-processing/SKILL.md",
    "test://static-binary",
    "test://static-text",
    WATCHED_URI,
  ]);
  const templates = (await env.client.listResourceTemplates())
    .resourceTemplates.map((t: Block) => t.uriTemplate);
  assert.deepEqual(templates, ["test://template/{id}/data", "skill://{+path}"]);
  const prompts = (await env.client.listPrompts()).prompts.map((p: Block) =>
    p.name
  );
  assert.deepEqual(prompts.sort(), [
    "test_input_required_result_prompt",
    "test_prompt_with_arguments",
    "test_prompt_with_embedded_resource",
    "test_prompt_with_image",
    "test_simple_prompt",
  ]);
});

Deno.test("the content tools answer text, image, audio, embedded resource and mixed content", async (t) => {
  await using env = await open();
  await t.step("text", async () => {
    assert.deepEqual((await call(env.client, "test_simple_text")).content, [
      { type: "text", text: "This is a simple text response for testing." },
    ]);
  });
  await t.step("a PNG image that decodes to a PNG signature", async () => {
    const [block] = (await call(env.client, "test_image_content")).content;
    assert.equal(block.mimeType, "image/png");
    const bytes = Uint8Array.from(
      atob(block.data as string),
      (c) => c.charCodeAt(0),
    );
    assert.deepEqual([...bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  });
  await t.step("a WAV clip whose header matches its length", async () => {
    const [block] = (await call(env.client, "test_audio_content")).content;
    assert.equal(block.mimeType, "audio/wav");
    const bytes = Uint8Array.from(
      atob(block.data as string),
      (c) => c.charCodeAt(0),
    );
    assert.deepEqual(bytes, toneWav());
    const view = new DataView(bytes.buffer);
    assert.equal(new TextDecoder().decode(bytes.subarray(0, 4)), "RIFF");
    assert.equal(view.getUint32(4, true), bytes.length - 8);
    assert.equal(view.getUint32(40, true), bytes.length - 44);
  });
  await t.step("an embedded resource", async () => {
    assert.deepEqual(
      (await call(env.client, "test_embedded_resource")).content,
      [{
        type: "resource",
        resource: {
          uri: "test://embedded-resource",
          mimeType: "text/plain",
          text: "This is an embedded resource content.",
        },
      }],
    );
  });
  await t.step("text, image and resource together", async () => {
    const content = (await call(env.client, "test_multiple_content_types"))
      .content;
    assert.deepEqual(content.map((b) => b.type), ["text", "image", "resource"]);
    assert.deepEqual(
      JSON.parse((content[2].resource as Block).text as string),
      { test: "data", value: 123 },
    );
  });
  await t.step("a domain error", async () => {
    const result = await call(env.client, "test_error_handling");
    assert.equal(result.isError, true);
    assert.equal(
      result.content[0].text,
      "This tool intentionally returns an error for testing",
    );
  });
});

Deno.test("the streaming tools deliver logs and increasing progress over the call's SSE stream", async () => {
  await using env = await open();
  const logs: string[] = [];
  env.client.setNotificationHandler(
    LoggingMessageNotificationSchema,
    (n: { params: { data: unknown } }) => {
      logs.push(String(n.params.data));
    },
  );
  await env.client.setLoggingLevel("info");
  await call(env.client, "test_tool_with_logging");
  assert.deepEqual(logs, [
    "Tool execution started",
    "Tool processing data",
    "Tool execution completed",
  ]);

  const progress: number[] = [];
  await env.client.callTool(
    { name: "test_tool_with_progress", arguments: {} },
    undefined,
    { onprogress: (p: { progress: number }) => progress.push(p.progress) },
  );
  assert.deepEqual(progress, [0, 50, 100]);
});

Deno.test("sampling and elicitation reach the client and come back into the result", async (t) => {
  await using env = await open();
  const asked: Block[] = [];
  env.client.setRequestHandler(
    CreateMessageRequestSchema,
    (request: { params: Block }) => {
      asked.push(request.params);
      return {
        role: "assistant",
        content: { type: "text", text: "forty-two" },
        model: "test-model",
      };
    },
  );
  env.client.setRequestHandler(
    ElicitRequestSchema,
    (request: { params: Block }) => {
      asked.push(request.params);
      return { action: "accept", content: { username: "ada" } };
    },
  );
  await t.step("sampling", async () => {
    const result = await call(env.client, "test_sampling", {
      prompt: "What is six times seven?",
    });
    assert.deepEqual(result.content, [{
      type: "text",
      text: "LLM response: forty-two",
    }]);
    assert.deepEqual(asked.at(-1)!.messages, [{
      role: "user",
      content: { type: "text", text: "What is six times seven?" },
    }]);
    assert.equal(asked.at(-1)!.maxTokens, 100);
  });
  await t.step("elicitation", async () => {
    const result = await call(env.client, "test_elicitation", {
      message: "Who are you?",
    });
    assert.equal(
      result.content[0].text,
      'User response: action=accept, content={"username":"ada"}',
    );
    assert.equal(asked.at(-1)!.message, "Who are you?");
  });
  await t.step(
    "elicitation with a default for each primitive type",
    async () => {
      await call(env.client, "test_elicitation_sep1034_defaults");
      const properties = (asked.at(-1)!.requestedSchema as Block)
        .properties as Record<string, Block>;
      assert.deepEqual(
        Object.fromEntries(
          Object.entries(properties).map(([k, v]) => [k, [v.type, v.default]]),
        ),
        {
          name: ["string", "John Doe"],
          age: ["integer", 30],
          score: ["number", 95.5],
          status: ["string", "active"],
          verified: ["boolean", true],
        },
      );
    },
  );
  await t.step("elicitation with the five enum forms", async () => {
    await call(env.client, "test_elicitation_sep1330_enums");
    const properties = (asked.at(-1)!.requestedSchema as Block)
      .properties as Record<string, Block>;
    assert.deepEqual(Object.keys(properties), [
      "untitledSingle",
      "titledSingle",
      "legacyEnum",
      "untitledMulti",
      "titledMulti",
    ]);
  });
});

Deno.test("the 2020-12 tool keeps $schema, $defs, $anchor, composition, conditionals and additionalProperties, and enforces them", async () => {
  await using env = await open();
  const tool = (await env.client.listTools()).tools.find((t: Block) =>
    t.name === "json_schema_2020_12_tool"
  );
  const schema = tool.inputSchema as Block;
  assert.equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
  assert.ok((schema.$defs as Block).address);
  assert.equal(schema.additionalProperties, false);
  assert.equal(
    ((schema.$defs as Block).address as Block).$anchor,
    "addressDef",
  );
  assert.ok(Array.isArray(schema.allOf));
  assert.deepEqual(schema.then, { required: ["phone"] });
  assert.deepEqual(schema.else, { required: ["email"] });
  const refused = await call(env.client, "json_schema_2020_12_tool", {
    name: "Ada",
    email: "ada@example.org",
    extra: 1,
  });
  assert.equal(refused.isError, true);
  // allOf/anyOf: a phone or an email is required.
  const unreachable = await call(env.client, "json_schema_2020_12_tool", {
    name: "Ada",
  });
  assert.equal(unreachable.isError, true);
  const accepted = await call(env.client, "json_schema_2020_12_tool", {
    name: "Ada",
    contactMethod: "phone",
    phone: "+44 20 7946 0000",
  });
  assert.equal(accepted.isError, undefined);
});

Deno.test("resources read, templates substitute, and subscribers hear about updates", async () => {
  await using env = await open();
  const text = await env.client.readResource({ uri: "test://static-text" });
  assert.deepEqual(text.contents, [{
    uri: "test://static-text",
    mimeType: "text/plain",
    text: "This is the content of the static text resource.",
  }]);
  const binary = await env.client.readResource({ uri: "test://static-binary" });
  assert.equal(binary.contents[0].blob, PIXEL_PNG_BASE64);
  const templated = await env.client.readResource({
    uri: "test://template/123/data",
  });
  assert.deepEqual(JSON.parse(templated.contents[0].text), {
    id: "123",
    templateTest: true,
    data: "Data for ID: 123",
  });

  const updates: string[] = [];
  let heard!: () => void;
  const heardOne = new Promise<void>((resolve) => heard = resolve);
  env.client.setNotificationHandler(
    ResourceUpdatedNotificationSchema,
    (n: { params: { uri: string } }) => {
      updates.push(n.params.uri);
      heard();
    },
  );
  await env.client.subscribeResource({ uri: WATCHED_URI });
  await call(env.client, "update_watched_resource");
  await heardOne;
  assert.deepEqual(updates, [WATCHED_URI]);
  const watched = await env.client.readResource({ uri: WATCHED_URI });
  assert.equal(JSON.parse(watched.contents[0].text).version, 2);
  await env.client.unsubscribeResource({ uri: WATCHED_URI });
});

Deno.test("prompts render their arguments and argument completion suggests values", async () => {
  await using env = await open();
  const simple = await env.client.getPrompt({ name: "test_simple_prompt" });
  assert.equal(
    simple.messages[0].content.text,
    "This is a simple prompt for testing.",
  );
  const withArgs = await env.client.getPrompt({
    name: "test_prompt_with_arguments",
    arguments: { arg1: "hello", arg2: "world" },
  });
  assert.equal(
    withArgs.messages[0].content.text,
    "Prompt with arguments: arg1='hello', arg2='world'",
  );
  const embedded = await env.client.getPrompt({
    name: "test_prompt_with_embedded_resource",
    arguments: { resourceUri: "test://example-resource" },
  });
  assert.equal(
    embedded.messages[0].content.resource.uri,
    "test://example-resource",
  );
  const withImage = await env.client.getPrompt({
    name: "test_prompt_with_image",
  });
  assert.equal(withImage.messages[0].content.mimeType, "image/png");

  const completion = await env.client.complete({
    ref: { type: "ref/prompt", name: "test_prompt_with_arguments" },
    argument: { name: "arg1", value: "par" },
  });
  assert.deepEqual(completion.completion.values, ["paris", "park", "party"]);
  const ids = await env.client.complete({
    ref: { type: "ref/resource", uri: "test://template/{id}/data" },
    argument: { name: "id", value: "4" },
  });
  assert.deepEqual(ids.completion.values, ["42"]);
});
