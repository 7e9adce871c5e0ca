import assert from "node:assert/strict";
import { serveHttp, streamableHttp } from "./serve.ts";
import {
  connectClient,
  errorOf,
  gate,
  INITIALIZE,
  makeServer,
  post,
  start,
} from "./_test_helpers.ts";

Deno.test("serveHttp() serves MCP at /mcp on 127.0.0.1 and answers 404 elsewhere", async () => {
  await using http = start();
  assert.equal(http.addr.hostname, "127.0.0.1");
  assert.equal(http.url.pathname, "/mcp");
  const { client } = await connectClient(http.url);
  const tools = await client.listTools();
  assert.deepEqual(tools.tools.map((t: { name: string }) => t.name), [
    "held",
    "echo",
    "whoami",
    "slow",
  ]);
  const result = await client.callTool({
    name: "echo",
    arguments: { text: "hi" },
  });
  assert.deepEqual(result.content, [{ type: "text", text: "hi" }]);
  await client.close();

  const other = await post(new URL("/other", http.url), INITIALIZE);
  assert.equal(other.status, 404);
  assert.match((await errorOf(other)).message, /the MCP endpoint is \/mcp/);
});

Deno.test("serveHttp() refuses a port in use with a clear error", async () => {
  await using http = start();
  assert.throws(
    () =>
      serveHttp(makeServer(), {
        port: http.addr.port,
        handleSignals: false,
        onListen: () => {},
      }),
    (error: Error) => {
      assert.match(
        error.message,
        /^Cannot serve HTTP: address already in use: 127\.0\.0\.1:\d+$/,
      );
      return true;
    },
  );
});

Deno.test("shutdown lets a request in flight finish, then refuses new ones", async () => {
  const call = gate();
  const http = start({}, makeServer(5000, [call]));
  const { client } = await connectClient(http.url);
  const inFlight = client.callTool({ name: "held", arguments: {} });
  await call.started;
  const stopping = http.shutdown();
  const refused = await post(http.url, INITIALIZE).then(
    (response) => response.status,
    () => "connection refused",
  );
  assert.ok(
    refused === 503 || refused === "connection refused",
    `got ${refused}`,
  );
  call.release();
  const result = await inFlight;
  assert.deepEqual(result.content, [{ type: "text", text: "released" }]);
  await stopping;
  await http.finished;
  await client.close().catch(() => {});
});

Deno.test("shutdown answers a call that outlives the grace period with an error", async () => {
  const call = gate();
  const http = start({}, makeServer(100, [call]));
  const { client } = await connectClient(http.url);
  const inFlight = client.callTool({ name: "held", arguments: {} })
    .then(() => "answered", (error: Error) => error.message);
  await call.started;
  await http.shutdown();
  // The call was never released: only the grace period ended it.
  assert.match(await inFlight, /Server shut down before the tool finished/);
  call.release();
  await client.close().catch(() => {});
});
Deno.test("streamableHttp() listens for a server, serves sessions and shuts down", async () => {
  const server = makeServer();
  let url: URL | undefined;
  const listener = streamableHttp({ port: 0, onListen: (u) => url = u });
  const listening = listener.listen(server, { handleSignals: false });
  assert.ok(url, "onListen was called");
  assert.equal(url.pathname, "/mcp");
  const { client } = await connectClient(url);
  const result = await client.callTool({
    name: "echo",
    arguments: { text: "listened" },
  });
  assert.deepEqual(result.content, [{ type: "text", text: "listened" }]);
  await listening.shutdown();
  await listening.finished;
  const refused = await post(url, INITIALIZE).then(
    (response) => response.status,
    () => "connection refused",
  );
  assert.equal(refused, "connection refused");
  await client.close().catch(() => {});
});

Deno.test("streamableHttp() checks its port at once and listens anew each time", async () => {
  assert.throws(
    () => streamableHttp({ port: -1 }),
    (error: Error) =>
      error instanceof RangeError &&
      /port must be a whole number from 0 to 65535, got -1/.test(error.message),
  );
  const listener = streamableHttp({ port: 0, onListen: () => {} });
  const a = listener.listen(makeServer(), { handleSignals: false });
  const b = listener.listen(makeServer(), { handleSignals: false });
  await Promise.all([a.shutdown(), b.shutdown()]);
});

Deno.test("server.serve({ transport: streamableHttp() }) serves until server.close()", async () => {
  const server = makeServer();
  let listened!: (url: URL) => void;
  const ready = new Promise<URL>((resolve) => listened = resolve);
  const serving = server.serve({
    transport: streamableHttp({ port: 0, onListen: (url) => listened(url) }),
    exit: false,
    handleSignals: false,
  });
  const url = await ready;
  const { client } = await connectClient(url);
  const result = await client.callTool({
    name: "echo",
    arguments: { text: "served" },
  });
  assert.deepEqual(result.content, [{ type: "text", text: "served" }]);
  await server.close();
  await serving;
  await client.close().catch(() => {});
});
