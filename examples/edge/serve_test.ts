import assert from "node:assert/strict";
import { listeningUrl, parseArgs, workerdConfig } from "./serve.ts";

Deno.test("serve.ts reads --runtime and --port, and names what is wrong", async (t) => {
  await t.step("a runtime and a port", () => {
    assert.deepEqual(parseArgs(["--runtime", "workerd", "--port", "0"]), {
      runtime: "workerd",
      port: 0,
      bin: undefined,
      out: undefined,
    });
    assert.deepEqual(parseArgs(["--runtime=bun", "--bin=/opt/bun"]), {
      runtime: "bun",
      port: 8787,
      bin: "/opt/bun",
      out: undefined,
    });
  });
  const wrong: [string[], RegExp][] = [
    [[], /--runtime is required/],
    [
      ["--runtime", "rhino"],
      /--runtime expects one of deno, node, bun, workerd, got "rhino"/,
    ],
    [["--runtime", "deno", "--port", "70000"], /--port expects 0 to 65535/],
    [["--runtime", "deno", "--port"], /--port needs a value/],
    [["--runtime", "deno", "--tls"], /unknown option: --tls/],
    [["--runtime", "deno", "--dry-run"], /--dry-run needs --out DIR/],
  ];
  for (const [args, message] of wrong) {
    await t.step(args.join(" ") || "nothing", () => {
      assert.throws(() => parseArgs(args), { name: "TypeError", message });
    });
  }
});

Deno.test("serve.ts hears the listening line and workerd's listen event, nothing else", () => {
  assert.equal(
    listeningUrl("listening on http://127.0.0.1:8787/mcp"),
    "http://127.0.0.1:8787/mcp",
  );
  assert.equal(
    listeningUrl('{"event":"listen","socket":"http","port":40123}'),
    "http://127.0.0.1:40123/mcp",
  );
  assert.equal(
    listeningUrl("a log line mentioning listening on http://x/mcp"),
    undefined,
  );
  assert.equal(
    listeningUrl('{"event":"listen","socket":"other","port":1}'),
    undefined,
  );
  assert.equal(listeningUrl("{not json"), undefined);
});

Deno.test("serve.ts hands workerd the edge variables as quoted text bindings", () => {
  const config = workerdConfig(9000, {
    MCP_TOKEN: 'a"b\\c',
    MCP_ALLOWED_HOSTS: undefined,
  });
  assert.match(config, /address = "127\.0\.0\.1:9000"/);
  assert.match(
    config,
    /bindings = \[\(name = "MCP_TOKEN", text = "a\\"b\\\\c"\)\]/,
  );
  assert.doesNotMatch(config, /MCP_ALLOWED_HOSTS/);
});
