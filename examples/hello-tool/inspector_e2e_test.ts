// A real client against hello-tool: the MCP Inspector's CLI, over stdio and HTTP.
import assert from "node:assert/strict";
import { denoDir, inspect, spawnHttp, toolNames } from "../_inspector.ts";

const MAIN = new URL("./main.ts", import.meta.url).pathname;
const PERMISSIONS = [
  "--allow-read",
  "--allow-write",
  "--allow-env=HELLO_ROOT,HELLO_CONFIG",
];

Deno.test("the MCP Inspector CLI lists hello-tool's tools and calls them over stdio", async () => {
  const root = await Deno.makeTempDir({ prefix: "hello-inspector-" });
  try {
    const server = [Deno.execPath(), "run", ...PERMISSIONS, MAIN];
    // The Inspector gives the server a minimal environment: pass what it needs.
    const env = [
      "-e",
      `DENO_DIR=${await denoDir()}`,
      "-e",
      `HELLO_ROOT=${root}`,
    ];
    const listing = await inspect(server, [...env, "--method", "tools/list"]);
    assert.deepEqual(toolNames(listing).sort(), [
      "delete_file",
      "hello",
      "write_file",
    ]);
    const hello = await inspect(server, [
      ...env,
      "--method",
      "tools/call",
      "--tool-name",
      "hello",
      "--tool-arg",
      "name=Ada",
    ]);
    assert.deepEqual(hello, {
      content: [{ type: "text", text: "Hello, Ada!" }],
    });
    await inspect(server, [
      ...env,
      "--method",
      "tools/call",
      "--tool-name",
      "write_file",
      "--tool-arg",
      "path=notes/a.txt",
      "--tool-arg",
      "content=hi",
    ]);
    assert.equal(await Deno.readTextFile(`${root}/notes/a.txt`), "hi");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the MCP Inspector CLI lists hello-tool's tools and calls them over HTTP", async () => {
  await using server = await spawnHttp([
    "run",
    ...PERMISSIONS,
    "--allow-net=127.0.0.1",
    MAIN,
    "--http",
    "127.0.0.1:0",
  ]);
  const listing = await inspect([server.url], ["--method", "tools/list"]);
  assert.deepEqual(toolNames(listing).sort(), [
    "delete_file",
    "hello",
    "write_file",
  ]);
  const hello = await inspect([server.url], [
    "--method",
    "tools/call",
    "--tool-name",
    "hello",
    "--tool-arg",
    "name=Grace",
  ]);
  assert.deepEqual(hello, {
    content: [{ type: "text", text: "Hello, Grace!" }],
  });
});
