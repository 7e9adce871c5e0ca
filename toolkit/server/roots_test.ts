import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createServer, text, ToolError } from "../../mod.ts";
import type { RootsChange } from "./mod.ts";
import { connect } from "../testing/testing.ts";

/** A server whose `roots` tool answers the root URIs, or the error ctx.roots() threw. */
function rootsServer() {
  const server = createServer({ name: "s", version: "1" });
  server.tool({
    name: "roots",
    description: "Lists the client's roots",
    handler: async (_args, ctx) => {
      try {
        const roots = await ctx.roots();
        const answer = roots.map((r) => r.uri).join(" ");
        roots.push({ uri: "file:///mutated" }); // must not reach the cache
        return text(answer);
      } catch (cause) {
        throw new ToolError((cause as Error).message);
      }
    },
  });
  return server;
}

function textOf(result: { content: unknown }): string {
  return (result.content as { text: string }[])[0].text;
}

Deno.test("ctx.roots() without the client's roots capability is a clear error", async () => {
  await using client = await connect(rootsServer());
  assert.deepEqual(await client.call("roots"), {
    content: [{
      type: "text",
      text:
        "Cannot list roots: the client did not declare the roots capability",
    }],
    isError: true,
  });
});

Deno.test("ctx.roots() asks a client without listChanged on every call", async () => {
  let asked = 0;
  await using client = await connect(rootsServer(), {
    capabilities: { roots: {} },
    onRequest: (method) => {
      assert.equal(method, "roots/list");
      asked++;
      return { roots: [{ uri: `file:///r${asked}`, name: "r" }] };
    },
  });
  assert.equal(textOf(await client.call("roots")), "file:///r1");
  assert.equal(textOf(await client.call("roots")), "file:///r2");
  assert.equal(asked, 2);
});

Deno.test("a malformed roots/list answer is a clear error", async () => {
  await using client = await connect(rootsServer(), {
    capabilities: { roots: {} },
    onRequest: () => ({ roots: [{ name: "no uri" }] }),
  });
  const result = await client.call("roots");
  assert.equal(result.isError, true);
  assert.match(
    textOf(result),
    /^Cannot list roots: the client answered roots\/list with \{"roots":\[\{"name":"no uri"\}\]\}, expected \{ roots: \[\{ uri, name\? \}\] \}$/,
  );
});

Deno.test("roots are kept until the client says they changed, then asked again (SDK client)", async () => {
  const server = rootsServer();
  const changes: RootsChange[] = [];
  const heard = Promise.withResolvers<void>();
  const stop = server.onRootsChanged((change) => {
    changes.push(change);
    heard.resolve();
  });
  server.onRootsChanged(() => {
    throw new Error("a listener's bug");
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client(
    { name: "sdk", version: "1" },
    { capabilities: { roots: { listChanged: true } } },
  );
  let roots = [{ uri: "file:///home/ada/a", name: "a" }];
  let asked = 0;
  client.setRequestHandler(ListRootsRequestSchema, () => {
    asked++;
    return { roots };
  });
  await client.connect(clientSide);
  const call = async () =>
    textOf(await client.callTool({ name: "roots", arguments: {} }));
  const errors: unknown[] = [];
  const consoleError = console.error;
  console.error = (...args: unknown[]) => errors.push(args);
  try {
    assert.equal(await call(), "file:///home/ada/a");
    assert.equal(await call(), "file:///home/ada/a");
    assert.equal(asked, 1);

    roots = [{ uri: "file:///home/ada/b", name: "b" }];
    await client.sendRootsListChanged();
    await heard.promise;
    assert.deepEqual(changes, [{ sessionId: undefined }]);
    // The throwing listener was reported, and the server still serves.
    assert.equal(errors.length, 1);
    assert.equal(await call(), "file:///home/ada/b");
    assert.equal(asked, 2);

    stop();
    await client.sendRootsListChanged();
    assert.equal(await call(), "file:///home/ada/b");
    assert.equal(asked, 3);
    assert.equal(changes.length, 1);
  } finally {
    console.error = consoleError;
    await client.close();
  }
});

Deno.test("onRootsChanged() refuses a listener that is not a function", () => {
  assert.throws(
    () =>
      createServer({ name: "s", version: "1" }).onRootsChanged(
        "x" as unknown as () => void,
      ),
    {
      name: "TypeError",
      message:
        "Cannot listen for roots changes: expected a function, got string",
    },
  );
});
