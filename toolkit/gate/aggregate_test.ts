// The gate of many servers (servers: in the policy), in process over a
// pair of streams, in front of fake servers (testdata/fake_server.ts) run
// as real processes.

import assert from "node:assert/strict";
import { startGate } from "./gate.ts";
import { hostStreams } from "./testdata/host_streams.ts";
import { FAKE_COMMAND, HELLO_COMMAND } from "./testdata/gate_process.ts";

type Host = ReturnType<typeof hostStreams>;
// deno-lint-ignore no-explicit-any
type Message = Record<string, any>;

/** Writes `policy` (JSON) to a fresh folder, starts the gate and initializes. */
async function startAggregate(
  policy: Record<string, unknown>,
  capabilities: Record<string, unknown> | null = {},
) {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/gate.json`;
  await Deno.writeTextFile(path, JSON.stringify(policy));
  const host = hostStreams();
  const lines: string[] = [];
  const gate = await startGate([], {
    policy: path,
    audit: `${dir}/audit.jsonl`,
    readable: host.readable,
    writable: host.writable,
    log: (line) => lines.push(line),
    graceMs: 500,
  });
  let init: Message | undefined;
  // A 2026-07-28 host (null) sends no initialize.
  if (capabilities !== null) {
    await host.send({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities,
        clientInfo: { name: "t", version: "1" },
      },
    });
    init = await nextAnswer(host, 0);
    await host.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  }
  return {
    dir,
    host,
    gate,
    init,
    lines,
    audit: async () =>
      (await Deno.readTextFile(`${dir}/audit.jsonl`)).trim().split("\n").map(
        (line) => JSON.parse(line),
      ),
    async [Symbol.asyncDispose]() {
      await host.end().catch(() => {});
      await gate.close();
      await host.drain().catch(() => {});
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** The next message that answers `id`; notifications and requests before it are kept in `others`. */
async function nextAnswer(
  host: Host,
  id: unknown,
  others: Message[] = [],
): Promise<Message> {
  for (;;) {
    const message = await host.next();
    if (message.id === id && message.method === undefined) return message;
    others.push(message);
  }
}

const TWO_FAKES = {
  unprobed: "allow",
  allow: ["read:**", "x-fake:**"],
  servers: {
    a: { command: FAKE_COMMAND },
    b: { command: FAKE_COMMAND, deny: ["x-fake:**"], unprobed: "deny" },
  },
};

Deno.test("a gate of many servers shows them to the host as one", async (t) => {
  await using gate = await startAggregate(TWO_FAKES);
  const { host } = gate;

  await t.step("initialize is merged and names the gate", () => {
    const { result } = gate.init!;
    assert.equal(result.serverInfo.name, "forge-gate");
    assert.deepEqual(result.capabilities, { tools: { listChanged: true } });
    assert.equal(result.protocolVersion, "2025-06-18");
  });

  await t.step("tools are listed under <server>_<tool>", async () => {
    await host.send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const { result } = await nextAnswer(host, 1);
    const names: string[] = result.tools.map((tool: Message) => tool.name);
    assert.ok(names.includes("a_plain") && names.includes("b_plain"));
    assert.ok(names.every((n) => n.startsWith("a_") || n.startsWith("b_")));
    // The fake server's eight tools, twice.
    assert.equal(names.length, 16);
  });

  await t.step("each call is decided by its server's policy", async () => {
    await host.call(2, "a_plain", { x: 1 });
    const allowed = await nextAnswer(host, 2);
    assert.equal(allowed.result.isError, undefined);
    await host.call(3, "b_plain", {});
    const refused = await nextAnswer(host, 3);
    assert.equal(refused.result.isError, true);
    assert.match(refused.result.content[0].text, /^Server "b": /);
    await host.call(4, "b_probed", { patterns: ["read:x"] });
    const denied = await nextAnswer(host, 4);
    assert.match(denied.result.content[0].text, /x-fake:always/);
    await host.call(5, "a_probed", { patterns: ["read:x"] });
    assert.equal((await nextAnswer(host, 5)).result.isError, undefined);
  });

  await t.step("the audit names the server of each call", async () => {
    const lines = await gate.audit();
    assert.deepEqual(
      lines.map((l) => [l.server, l.tool, l.outcome]),
      [
        ["a", "plain", "forwarded"],
        ["b", "plain", "denied"],
        ["b", "probed", "denied"],
        ["a", "probed", "forwarded"],
      ],
    );
  });

  await t.step("an unknown tool is an error naming the prefixes", async () => {
    await host.call(6, "c_plain", {});
    const { error } = await nextAnswer(host, 6);
    assert.match(error.message, /^Unknown tool: c_plain: .*a_, b_/);
  });

  await t.step(
    "a server's request reaches the host and its answer the server",
    async () => {
      await host.call(7, "a_ask_host", {});
      const others: Message[] = [];
      const request = await host.next();
      assert.equal(request.method, "roots/list");
      assert.notEqual(request.id, "forge-gate:1");
      await host.send({
        jsonrpc: "2.0",
        id: request.id,
        result: { roots: [{ uri: "file:///r" }] },
      });
      const answer = await nextAnswer(host, 7, others);
      const got = JSON.parse(answer.result.content[0].text);
      assert.equal(got.id, "forge-gate:1");
      assert.deepEqual(got.result.roots, [{ uri: "file:///r" }]);
    },
  );
});

Deno.test("a server that dies takes only its own tools away, and comes back", async () => {
  await using gate = await startAggregate(TWO_FAKES);
  const { host } = gate;
  await host.call(1, "a_crash", {});
  const others: Message[] = [];
  const crashed = await nextAnswer(host, 1, others);
  assert.ok("error" in crashed || crashed.result.isError);
  // While it is down: b answers, a's tools say why.
  await host.call(2, "b_probed", { patterns: [] });
  await nextAnswer(host, 2, others);
  await host.call(3, "a_plain", {});
  const down = await nextAnswer(host, 3, others);
  if (down.result?.isError) {
    assert.match(
      down.result.content[0].text,
      /^Server "a" is not available: its server exited with code 3; the gate starts it again in 250 ms/,
    );
  }
  // The host hears the change (once down, once back), and a answers again.
  while (
    others.filter((m) => m.method === "notifications/tools/list_changed")
      .length < 2
  ) {
    others.push(await host.next());
  }
  await host.call(4, "a_plain", {});
  assert.equal((await nextAnswer(host, 4)).result.isError, undefined);
  assert.ok(gate.lines.some((l) => /server "a" is down/.test(l)));
});

Deno.test("a gate of many servers refuses to start on what it cannot serve", async (t) => {
  await t.step(
    "two servers under the empty prefix listing one name",
    async () => {
      const dir = await Deno.makeTempDir();
      await Deno.writeTextFile(
        `${dir}/gate.json`,
        JSON.stringify({
          servers: {
            a: { command: FAKE_COMMAND, prefix: "" },
            b: { command: FAKE_COMMAND, prefix: "" },
          },
        }),
      );
      const host = hostStreams();
      await assert.rejects(
        startGate([], {
          policy: `${dir}/gate.json`,
          readable: host.readable,
          writable: host.writable,
          log: () => {},
        }),
        /tool name collision on "probed": server "a" and server "b" both list it/,
      );
      await Deno.remove(dir, { recursive: true });
    },
  );

  await t.step("a header variable the environment lacks", async () => {
    const dir = await Deno.makeTempDir();
    await Deno.writeTextFile(
      `${dir}/gate.json`,
      JSON.stringify({
        servers: {
          web: {
            url: "http://127.0.0.1:9/mcp",
            headers: { Authorization: "Bearer ${FORGE_TEST_UNSET_TOKEN}" },
          },
        },
      }),
    );
    await assert.rejects(
      startGate([], { policy: `${dir}/gate.json`, log: () => {} }),
      /servers\.web\.headers\.Authorization uses \$\{FORGE_TEST_UNSET_TOKEN\}, which is not set/,
    );
    await Deno.remove(dir, { recursive: true });
  });
});

/** hello-tool as the aggregate's "notes" server, writing under `root`. */
function notesPolicy(root: string) {
  return {
    allow: ["read:**", "write:notes/**", "x-fake:**"],
    ask: ["write:drafts/**"],
    servers: {
      notes: { command: HELLO_COMMAND, env: { HELLO_ROOT: root } },
      a: { command: FAKE_COMMAND },
    },
  };
}

Deno.test("an aggregate asks a 2025 host about a call with elicitation, naming the server", async () => {
  const root = await Deno.makeTempDir();
  try {
    await using gate = await startAggregate(notesPolicy(root), {
      elicitation: {},
    });
    const { host } = gate;
    await host.call(1, "notes_write_file", {
      path: "drafts/a.md",
      content: "hi",
    });
    const question = await host.next();
    assert.equal(question.method, "elicitation/create");
    assert.match(question.params.message, /^Server "notes": /);
    assert.match(question.params.message, /write:drafts\/a\.md/);
    await host.send({
      jsonrpc: "2.0",
      id: question.id,
      result: { action: "accept", content: {} },
    });
    const answer = await nextAnswer(host, 1);
    assert.equal(answer.result.isError, undefined);
    assert.equal(await Deno.readTextFile(`${root}/drafts/a.md`), "hi");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("an aggregate serves a 2026-07-28 host: discover, lists, and approval rounds", async (t) => {
  const root = await Deno.makeTempDir();
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
    "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
  };
  try {
    await using gate = await startAggregate(notesPolicy(root), null);
    const { host } = gate;
    await t.step(
      "server/discover merges what the servers that answer it say",
      async () => {
        await host.send({
          jsonrpc: "2.0",
          id: 1,
          method: "server/discover",
          params: { _meta: meta },
        });
        const { result } = await nextAnswer(host, 1);
        assert.deepEqual(result.supportedVersions, ["2026-07-28"]);
        assert.equal(
          result._meta["io.modelcontextprotocol/serverInfo"].name,
          "forge-gate",
        );
        assert.ok("tools" in result.capabilities);
      },
    );
    await t.step("tools/list says it is complete", async () => {
      await host.send({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/list",
        params: { _meta: meta },
      });
      const { result } = await nextAnswer(host, 2);
      assert.equal(result.resultType, "complete");
      assert.ok(
        result.tools.some((tool: Message) => tool.name === "notes_write_file"),
      );
    });
    await t.step(
      "an asked call is a round, and its answer runs it",
      async () => {
        await host.call(3, "notes_write_file", {
          path: "drafts/b.md",
          content: "yo",
        }, meta);
        const round = await nextAnswer(host, 3);
        assert.equal(round.result.resultType, "input_required");
        const [key] = Object.keys(round.result.inputRequests);
        await host.send({
          jsonrpc: "2.0",
          id: 4,
          method: "tools/call",
          params: {
            name: "notes_write_file",
            arguments: { path: "drafts/b.md", content: "yo" },
            inputResponses: { [key]: { action: "accept", content: {} } },
            requestState: round.result.requestState,
            _meta: meta,
          },
        });
        const done = await nextAnswer(host, 4);
        assert.equal(done.result.isError, undefined, JSON.stringify(done));
        assert.equal(await Deno.readTextFile(`${root}/drafts/b.md`), "yo");
      },
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("an aggregate follows its policy file: an entry's new rule decides that server's next call", async () => {
  await using gate = await startAggregate(TWO_FAKES);
  const { host } = gate;
  await host.call(1, "b_plain", {});
  assert.equal((await nextAnswer(host, 1)).result.isError, true);
  const path = `${gate.dir}/gate.json`;
  const next = structuredClone(TWO_FAKES);
  // deno-lint-ignore no-explicit-any
  (next.servers.b as any).unprobed = "allow";
  const temporary = `${path}.tmp`;
  await Deno.writeTextFile(temporary, JSON.stringify(next));
  await Deno.rename(temporary, path);
  // The next call is decided by the file saved before it.
  await host.call(2, "b_plain", {});
  assert.equal((await nextAnswer(host, 2)).result.isError, undefined);
  // A reload that breaks the file keeps the last good policy.
  await Deno.writeTextFile(temporary, '{"servers": {"b": {}}}');
  await Deno.rename(temporary, path);
  await host.call(3, "b_plain", {});
  assert.equal((await nextAnswer(host, 3)).result.isError, undefined);
  await host.call(4, "a_plain", {});
  assert.equal((await nextAnswer(host, 4)).result.isError, undefined);
});

Deno.test("a server that never answers initialize is down alone, and started again", async () => {
  const dir = await Deno.makeTempDir();
  const silent = new URL("./testdata/silent_server.ts", import.meta.url)
    .pathname;
  await Deno.writeTextFile(
    `${dir}/gate.json`,
    JSON.stringify({
      unprobed: "allow",
      servers: {
        a: { command: FAKE_COMMAND },
        mute: { command: [Deno.execPath(), "run", silent] },
      },
    }),
  );
  const host = hostStreams();
  const lines: string[] = [];
  const restarted = Promise.withResolvers<void>();
  const gate = await startGate([], {
    policy: `${dir}/gate.json`,
    readable: host.readable,
    writable: host.writable,
    log: (line) => {
      lines.push(line);
      if (lines.filter((l) => /server "mute" is down/.test(l)).length === 2) {
        restarted.resolve();
      }
    },
    // Long enough for the fake server to start on a loaded machine.
    startTimeoutMs: 2000,
    graceMs: 200,
  });
  try {
    await host.send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    });
    const init = await nextAnswer(host, 1);
    assert.deepEqual(init.result.capabilities, {
      tools: { listChanged: true },
    });
    await host.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await host.call(2, "mute_anything", {});
    const down = await nextAnswer(host, 2);
    assert.match(
      down.result.content[0].text,
      /^Server "mute" is not available: it did not answer initialize within 2000 ms; the gate starts it again in 250 ms$/,
    );
    await host.call(3, "a_plain", {});
    assert.equal((await nextAnswer(host, 3)).result.isError, undefined);
    // Started again, it hangs again: down a second time, on its own.
    await restarted.promise;
  } finally {
    await host.end();
    await gate.close();
    await host.drain().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});
