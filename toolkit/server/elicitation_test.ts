import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  ElicitRequestSchema,
  UrlElicitationRequiredError,
} from "@modelcontextprotocol/sdk/types.js";
import { createServer, text, ToolError } from "../../mod.ts";
import type { ToolServer, UrlElicitationParams } from "./mod.ts";
import { connect, RpcError, type TestClient } from "../testing/testing.ts";
import { until } from "../testing/_until.ts";

const SIGN_IN: UrlElicitationParams = {
  mode: "url",
  message: "Sign in to connect your CRM",
  url: "https://crm.example.com/connect?state=e1",
  elicitationId: "e1",
};

const FORM = {
  message: "Your name?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } } },
};

/** Tools that elicit by URL, by form, or require URL elicitation; errors become the tool's text. */
function elicitingServer(): ToolServer {
  const server = createServer({ name: "s", version: "1" });
  const relay = (run: () => Promise<unknown>) => async () => {
    try {
      return text(JSON.stringify(await run()));
    } catch (cause) {
      throw new ToolError((cause as Error).message);
    }
  };
  server.tool({
    name: "url",
    description: "Elicits by URL",
    input: { type: "object", additionalProperties: true },
    handler: (args, ctx) =>
      relay(() =>
        ctx.elicit({ ...SIGN_IN, ...args } as UrlElicitationParams)
      )(),
  });
  server.tool({
    name: "form",
    description: "Elicits a form",
    handler: (_args, ctx) => relay(() => ctx.elicit(FORM))(),
  });
  server.tool({
    name: "needs_sign_in",
    description: "Needs the user to sign in first",
    handler: (_args, ctx) => {
      throw ctx.urlElicitationRequired(SIGN_IN);
    },
  });
  return server;
}

function textOf(result: { content: unknown }): string {
  return (result.content as { text: string }[])[0].text;
}

async function notified(client: TestClient, method: string) {
  const found = () => client.notifications.filter((n) => n.method === method);
  await until(method, () => found().length > 0, { intervalMs: 1 });
  return found();
}

Deno.test("ctx.elicit() in URL mode sends the URL, and completeElicitation() tells the client", async () => {
  const server = elicitingServer();
  const asked: unknown[] = [];
  await using client = await connect(server, {
    capabilities: { elicitation: { url: {} } },
    onRequest: (method, params) => {
      asked.push({ method, params });
      return { action: "accept" };
    },
  });
  assert.deepEqual(JSON.parse(textOf(await client.call("url"))), {
    action: "accept",
  });
  assert.deepEqual(asked, [{ method: "elicitation/create", params: SIGN_IN }]);
  assert.equal(await server.completeElicitation("e1"), true);
  assert.deepEqual(
    await notified(client, "notifications/elicitation/complete"),
    [{
      method: "notifications/elicitation/complete",
      params: { elicitationId: "e1" },
    }],
  );
  // Completed once: a second completion, or an unknown id, tells no one.
  assert.equal(await server.completeElicitation("e1"), false);
  assert.equal(await server.completeElicitation("never-sent"), false);
});

Deno.test("a declined URL elicitation, or one whose session closed, has nothing to complete", async () => {
  const server = elicitingServer();
  const client = await connect(server, {
    capabilities: { elicitation: { url: {} } },
    onRequest: () => ({ action: "decline" }),
  });
  assert.deepEqual(JSON.parse(textOf(await client.call("url"))), {
    action: "decline",
  });
  assert.equal(await server.completeElicitation("e1"), false);
  const accepting = await connect(server, {
    capabilities: { elicitation: { url: {} } },
    onRequest: () => ({ action: "accept" }),
  });
  await accepting.call("url", { elicitationId: "e2" });
  await accepting.close();
  await client.close();
  assert.equal(await server.completeElicitation("e2"), false);
});

Deno.test("each elicitation mode needs the client to have declared it", async (t) => {
  const cases: [string, Record<string, unknown>, string, string][] = [
    [
      "elicitation: {} allows forms only",
      {},
      "url",
      "Cannot elicit by URL: the client did not declare elicitation.url",
    ],
    [
      "elicitation: { form: {} } allows forms only",
      { form: {} },
      "url",
      "Cannot elicit by URL: the client did not declare elicitation.url",
    ],
    [
      "elicitation: { url: {} } allows URLs only",
      { url: {} },
      "form",
      "Cannot elicit a form: the client declared elicitation.url only",
    ],
  ];
  for (const [name, elicitation, tool, message] of cases) {
    await t.step(name, async () => {
      let asked = 0;
      await using client = await connect(elicitingServer(), {
        capabilities: { elicitation },
        onRequest: () => (asked++, { action: "accept", content: {} }),
      });
      assert.deepEqual(await client.call(tool), {
        content: [{ type: "text", text: message }],
        isError: true,
      });
      assert.equal(asked, 0);
    });
  }
  for (const elicitation of [{}, { form: {} }, { form: {}, url: {} }]) {
    await t.step(`a form with ${JSON.stringify(elicitation)}`, async () => {
      await using client = await connect(elicitingServer(), {
        capabilities: { elicitation },
        onRequest: () => ({ action: "accept", content: { name: "Ada" } }),
      });
      assert.deepEqual(JSON.parse(textOf(await client.call("form"))), {
        action: "accept",
        content: { name: "Ada" },
      });
    });
  }
});

Deno.test("malformed URL-mode params are refused with a sentence naming the field", async () => {
  await using client = await connect(elicitingServer(), {
    capabilities: { elicitation: { url: {} } },
    onRequest: () => ({ action: "accept" }),
  });
  const cases: [Record<string, unknown>, string][] = [
    [
      { url: "javascript:alert(1)" },
      'Cannot elicit by URL: url: expected an absolute https: or http: URL, got "javascript:alert(1)"',
    ],
    [
      { url: "/relative" },
      'Cannot elicit by URL: url: expected an absolute https: or http: URL, got "/relative"',
    ],
    [
      { elicitationId: "" },
      'Cannot elicit by URL: elicitationId: expected a non-empty string, got ""',
    ],
    [
      { message: 7 },
      "Cannot elicit by URL: message: expected a string, got number",
    ],
  ];
  for (const [args, message] of cases) {
    assert.deepEqual(await client.call("url", args), {
      content: [{ type: "text", text: message }],
      isError: true,
    });
  }
});

Deno.test("ctx.urlElicitationRequired() answers -32042 with the elicitations in data", async () => {
  const server = elicitingServer();
  await using client = await connect(server, {
    capabilities: { elicitation: { url: {} } },
  });
  const error = await client.call("needs_sign_in").then(
    () => assert.fail("the call succeeded"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof RpcError);
  assert.equal(error.code, -32042);
  assert.equal(
    error.message,
    "URL elicitation required: Sign in to connect your CRM",
  );
  assert.deepEqual(error.data, { elicitations: [SIGN_IN] });
  assert.equal(await server.completeElicitation("e1"), true);
  assert.equal(
    (await notified(client, "notifications/elicitation/complete")).length,
    1,
  );
});

Deno.test("ctx.urlElicitationRequired() without elicitation.url is the server's error", async () => {
  await using client = await connect(elicitingServer(), {
    capabilities: { elicitation: {} },
  });
  await assert.rejects(client.call("needs_sign_in"), {
    name: "RpcError",
    code: -32603,
    message:
      "Tool needs_sign_in failed: Cannot require URL elicitation: the client did not declare elicitation.url",
  });
});

Deno.test("the SDK client reads -32042 and URL-mode requests as the 2025-11-25 schema has them", async () => {
  const server = elicitingServer();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client(
    { name: "sdk", version: "1" },
    { capabilities: { elicitation: { url: {} } } },
  );
  const requests: unknown[] = [];
  // The SDK parses the request with its URL-mode schema before this runs.
  client.setRequestHandler(
    ElicitRequestSchema,
    (request: { params: unknown }) => {
      requests.push(request.params);
      return { action: "accept" };
    },
  );
  await client.connect(clientSide);
  try {
    const error = await client.callTool({ name: "needs_sign_in" }).then(
      () => assert.fail("the call succeeded"),
      (e: unknown) => e,
    );
    assert.ok(error instanceof UrlElicitationRequiredError);
    assert.deepEqual(error.elicitations, [SIGN_IN]);
    await client.callTool({ name: "url", arguments: {} });
    assert.deepEqual(requests, [SIGN_IN]);
  } finally {
    await client.close();
  }
});

Deno.test("completeElicitation() refuses an id that is not a string", async () => {
  await assert.rejects(
    createServer({ name: "s", version: "1" }).completeElicitation(
      7 as unknown as string,
    ),
    {
      name: "TypeError",
      message:
        "Cannot complete elicitation: expected an elicitationId string, got number",
    },
  );
});
