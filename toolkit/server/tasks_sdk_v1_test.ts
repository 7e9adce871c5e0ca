// Task tools seen by the official SDK v1 client, which speaks 2025-11-25:
// tasks are a 2026-07-28 extension, so such a client is not offered them
// and every call of a task tool runs to its end and answers inline.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { createServer } from "./server.ts";
import { error, text } from "../result/result.ts";

function taskServer() {
  const server = createServer({ name: "tasks", version: "1" });
  server.tool({
    name: "report",
    description: "Builds a report",
    task: true,
    handler: () => text("report ready"),
  });
  server.tool({
    name: "export",
    description: "Exports everything",
    task: "required",
    handler: () => text("exported"),
  });
  server.tool({
    name: "crash",
    description: "Fails",
    task: "required",
    handler: () => Promise.reject(new Error("worker died")),
  });
  server.tool({
    name: "refuse",
    description: "Refuses",
    task: true,
    handler: () => error("no such report"),
  });
  return server;
}

async function sdkClient(
  capabilities: Record<string, unknown> = {},
): Promise<Client & AsyncDisposable> {
  const server = taskServer();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "sdk-v1", version: "1" }, {
    capabilities,
  });
  await client.connect(clientSide);
  return Object.assign(client, {
    [Symbol.asyncDispose]: async () => {
      await client.close();
      await server.close();
    },
  });
}

Deno.test("the SDK v1 client is offered no tasks and gets every task tool's result or error inline", async () => {
  await using client = await sdkClient();
  const capabilities = client.getServerCapabilities() ?? {};
  assert.equal(capabilities.tasks, undefined);
  assert.equal(capabilities.extensions, undefined);
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((tool: { execution?: unknown }) => tool.execution),
    [
      undefined,
      undefined,
      undefined,
      undefined,
    ],
  );
  assert.deepEqual(
    await client.callTool({ name: "report", arguments: {} }),
    { content: [{ type: "text", text: "report ready" }] },
  );
  assert.deepEqual(
    await client.callTool({ name: "export", arguments: {} }),
    { content: [{ type: "text", text: "exported" }] },
  );
  assert.deepEqual(
    await client.callTool({ name: "refuse", arguments: {} }),
    { content: [{ type: "text", text: "no such report" }], isError: true },
  );
  const failed = await client.callTool({ name: "crash", arguments: {} }).then(
    () => assert.fail("expected the tool's error"),
    (cause: unknown) => cause,
  );
  assert.ok(failed instanceof McpError, String(failed));
  assert.equal(failed.code, -32603);
  assert.match(failed.message, /Tool crash failed: worker died/);
});

Deno.test("the SDK v1 client declaring the tasks extension still gets plain results", async () => {
  await using client = await sdkClient({
    extensions: { "io.modelcontextprotocol/tasks": {} },
  });
  await client.listTools();
  assert.deepEqual(
    await client.callTool({ name: "export", arguments: {} }),
    { content: [{ type: "text", text: "exported" }] },
  );
});
