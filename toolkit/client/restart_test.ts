// connectServer({ restart: true }): a server that ends by itself is
// started again with its lists, a mounting server lists its tools again,
// one that cannot come back is tried again with longer waits until
// close(), and without the option an end is final.

import assert from "node:assert/strict";
import { connectServer } from "./connect_server.ts";
import type { ClientConnection } from "./_connection.ts";
import type { McpClientConnection } from "./types.ts";
import { messageChannel } from "../jsonrpc/_message_channel.ts";
import { createServer } from "../server/server.ts";
import { connect } from "../testing/testing.ts";
import { until } from "../testing/_until.ts";
import { BACKOFF_FIRST_MS } from "../_util/backoff.ts";
import { httpServer } from "../gate/testdata/http_server.ts";
import { freePort } from "../gate/testdata/gate_nginx.ts";

const SERVER = new URL("./testdata/exiting_server.ts", import.meta.url)
  .pathname;
const COMMAND = [Deno.execPath(), "run", "-A", "--quiet", SERVER];
const EVERYTHING = new URL("../../examples/everything/main.ts", import.meta.url)
  .pathname;
/** What the everything example's test_simple_text answers. */
const SIMPLE_TEXT = "This is a simple text response for testing.";

/** A connection to the exiting server, its start log, and a path that makes its starts fail once written. */
async function exitingServer(
  options: { restart?: boolean } = {},
): Promise<
  AsyncDisposable & {
    connection: McpClientConnection;
    starts: string;
    refuse: string;
  }
> {
  const dir = await Deno.makeTempDir();
  const starts = `${dir}/starts`;
  const refuse = `${dir}/refuse`;
  const connection = await connectServer({
    command: COMMAND,
    env: { STARTS: starts, REFUSE: refuse },
    restart: options.restart,
  });
  return {
    connection,
    starts,
    refuse,
    async [Symbol.asyncDispose]() {
      await connection.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** The server's starts so far: pid and time of each. */
async function startsIn(file: string): Promise<{ pid: number; at: number }[]> {
  const text = await Deno.readTextFile(file).catch(() => "");
  return text.trim().split("\n").filter((line) => line !== "").map((line) => {
    const [pid, at] = line.split(" ").map(Number);
    return { pid, at };
  });
}

function pidOf(connection: McpClientConnection): number {
  return (connection as ClientConnection).pid!;
}

/**
 * Resolves with each list named as listeners are told, `count` of them;
 * rejects after 20 s.
 */
function listChanges(
  connection: McpClientConnection,
  count: number,
): Promise<string[]> {
  const seen: string[] = [];
  let stop = () => {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  return new Promise<string[]>((resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(`Timed out after ${seen.length} of ${count} list changes`),
        ),
      20_000,
    );
    stop = connection.onListChanged((list) => {
      seen.push(list);
      if (seen.length === count) resolve(seen);
    });
  }).finally(() => {
    stop();
    clearTimeout(timer);
  });
}

async function textOf(
  connection: McpClientConnection,
  name: string,
): Promise<string> {
  const result = await connection.request("tools/call", {
    name,
    arguments: {},
  });
  return (result.content as { text: string }[])[0].text;
}

Deno.test("connectServer({ restart: true }) starts a server that exited again, with its tools", async () => {
  await using server = await exitingServer({ restart: true });
  const { connection } = server;
  const first = pidOf(connection);
  assert.equal(await textOf(connection, "hello"), `hello from ${first}`);
  // Emptied at the end, filled again once the new session is up.
  const changes = listChanges(connection, 2);
  await assert.rejects(
    textOf(connection, "exit"),
    /Server "exiting" is not available: it exited with code 3/,
  );
  await assert.rejects(
    textOf(connection, "hello"),
    /it exited with code 3; it is started again in 250 ms/,
  );
  assert.deepEqual(await changes, ["tools", "tools"]);
  assert.deepEqual(
    connection.tools.map((tool) => tool.name).sort(),
    ["exit", "hello"],
  );
  const second = pidOf(connection);
  assert.notEqual(second, first);
  assert.equal(await textOf(connection, "hello"), `hello from ${second}`);
  assert.deepEqual((await startsIn(server.starts)).map((s) => s.pid), [
    first,
    second,
  ]);
});

Deno.test("connectServer({ restart: true }) waits longer after each failed start, until close()", async () => {
  let closed = false;
  {
    await using server = await exitingServer({ restart: true });
    const { connection } = server;
    connection.closed.then(() => closed = true);
    await Deno.writeTextFile(server.refuse, "");
    await assert.rejects(textOf(connection, "exit"), /exited with code 3/);
    // The first start and three that exit at once (code 4).
    await until(
      "three starts again",
      async () => (await startsIn(server.starts)).length >= 4,
      { timeoutMs: 20_000 },
    );
    const at = (await startsIn(server.starts)).map((s) => s.at);
    const waits = at.slice(1).map((time, i) => time - at[i]);
    // 500, then 1000 ms at least between an end and the next start (the
    // first wait, 250 ms, comes after the call that ended it).
    for (const [i, wait] of waits.slice(1).entries()) {
      assert.ok(
        wait >= BACKOFF_FIRST_MS * 2 ** (i + 1),
        `wait ${i + 2} was ${wait} ms: ${waits.join(", ")}`,
      );
    }
    await assert.rejects(
      textOf(connection, "hello"),
      /it could not be started again: .*; it is started again in \d+ (ms|s)/,
    );
    assert.equal(closed, false, "closed resolves only at close()");
    // Disposed here: the test's timer sanitizer fails it if a start stays
    // scheduled after close().
  }
  assert.equal(closed, true);
});

Deno.test("connectServer() without restart ends for good when the server exits", async () => {
  await using server = await exitingServer();
  const { connection } = server;
  await assert.rejects(textOf(connection, "exit"), /exited with code 3/);
  await connection.closed;
  assert.deepEqual(connection.tools, []);
  await assert.rejects(textOf(connection, "hello"), /exited with code 3$/);
  assert.equal((await startsIn(server.starts)).length, 1);
});

Deno.test("connectServer() refuses restart for a transport and a restart that is not a boolean", async () => {
  const [ours] = messageChannel();
  await assert.rejects(
    connectServer({ transport: ours, restart: true }),
    TypeError,
    "restart needs a command or a url: a transport cannot be made again",
  );
  await assert.rejects(
    connectServer({
      command: COMMAND,
      restart: "yes" as unknown as boolean,
    }),
    TypeError,
    "restart: expected a boolean, got string",
  );
});

Deno.test("a server mounting a restarting connection lists its tools again once it is back", async () => {
  await using server = await exitingServer({ restart: true });
  const { connection } = server;
  const app = createServer({ name: "app", version: "1" });
  app.mount("x", connection);
  const client = await connect(app);
  try {
    const names = async () =>
      ((await client.request("tools/list")) as { tools: { name: string }[] })
        .tools.map((tool) => tool.name).sort();
    assert.deepEqual(await names(), ["x_exit", "x_hello"]);
    const before = client.notifications.length;
    const changed = () =>
      client.notifications.slice(before).filter((n) =>
        n.method === "notifications/tools/list_changed"
      ).length;
    const result = await client.call("x_exit", {});
    assert.equal(result.isError, true);
    await until("the tools gone and back", () => changed() >= 2, {
      timeoutMs: 20_000,
    });
    assert.deepEqual(await names(), ["x_exit", "x_hello"]);
    const hello = await client.call("x_hello", {});
    assert.equal(hello.isError, undefined);
    assert.match(
      (hello.content as { text: string }[])[0].text,
      new RegExp(`hello from ${pidOf(connection)}`),
    );
  } finally {
    await client.close();
  }
});

Deno.test("close() while a restarted server is starting leaves no process behind", async () => {
  await using server = await exitingServer({ restart: true });
  const { connection } = server;
  await assert.rejects(textOf(connection, "exit"), /exited with code 3/);
  // The new process has started: its handshake may be under way.
  await until(
    "the second start",
    async () => (await startsIn(server.starts)).length === 2,
    { timeoutMs: 10_000 },
  );
  const [, second] = await startsIn(server.starts);
  await connection.close();
  await connection.closed;
  const gone = await Deno.stat(`/proc/${second.pid}`).then(
    () => false,
    () => true,
  );
  assert.ok(gone, `the restarted server ${second.pid} has exited`);
  await assert.rejects(
    textOf(connection, "hello"),
    /the connection was closed|it exited/,
  );
});

Deno.test("connectServer({ url, restart: true }) opens a new session once the server at the URL is back", async () => {
  const port = freePort();
  let server = await httpServer(EVERYTHING, {}, { port });
  const connection = await connectServer({ url: server.url, restart: true });
  try {
    const simple = async () => {
      const result = await connection.request("tools/call", {
        name: "test_simple_text",
        arguments: {},
      });
      return (result.content as { text: string }[])[0].text;
    };
    assert.equal(await simple(), SIMPLE_TEXT);
    const gone = listChanges(connection, 1);
    await server[Symbol.asyncDispose]();
    // The new server knows nothing of the old session.
    server = await httpServer(EVERYTHING, {}, { port });
    await gone;
    await listChanges(connection, 1);
    assert.ok(
      connection.tools.some((tool) => tool.name === "test_simple_text"),
    );
    assert.equal(await simple(), SIMPLE_TEXT);
  } finally {
    await connection.close();
    await server[Symbol.asyncDispose]();
  }
});
