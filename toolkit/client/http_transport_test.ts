// connectServer({ url }): a toolkit server served over Streamable HTTP on
// loopback, reached in a 2025-11-25 session and mounted in another server:
// its lists, calls, cancellation and progress through POSTs and their
// streams, its list_changed through the session's GET stream, and the
// session ended with DELETE on close.

import assert from "node:assert/strict";
import { createServer, type ToolServer } from "../server/server.ts";
import { text } from "../result/result.ts";
import { serveHttp } from "../http/serve.ts";
import { connect } from "../testing/testing.ts";
import { until } from "../testing/_until.ts";
import { connectServer } from "./connect_server.ts";

function remoteServer(): { server: ToolServer; cancelled: () => number } {
  const server = createServer({ name: "remote", version: "1" });
  let cancelled = 0;
  server.tool({
    name: "echo",
    description: "Echoes its arguments",
    handler: (args) => text(JSON.stringify(args)),
  });
  server.tool({
    name: "wait",
    description: "Reports progress, then waits until it is cancelled",
    handler: async (_args, ctx) => {
      await ctx.progress(1, 2, "waiting");
      await new Promise<void>((resolve) =>
        ctx.signal.addEventListener("abort", () => {
          cancelled++;
          resolve();
        }, { once: true })
      );
      return text("cancelled");
    },
  });
  server.tool({
    name: "cancelled",
    description: "How many waits were cancelled",
    handler: () => text(String(cancelled)),
  });
  server.tool({
    name: "add_tool",
    description: "Registers another tool",
    handler: () => {
      server.tool({
        name: "added",
        description: "Added while serving",
        handler: () => text("added"),
      });
      return text("ok");
    },
  });
  return { server, cancelled: () => cancelled };
}

function textOf(result: { content: unknown[] }): string {
  return (result.content as { text?: string }[]).map((c) => c.text ?? "")
    .join("\n");
}

Deno.test("a server reached by URL is mounted: listed, called, cancelled, changed and left", async (t) => {
  const remote = remoteServer();
  const http = serveHttp(remote.server, { port: 0 });
  const methods: string[] = [];
  const marked: (string | null)[] = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    methods.push(init?.method ?? "GET");
    marked.push(new Headers(init?.headers).get("x-test"));
    return realFetch(input, init);
  };
  const app = createServer({ name: "app", version: "1" });
  try {
    const connection = await connectServer({
      url: http.url,
      headers: { "x-test": "1" },
    });
    assert.equal(connection.name, "remote");
    app.mount("remote", connection);
    await using client = await connect(app);

    await t.step("listed and called", async () => {
      const names = (await client.listTools()).map((tool) => tool.name);
      assert.deepEqual(names, [
        "remote_echo",
        "remote_wait",
        "remote_cancelled",
        "remote_add_tool",
      ]);
      const result = await client.call("remote_echo", { a: 1 });
      assert.equal(textOf(result), '{"a":1}');
    });

    await t.step("cancelled, with its progress passed back", async () => {
      const abort = new AbortController();
      const call = client.call("remote_wait", {}, {
        signal: abort.signal,
        meta: { progressToken: 7 },
      });
      await until(
        "the progress of remote_wait",
        () =>
          client.notifications.some((n) =>
            n.method === "notifications/progress" &&
            n.params?.progressToken === 7
          ),
      );
      abort.abort(new Error("enough"));
      await assert.rejects(call);
      await until(
        "the server's wait is cancelled",
        () => remote.cancelled() === 1,
      );
    });

    await t.step("its list_changed arrives on the GET stream", async () => {
      assert.equal(textOf(await client.call("remote_add_tool")), "ok");
      await until(
        "tools/list_changed",
        () =>
          client.notifications.some((n) =>
            n.method === "notifications/tools/list_changed"
          ),
      );
      const names = (await client.listTools()).map((tool) => tool.name);
      assert.ok(names.includes("remote_added"), names.join(", "));
      assert.equal(textOf(await client.call("remote_added")), "added");
    });

    await t.step(
      "closing the server ends the session with DELETE",
      async () => {
        await client.close();
        await app.close();
        assert.ok(methods.includes("DELETE"), methods.join(" "));
        // The headers went with every request.
        assert.deepEqual(new Set(marked), new Set(["1"]));
        await assert.rejects(connection.request("ping"), /not available/);
      },
    );
  } finally {
    globalThis.fetch = realFetch;
    await app.close();
    await http.shutdown();
  }
});

Deno.test("connectServer refuses a url that is not http", async () => {
  await assert.rejects(
    connectServer({ url: "file:///tmp/x" }),
    TypeError,
    'url: expected an http: or https: URL, got "file:///tmp/x"',
  );
});

Deno.test("a server that answers HTTP errors does not connect, and says so", async () => {
  const listener = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    () => new Response("no such endpoint", { status: 403 }),
  );
  try {
    await assert.rejects(
      connectServer({ url: `http://127.0.0.1:${listener.addr.port}/mcp` }),
      /The server did not answer: it answered HTTP 403: no such endpoint/,
    );
  } finally {
    await listener.shutdown();
  }
});

Deno.test("a server that resumes streams is reached by URL: its priming events are skipped", async () => {
  // With an event history, each stream opens with an event that holds an
  // id and empty data, for the client to resume from.
  const remote = remoteServer();
  const http = serveHttp(remote.server, {
    port: 0,
    eventHistory: 50,
    retryMs: 500,
  });
  const app = createServer({ name: "app", version: "1" });
  try {
    const connection = await connectServer({ url: http.url });
    assert.equal(connection.name, "remote");
    app.mount("remote", connection);
    await using client = await connect(app);
    const result = await client.call("remote_echo", { b: 2 });
    assert.equal(textOf(result), '{"b":2}');
  } finally {
    await app.close();
    await http.shutdown();
  }
});
