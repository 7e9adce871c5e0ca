import assert from "node:assert/strict";
import { z } from "zod";
import { createServer } from "./server.ts";
import type { CallLayer } from "./layer.ts";
import { error, text, ToolError } from "../result/result.ts";
import { ProtocolError } from "../jsonrpc/errors.ts";
import { registerPatternTool } from "../probe.ts";
import { META_PERMISSION_PATTERNS } from "../patterns/probe_meta.ts";
import { connect, RpcError } from "../testing/testing.ts";

function echoServer() {
  const ran: string[] = [];
  const server = createServer({ name: "layers", version: "1" });
  server.tool({
    name: "echo",
    description: "Echoes its text",
    input: z.object({ text: z.string() }),
    handler: ({ text: value }) => {
      ran.push(value);
      return text(value);
    },
  });
  return { server, ran };
}

Deno.test("use() runs layers in the order added, around the tool, with the raw arguments and the handler's context", async () => {
  const { server, ran } = echoServer();
  const seen: string[] = [];
  server.use(async (call, next) => {
    seen.push(`outer in ${call.name} ${JSON.stringify(call.arguments)}`);
    const result = await next();
    seen.push("outer out");
    return result;
  });
  server.use((call, next) => {
    seen.push(`inner in ${call.ctx.toolName} ${call.tool.description}`);
    const result = next();
    seen.push("inner out");
    return result;
  });
  await using client = await connect(server);
  const result = await client.call("echo", { text: "hi" });
  assert.deepEqual(result, { content: [{ type: "text", text: "hi" }] });
  assert.deepEqual(ran, ["hi"]);
  assert.deepEqual(seen, [
    'outer in echo {"text":"hi"}',
    "inner in echo Echoes its text",
    "inner out",
    "outer out",
  ]);
});

Deno.test("use() lets a layer answer by itself or change the tool's result", async (t) => {
  await t.step(
    "a layer that does not call next() answers, and the tool does not run",
    async () => {
      const { server, ran } = echoServer();
      server.use((call, next) =>
        call.ctx.meta.tenant === undefined ? error("missing tenant") : next()
      );
      await using client = await connect(server);
      const refused = await client.call("echo", { text: "x" });
      assert.equal(refused.isError, true);
      assert.deepEqual(ran, []);
      const allowed = await client.call("echo", { text: "y" }, {
        meta: { tenant: "a" },
      });
      assert.equal(allowed.isError, undefined);
      assert.deepEqual(ran, ["y"]);
    },
  );

  await t.step(
    "a layer sees invalid arguments' isError answer from next()",
    async () => {
      const { server, ran } = echoServer();
      const answers: boolean[] = [];
      server.use(async (_call, next) => {
        const result = await next();
        answers.push(result.isError === true);
        return { ...result, _meta: { layered: true } };
      });
      await using client = await connect(server);
      const result = await client.call("echo", { text: 3 });
      assert.equal(result.isError, true);
      assert.deepEqual(result._meta, { layered: true });
      assert.deepEqual(answers, [true]);
      assert.deepEqual(ran, []);
    },
  );
});

Deno.test("what a layer throws is answered like what a handler throws", async (t) => {
  const cases: [string, () => never, (e: unknown) => boolean][] = [
    ["a ToolError is isError", () => {
      throw new ToolError("quota exceeded");
    }, () => false],
    ["a ProtocolError keeps its code", () => {
      throw new ProtocolError(-32042, "needs approval");
    }, (e) => e instanceof RpcError && e.code === -32042],
    ["anything else is -32603", () => {
      throw new Error("layer bug");
    }, (e) => e instanceof RpcError && e.code === -32603],
  ];
  for (const [name, fail, isExpected] of cases) {
    await t.step(name, async () => {
      const { server, ran } = echoServer();
      server.use(fail);
      await using client = await connect(server);
      try {
        const result = await client.call("echo", { text: "x" });
        assert.equal(name, "a ToolError is isError");
        assert.deepEqual(result, {
          content: [{ type: "text", text: "quota exceeded" }],
          isError: true,
        });
      } catch (e) {
        assert.ok(isExpected(e), `unexpected: ${e}`);
      }
      assert.deepEqual(ran, []);
    });
  }
});

Deno.test("a layer cannot bring a probe to a tool that does not answer probes", async () => {
  const { server, ran } = echoServer();
  const passed: string[] = [];
  server.use((call, next) => {
    passed.push(call.name);
    return next();
  });
  await using client = await connect(server);
  await assert.rejects(
    client.call("echo", { text: "x" }, {
      meta: { [META_PERMISSION_PATTERNS]: true },
    }),
    (e) => e instanceof RpcError && e.code === -32602,
  );
  assert.deepEqual(passed, ["echo"]);
  assert.deepEqual(ran, []);
});

Deno.test("a probe passes through the layers and still never runs the handler", async () => {
  const server = createServer({ name: "layers", version: "1" });
  let acted = 0;
  const seen: unknown[] = [];
  server.use(async (_call, next) => {
    const result = await next();
    seen.push(result._meta);
    return result;
  });
  registerPatternTool(server, {
    name: "rm",
    description: "Deletes a file",
    input: z.object({ path: z.string() }),
    patterns: ({ path }) => [`delete:${path}`],
    handler: () => {
      acted++;
      return text("deleted");
    },
  });
  await using client = await connect(server);
  const answer = await client.probe("rm", { path: "a.txt" });
  assert.deepEqual(answer.patterns, ["delete:a.txt"]);
  assert.equal(acted, 0);
  assert.deepEqual(seen, [{
    "forge.patterns": ["delete:a.txt"],
    "forge.always": [],
  }]);
});

Deno.test("a tool's time limit covers the layers around it", async () => {
  const server = createServer({ name: "layers", version: "1" });
  server.use(async (call, next) => {
    // A layer that waits on something that never comes, but gives up when the call is aborted.
    await new Promise((resolve) =>
      call.ctx.signal.addEventListener("abort", resolve)
    );
    return next();
  });
  server.tool({
    name: "quick",
    description: "Answers at once",
    timeoutMs: 30,
    handler: () => text("done"),
  });
  await using client = await connect(server);
  await assert.rejects(
    client.call("quick"),
    (e) => e instanceof RpcError && e.code === -32001,
  );
});

Deno.test("use() refuses what is not a layer function", () => {
  const server = createServer({ name: "layers", version: "1" });
  assert.throws(
    () => server.use("log" as unknown as CallLayer),
    (e) =>
      e instanceof TypeError &&
      e.message ===
        "Cannot use layer: expected a function (call, next) => result, got string",
  );
});
