// A real client against the everything server: the MCP Inspector's CLI mode,
// run under Deno (it needs Node 22 APIs), over stdio and over HTTP.
import assert from "node:assert/strict";
import { denoDir, inspect, spawnHttp, toolNames } from "../_inspector.ts";

const MAIN = new URL("./main.ts", import.meta.url).pathname;

Deno.test("the MCP Inspector CLI lists and calls the everything server's tools over stdio", async () => {
  const server = [Deno.execPath(), "run", "-A", MAIN];
  // The Inspector gives the server a minimal environment; DENO_DIR keeps its cache.
  const env = ["-e", `DENO_DIR=${await denoDir()}`];
  const listing = await inspect(server, [...env, "--method", "tools/list"]);
  assert.ok(toolNames(listing).includes("test_simple_text"));
  assert.ok(toolNames(listing).includes("json_schema_2020_12_tool"));
  const result = await inspect(server, [
    ...env,
    "--method",
    "tools/call",
    "--tool-name",
    "json_schema_2020_12_tool",
    "--tool-arg",
    "name=Ada",
    "email=ada@example.org",
  ]);
  // The schema's else branch (no contactMethod) requires an email.
  assert.deepEqual(result, {
    content: [{
      type: "text",
      text: 'Received: {"name":"Ada","email":"ada@example.org"}',
    }],
  });
});

Deno.test("the MCP Inspector CLI lists and calls the everything server's tools over HTTP", async () => {
  await using server = await spawnHttp([
    "run",
    "-A",
    MAIN,
    "--http",
    "127.0.0.1:0",
  ]);
  const listing = await inspect([server.url], ["--method", "tools/list"]);
  assert.ok(toolNames(listing).includes("test_tool_with_progress"));
  const result = await inspect([server.url], [
    "--method",
    "tools/call",
    "--tool-name",
    "test_simple_text",
  ]);
  assert.deepEqual(result, {
    content: [{
      type: "text",
      text: "This is a simple text response for testing.",
    }],
  });
});
