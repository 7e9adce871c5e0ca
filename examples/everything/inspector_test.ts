// A real client against the everything server: the MCP Inspector's CLI mode,
// run under Deno (it needs Node 22 APIs), over stdio and over HTTP.
import assert from "node:assert/strict";

const INSPECTOR = "npm:@modelcontextprotocol/inspector@2.12.0";
const MAIN = new URL("./main.ts", import.meta.url).pathname;

/** Where Deno caches packages; kept when HOME moves, so nothing is fetched again. */
async function denoDir(): Promise<string> {
  const { stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  return JSON.parse(new TextDecoder().decode(stdout)).denoDir;
}

/** Runs the Inspector CLI with its own HOME, so it writes nothing of the user's. */
async function inspect(
  target: string[],
  options: string[],
): Promise<unknown> {
  const home = await Deno.makeTempDir({ prefix: "inspector-home-" });
  try {
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", INSPECTOR, "--cli", ...options, "--", ...target],
      env: { HOME: home, DENO_DIR: await denoDir(), NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const out = new TextDecoder().decode(stdout);
    assert.equal(
      code,
      0,
      `inspector exited ${code}:\n${out}\n${new TextDecoder().decode(stderr)}`,
    );
    return JSON.parse(out);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

function toolNames(listing: unknown): string[] {
  return (listing as { tools: { name: string }[] }).tools.map((t) => t.name);
}

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
  ]);
  assert.deepEqual(result, {
    content: [{ type: "text", text: 'Received: {"name":"Ada"}' }],
  });
});

Deno.test("the MCP Inspector CLI lists and calls the everything server's tools over HTTP", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "--http", "127.0.0.1:0"],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let log = "";
    let url: string | undefined;
    while (url === undefined) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`server exited before listening:\n${log}`);
      log += value;
      url = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(log)?.[0];
    }
    const listing = await inspect([url], ["--method", "tools/list"]);
    assert.ok(toolNames(listing).includes("test_tool_with_progress"));
    const result = await inspect([url], [
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
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await reader.cancel();
  }
});
