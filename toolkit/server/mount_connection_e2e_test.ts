// server.mount(prefix, connectServer({ command })) against real server
// processes: the official memory and filesystem servers (run from npm) and
// a toolkit server that runs until cancelled and changes its tools: listed
// under the prefix, called, cancelled, its list_changed heard, and every
// process stopped when the mounting server closes. And servers that ask
// the client (the official everything server, the toolkit's own, over
// stdio and HTTP): their elicitation and sampling reach the client of the
// call, in both eras.

import assert from "node:assert/strict";
import { createServer, type ToolServer } from "./server.ts";
import { connect, type TestClient } from "../testing/testing.ts";
import { connectStateless } from "./_stateless_test_helpers.ts";
import { httpServer } from "../gate/testdata/http_server.ts";
import { until } from "../testing/_until.ts";
import { connectServer, type McpClientConnection } from "../client/mod.ts";
import type { ClientConnection } from "../client/_connection.ts";

const MEMORY = "npm:@modelcontextprotocol/server-memory@2026.8.31";
const FILESYSTEM = "npm:@modelcontextprotocol/server-filesystem@2026.8.31";
const EVERYTHING = "npm:@modelcontextprotocol/server-everything@2026.8.31";
const CHANGING = new URL("./testdata/changing_server.ts", import.meta.url)
  .pathname;
/** npm servers may take a while to start the first time. */
const START_MS = 60_000;

function npmServer(spec: string, ...args: string[]): string[] {
  return [Deno.execPath(), "run", "-A", "--no-lock", "--quiet", spec, ...args];
}

function textOf(result: { content: unknown[] }): string {
  return (result.content as { text?: string }[]).map((c) => c.text ?? "")
    .join("\n");
}

/** Whether the process is still there (reaped processes leave /proc). */
async function running(pid: number): Promise<boolean> {
  try {
    await Deno.stat(`/proc/${pid}`);
    return true;
  } catch {
    return false;
  }
}

function pidOf(connection: McpClientConnection): number {
  return (connection as ClientConnection).pid!;
}

async function setUp(): Promise<{
  dir: string;
  app: ToolServer;
  client: TestClient;
  connections: McpClientConnection[];
}> {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  await Deno.writeTextFile(`${dir}/hello.txt`, "hello from disk");
  const connections = await Promise.all([
    connectServer({
      command: npmServer(MEMORY),
      env: { MEMORY_FILE_PATH: `${dir}/memory.jsonl` },
      timeoutMs: START_MS,
    }),
    connectServer({ command: npmServer(FILESYSTEM, dir), timeoutMs: START_MS }),
    connectServer({
      command: [Deno.execPath(), "run", "-A", "--quiet", CHANGING],
      timeoutMs: START_MS,
    }),
  ]);
  const app = createServer({ name: "app", version: "1" });
  app.mount("memory", connections[0]);
  app.mount("files", connections[1]);
  app.mount("changing", connections[2]);
  const client = await connect(app);
  return { dir, app, client, connections };
}

Deno.test("real servers mounted by connection are listed, called, cancelled and stopped with the server", async (t) => {
  const { dir, app, client, connections } = await setUp();
  try {
    await t.step("their tools are listed under their prefixes", async () => {
      const names = (await client.listTools()).map((tool) => tool.name);
      for (
        const name of [
          "memory_create_entities",
          "memory_read_graph",
          "files_read_text_file",
          "files_list_directory",
          "changing_wait",
        ]
      ) assert.ok(names.includes(name), `${name} in ${names.join(", ")}`);
    });

    await t.step("calls reach each server", async () => {
      const created = await client.call("memory_create_entities", {
        entities: [{
          name: "ada",
          entityType: "person",
          observations: ["wrote the first program"],
        }],
      });
      assert.equal(created.isError, undefined, textOf(created));
      const graph = await client.call("memory_read_graph", {});
      assert.match(textOf(graph), /wrote the first program/);
      const file = await client.call("files_read_text_file", {
        path: `${dir}/hello.txt`,
      });
      assert.equal(textOf(file), "hello from disk");
      // The server's own refusal comes back as it gave it.
      const outside = await client.call("files_read_text_file", {
        path: "/etc/hostname",
      });
      assert.equal(outside.isError, true);
      assert.match(textOf(outside), /outside allowed directories/i);
    });

    await t.step(
      "a cancelled call is cancelled in the server, its progress reaches the client",
      async () => {
        const abort = new AbortController();
        const call = client.call("changing_wait", {}, {
          signal: abort.signal,
          meta: { progressToken: "w1" },
        });
        await until(
          "the progress of changing_wait",
          () =>
            client.notifications.some((n) =>
              n.method === "notifications/progress" &&
              n.params?.progressToken === "w1"
            ),
          { timeoutMs: 10_000 },
        );
        abort.abort(new Error("no longer needed"));
        await assert.rejects(call);
        // The server handles the cancellation before the next call it reads.
        assert.equal(textOf(await client.call("changing_cancelled")), "1");
      },
    );

    await t.step(
      "a list_changed of a server reaches the client with the new tool",
      async () => {
        const heard = () =>
          client.notifications.filter((n) =>
            n.method === "notifications/tools/list_changed"
          ).length;
        const before = heard();
        assert.equal(textOf(await client.call("changing_add_tool")), "ok");
        await until("tools/list_changed", () => heard() > before, {
          timeoutMs: 10_000,
        });
        const names = (await client.listTools()).map((tool) => tool.name);
        assert.ok(names.includes("changing_added"), names.join(", "));
        assert.equal(textOf(await client.call("changing_added")), "added");
      },
    );

    await t.step(
      "closing the server stops every process it mounted",
      async () => {
        const pids = connections.map(pidOf);
        for (const pid of pids) assert.ok(await running(pid), `${pid} runs`);
        await client.close();
        const started = performance.now();
        await app.close();
        // Each ended at its stdin's end, before the SIGTERM that follows 2 s later.
        assert.ok(performance.now() - started < 2000, "closed without signals");
        for (const pid of pids) {
          assert.equal(await running(pid), false, `${pid} has exited`);
        }
      },
    );
  } finally {
    await client.close();
    await app.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a real server mounted with elicitation and sampling asks the client of the call", async (t) => {
  const connection = await connectServer({
    command: [
      Deno.execPath(),
      "run",
      "-A",
      "--quiet",
      new URL("../../examples/everything/main.ts", import.meta.url).pathname,
    ],
    capabilities: { elicitation: {}, sampling: {} },
    timeoutMs: START_MS,
  });
  const app = createServer({ name: "app", version: "1" });
  app.mount("every", connection);
  const answer = (method: string) =>
    method === "elicitation/create"
      ? { action: "accept", content: { username: "ada", email: "a@x.org" } }
      : {
        role: "assistant",
        model: "fake",
        content: { type: "text", text: "forty-two" },
      };
  try {
    await t.step(
      "a 2025-11-25 client is asked, and its answers return",
      async () => {
        const asked: string[] = [];
        await using client = await connect(app, {
          capabilities: { elicitation: {}, sampling: {} },
          onRequest: (method) => {
            asked.push(method);
            return answer(method);
          },
        });
        const elicited = await client.call("every_test_elicitation", {
          message: "Who are you?",
        });
        assert.equal(
          textOf(elicited),
          'User response: action=accept, content={"username":"ada","email":"a@x.org"}',
        );
        const sampled = await client.call("every_test_sampling", {
          prompt: "The answer?",
        });
        assert.equal(textOf(sampled), "LLM response: forty-two");
        assert.deepEqual(asked, [
          "elicitation/create",
          "sampling/createMessage",
        ]);
      },
    );

    await t.step(
      "a 2026-07-28 client is asked in an input-required round",
      async () => {
        const asked: string[] = [];
        await using client = await connectStateless(app, {
          capabilities: { elicitation: {} },
          onRequest: (method) => {
            asked.push(method);
            return answer(method);
          },
        });
        const elicited = await client.call("every_test_elicitation", {
          message: "Who are you?",
        });
        assert.equal(
          textOf(elicited),
          'User response: action=accept, content={"username":"ada","email":"a@x.org"}',
        );
        assert.deepEqual(asked, ["elicitation/create"]);
      },
    );

    await t.step(
      "a client that cannot be asked: the server's tool says so",
      async () => {
        await using client = await connect(app);
        const elicited = await client.call("every_test_elicitation", {
          message: "Who are you?",
        });
        assert.equal(elicited.isError, true);
        assert.match(textOf(elicited), /Elicitation failed/);
      },
    );
  } finally {
    await app.close();
  }
});

Deno.test("a server mounted by URL asks each of two calls' clients its own question", async () => {
  const script = new URL("../../examples/everything/main.ts", import.meta.url)
    .pathname;
  await using everything = await httpServer(script);
  const connection = await connectServer({
    url: everything.url,
    capabilities: { elicitation: {} },
    timeoutMs: START_MS,
  });
  const app = createServer({ name: "app", version: "1" });
  app.mount("every", connection);
  try {
    // Each client answers once both have been asked: both calls are under
    // way when the server asks, and only the stream each question came on
    // says whose it is.
    // Resolved when that client is asked, or its call ended unasked (so
    // that a wrong mount fails the test instead of holding it).
    const asked = {
      ada: Promise.withResolvers<void>(),
      bob: Promise.withResolvers<void>(),
    };
    const clientOf = (name: "ada" | "bob", other: "ada" | "bob") =>
      connect(app, {
        capabilities: { elicitation: {} },
        onRequest: async (method, params) => {
          assert.equal(method, "elicitation/create");
          assert.equal(params?.message, `For ${name}`);
          asked[name].resolve();
          await asked[other].promise;
          return {
            action: "accept",
            content: { username: name, email: `${name}@x.org` },
          };
        },
      });
    await using ada = await clientOf("ada", "bob");
    await using bob = await clientOf("bob", "ada");
    const [forAda, forBob] = await Promise.all([
      ada.call("every_test_elicitation", { message: "For ada" }).finally(() =>
        asked.ada.resolve()
      ),
      bob.call("every_test_elicitation", { message: "For bob" }).finally(() =>
        asked.bob.resolve()
      ),
    ]);
    assert.match(textOf(forAda), /"username":"ada"/);
    assert.match(textOf(forBob), /"username":"bob"/);
  } finally {
    await app.close();
  }
});

Deno.test("the official everything server, mounted with elicitation and sampling, asks the client of the call", async () => {
  const connection = await connectServer({
    command: npmServer(EVERYTHING, "stdio"),
    capabilities: { elicitation: {}, sampling: {} },
    timeoutMs: START_MS,
  });
  const app = createServer({ name: "app", version: "1" });
  app.mount("ev", connection);
  try {
    const asked: string[] = [];
    await using client = await connect(app, {
      capabilities: { elicitation: {}, sampling: {} },
      onRequest: (method) => {
        asked.push(method);
        return method === "sampling/createMessage"
          ? {
            role: "assistant",
            model: "fake",
            content: { type: "text", text: "forty-two" },
          }
          : { action: "accept", content: { color: "blue" } };
      },
    });
    const elicited = await client.call("ev_trigger-elicitation-request", {});
    assert.match(textOf(elicited), /Favorite Color: blue/);
    const sampled = await client.call("ev_trigger-sampling-request", {
      prompt: "The answer?",
      maxTokens: 5,
    });
    assert.match(textOf(sampled), /forty-two/);
    assert.deepEqual(asked, ["elicitation/create", "sampling/createMessage"]);
  } finally {
    await app.close();
  }
});

Deno.test("the official memory server, mounted with restart, comes back after SIGKILL while the client keeps calling", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const memory = await connectServer({
    command: npmServer(MEMORY),
    env: { MEMORY_FILE_PATH: `${dir}/memory.jsonl` },
    timeoutMs: START_MS,
    restart: true,
  });
  const files = await connectServer({
    command: npmServer(FILESYSTEM, dir),
    timeoutMs: START_MS,
  });
  await Deno.writeTextFile(`${dir}/hello.txt`, "hello from disk");
  const app = createServer({ name: "app", version: "1" });
  app.mount("memory", memory);
  app.mount("files", files);
  const client = await connect(app);
  try {
    const created = await client.call("memory_create_entities", {
      entities: [{ name: "ada", entityType: "person", observations: ["x"] }],
    });
    assert.equal(created.isError, undefined, textOf(created));
    const first = pidOf(memory);
    const changes = () =>
      client.notifications.filter((n) =>
        n.method === "notifications/tools/list_changed"
      ).length;
    const before = changes();
    // The other server is called throughout, and answers every time.
    let reads = 0;
    let back = false;
    const reading = (async () => {
      while (!back) {
        const file = await client.call("files_read_text_file", {
          path: `${dir}/hello.txt`,
        });
        assert.equal(textOf(file), "hello from disk");
        reads++;
      }
    })();
    Deno.kill(first, "SIGKILL");
    await until("memory's tools gone and back", () => changes() >= before + 2, {
      timeoutMs: START_MS,
    });
    back = true;
    await reading;
    assert.ok(reads > 0);
    const second = pidOf(memory);
    assert.notEqual(second, first);
    assert.equal(await running(first), false);
    // The new process reads the same file: what the first one wrote is there.
    const graph = await client.call("memory_read_graph", {});
    assert.equal(graph.isError, undefined, textOf(graph));
    assert.match(textOf(graph), /"ada"/);
  } finally {
    await client.close();
    await app.close();
    await Deno.remove(dir, { recursive: true });
  }
});
