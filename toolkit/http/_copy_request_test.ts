import assert from "node:assert/strict";
import { copyRequest, withoutAuthorization } from "./_copy_request.ts";

Deno.test("copyRequest() keeps the url, method, headers and body, and changes only what it is given", async (t) => {
  const original = new Request("http://127.0.0.1/mcp?x=1", {
    method: "POST",
    headers: { "content-type": "application/json", "x-a": "1" },
    body: '{"a":1}',
  });
  await t.step("an unchanged copy", async () => {
    const copy = copyRequest(original.clone());
    assert.equal(copy.url, "http://127.0.0.1/mcp?x=1");
    assert.equal(copy.method, "POST");
    assert.equal(copy.headers.get("x-a"), "1");
    assert.equal(await copy.text(), '{"a":1}');
  });
  await t.step("a new body", async () => {
    const copy = copyRequest(original.clone(), { body: "other" });
    assert.equal(await copy.text(), "other");
    assert.equal(copy.headers.get("content-type"), "application/json");
  });
  await t.step("no Authorization header", () => {
    const copy = withoutAuthorization(
      new Request("http://127.0.0.1/mcp", {
        headers: { authorization: "Bearer secret", "x-b": "2" },
      }),
    );
    assert.equal(copy.headers.has("authorization"), false);
    assert.equal(copy.headers.get("x-b"), "2");
  });
});

Deno.test("a request through bearer auth and the body limit prints no Deno.serve warning", async () => {
  // Deno.serve warns on stderr, once per process, when a handler reads
  // request.signal, which new Request(request, init) does.
  const script = `
    import { createServer, text } from "${
    new URL("../../mod.ts", import.meta.url).href
  }";
    import { serveHttp } from "${new URL("./mod.ts", import.meta.url).href}";
    const server = createServer({ name: "quiet", version: "1" });
    server.tool({ name: "echo", description: "Echoes", handler: () => text("hi") });
    const http = serveHttp(server, { port: 0, auth: { token: "t0ken" } });
    const response = await fetch(http.url, {
      method: "POST",
      headers: {
        authorization: "Bearer t0ken",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {
        protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } } }),
    });
    console.log(response.status, (await response.text()).includes('"protocolVersion"'));
    await http.shutdown();
  `;
  const dir = await Deno.makeTempDir({ prefix: "quiet-http-" });
  try {
    const file = `${dir}/serve.ts`;
    await Deno.writeTextFile(file, script);
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--config",
        new URL("../../deno.json", import.meta.url).pathname,
        file,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const err = new TextDecoder().decode(stderr);
    assert.equal(code, 0, err);
    assert.equal(new TextDecoder().decode(stdout).trim(), "200 true");
    assert.match(
      err,
      /^MCP server listening on http:\/\/127\.0\.0\.1:\d+\/mcp\n$/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
