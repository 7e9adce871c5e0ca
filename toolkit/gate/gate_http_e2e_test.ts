// The gate as an HTTP service (gate/main.ts --http 127.0.0.1:0): MCP
// clients reach it over Streamable HTTP, each 2025-11-25 session with a
// gate and a server of its own, 2026-07-28 requests through one shared
// gate; in front of one server and of a `servers:` aggregate.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  alive,
  childrenOf,
  FAKE_COMMAND,
  HELLO_COMMAND,
  type Message,
  runGate,
} from "./testdata/gate_process.ts";
import { statelessResponse } from "./testdata/stateless_call.ts";

const MAIN = new URL("./main.ts", import.meta.url).pathname;
const FAKE = new URL("./testdata/fake_server.ts", import.meta.url).pathname;

const POLICY = `
allow: ["x-fake:**"]
ask: ["write:**"]
deny: ["write:secret/**"]
unprobed: allow
`;

/** gate/main.ts serving HTTP: its URL, its pid and its stderr lines. */
async function httpGate(
  args: readonly string[],
  env: Record<string, string> = {},
) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  const waiters: { test: (line: string) => boolean; resolve: () => void }[] =
    [];
  const reading = (async () => {
    let rest = "";
    for await (
      const chunk of child.stderr.pipeThrough(new TextDecoderStream())
    ) {
      rest += chunk;
      let end;
      while ((end = rest.indexOf("\n")) !== -1) {
        const line = rest.slice(0, end);
        rest = rest.slice(end + 1);
        lines.push(line);
        for (const waiter of [...waiters]) {
          if (waiter.test(line)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve();
          }
        }
      }
    }
  })();
  const stdout = new Response(child.stdout).text();
  /** Resolves once a line matching `pattern` is on stderr (one already there counts after `from`). */
  function line(pattern: RegExp, from = 0): Promise<string> {
    const found = lines.slice(from).find((l) => pattern.test(l));
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const waiter = {
        test: (l: string) => pattern.test(l),
        resolve: () => resolve(lines.findLast((l) => pattern.test(l))!),
      };
      waiters.push(waiter);
      reading.then(() =>
        reject(
          new Error(`The gate ended without ${pattern}:\n${lines.join("\n")}`),
        )
      );
    });
  }
  const listening = await line(/listening on http:\/\/127\.0\.0\.1:\d+\/mcp/);
  const url = new URL(listening.match(/(http:\S+)/)![1]);
  return {
    url,
    pid: child.pid,
    lines,
    line,
    /** Sends SIGTERM; resolves with the exit code and stdout. */
    async stop() {
      child.kill("SIGTERM");
      const status = await child.status;
      await reading;
      return { code: status.code, stdout: await stdout };
    },
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGTERM");
      } catch {
        // Stopped already.
      }
      await child.status;
      await reading.catch(() => {});
    },
  };
}

/** A 2025-11-25 session whose user answers each approval with `answer()`. */
async function session(
  url: URL,
  answer: (request: Message) => Message,
) {
  const client = new Client(
    { name: "gate-http-test", version: "1.0.0" },
    { capabilities: { elicitation: {} } },
  );
  const asked: Message[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request: Message) => {
    asked.push(request.params);
    return answer(request.params) as never;
  });
  const transport = new StreamableHTTPClientTransport(url);
  await client.connect(transport);
  return {
    client,
    transport,
    asked,
    /** Calls the fake's `probed` tool (under `name`), reporting `patterns`. */
    async probed(patterns: string[], name = "probed"): Promise<Message> {
      return await client.callTool({ name, arguments: { patterns } });
    },
    async [Symbol.asyncDispose]() {
      await client.close().catch(() => {});
    },
  };
}

function textOf(result: Message): string {
  return result.content?.[0]?.text ?? "";
}

/** The patterns the fake server was told were approved, from its answer. */
function approvedOf(result: Message): unknown {
  return JSON.parse(textOf(result))["forge.approved_patterns"];
}

/** The gate's descendants running the fake server. */
async function fakeServers(gatePid: number): Promise<number[]> {
  const found: number[] = [];
  const queue = [gatePid];
  while (queue.length > 0) {
    for (const pid of await childrenOf(queue.shift()!)) {
      queue.push(pid);
      const cmdline = await Deno.readTextFile(`/proc/${pid}/cmdline`).catch(
        () => "",
      );
      if (cmdline.split("\0").includes(FAKE)) found.push(pid);
    }
  }
  return found;
}

/** POSTs one 2026-07-28 request (no session); resolves with its JSON answer. */
async function stateless(
  url: URL,
  id: number,
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = {},
): Promise<Message> {
  return (await statelessResponse(url, method, params, { id, capabilities }))
    .body;
}

async function workspace(policy: string) {
  const dir = await Deno.makeTempDir({ prefix: "gate-http-" });
  await Deno.writeTextFile(`${dir}/gate.yaml`, policy);
  return {
    dir,
    policy: `${dir}/gate.yaml`,
    audit: `${dir}/audit.jsonl`,
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const ACCEPT_FOR_SESSION = () => ({
  action: "accept",
  content: { remember: "session" },
});
const DECLINE = () => ({ action: "decline" });

Deno.test("gate --http in front of one server: a gate and a server per session", async (t) => {
  await using ws = await workspace(POLICY);
  await using gate = await httpGate([
    "--policy",
    ws.policy,
    "--audit",
    ws.audit,
    "--http",
    "127.0.0.1:0",
    "--",
    ...FAKE_COMMAND,
  ]);
  await using a = await session(gate.url, ACCEPT_FOR_SESSION);
  await using b = await session(gate.url, DECLINE);

  await t.step("each session has its own server", async () => {
    const servers = await fakeServers(gate.pid);
    assert.equal(servers.length, 2, JSON.stringify(servers));
  });

  await t.step(
    "session A's remembered approval does not let session B's call through",
    async () => {
      const first = await a.probed(["write:notes/a"]);
      assert.deepEqual(approvedOf(first), ["x-fake:always", "write:notes/a"]);
      assert.equal(a.asked.length, 1);
      // Remembered for A: not asked again.
      const again = await a.probed(["write:notes/a"]);
      assert.deepEqual(approvedOf(again), ["x-fake:always", "write:notes/a"]);
      assert.equal(a.asked.length, 1);
      // B's user is asked (and declines): A's approval is A's alone.
      const other = await b.probed(["write:notes/a"]);
      assert.equal(other.isError, true);
      assert.match(textOf(other), /declined/);
      assert.equal(b.asked.length, 1);
      assert.match(String(b.asked[0].message), /write:notes\/a/);
    },
  );

  await t.step("a denied call is refused, naming the rule", async () => {
    const denied = await a.probed(["write:secret/key"]);
    assert.equal(denied.isError, true);
    assert.match(textOf(denied), /write:secret\/\*\*/);
    assert.equal(a.asked.length, 1, "a denied call is not asked");
  });

  await t.step(
    "2026-07-28 requests under the same id get their own answers",
    async () => {
      const [one, two] = await Promise.all([
        stateless(gate.url, 1, "tools/call", {
          name: "probed",
          arguments: { patterns: ["x-fake:one"] },
        }),
        stateless(gate.url, 1, "tools/call", {
          name: "probed",
          arguments: { patterns: ["x-fake:two"] },
        }),
      ]);
      assert.equal(one.id, 1);
      assert.equal(two.id, 1);
      assert.deepEqual(approvedOf(one.result), ["x-fake:always", "x-fake:one"]);
      assert.deepEqual(approvedOf(two.result), ["x-fake:always", "x-fake:two"]);
    },
  );

  await t.step(
    "a 2026-07-28 request without its _meta is refused before any server",
    async () => {
      const response = await fetch(gate.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/list",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/list" }),
      });
      assert.equal(response.status, 400);
      const answer = await response.json();
      assert.equal(answer.id, 5);
      assert.equal(answer.error.code, -32602);
      assert.match(answer.error.message, /_meta/);
    },
  );

  await t.step(
    "a 2026-07-28 call is decided as any other: denied",
    async () => {
      const denied = await stateless(gate.url, 7, "tools/call", {
        name: "probed",
        arguments: { patterns: ["write:secret/key"] },
      });
      assert.equal(denied.result.isError, true);
      assert.match(textOf(denied.result), /write:secret\/\*\*/);
    },
  );

  await t.step(
    "closing a session stops its server, not the other's",
    async () => {
      const before = await fakeServers(gate.pid);
      const from = gate.lines.length;
      await a.transport.terminateSession();
      await gate.line(/a session ended and its server stopped/, from);
      const after = await fakeServers(gate.pid);
      const gone = before.filter((pid) => !after.includes(pid));
      assert.equal(gone.length, 1, JSON.stringify({ before, after }));
      assert.equal(await alive(gone[0]), false);
      // B still works.
      const still = await b.probed(["x-fake:b"]);
      assert.deepEqual(approvedOf(still), ["x-fake:always", "x-fake:b"]);
    },
  );

  await t.step("the audit has every session's calls in one chain", async () => {
    const result = await runGate(["audit", "verify", ws.audit]);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const lines = (await Deno.readTextFile(ws.audit)).trim().split("\n")
      .map((l) => JSON.parse(l));
    const outcomes = lines.map((l) => l.outcome);
    assert.ok(outcomes.includes("denied"), JSON.stringify(outcomes));
    assert.ok(outcomes.includes("declined"), JSON.stringify(outcomes));
  });

  await t.step("SIGTERM stops every server and exits 0", async () => {
    const servers = await fakeServers(gate.pid);
    assert.ok(servers.length >= 1);
    const { code, stdout } = await gate.stop();
    assert.equal(code, 0);
    assert.equal(stdout, "", "stdout carries nothing over HTTP");
    for (const pid of servers) assert.equal(await alive(pid), false);
  });
});

Deno.test("gate --http in front of hello-tool: sessions apart, both eras", async (t) => {
  await using ws = await workspace(
    'ask: ["write:notes/**"]\ndeny: ["write:secrets/**"]\nunprobed: allow\n',
  );
  const root = `${ws.dir}/root`;
  await Deno.mkdir(root);
  await using gate = await httpGate([
    "--policy",
    ws.policy,
    "--http",
    "127.0.0.1:0",
    "--",
    ...HELLO_COMMAND,
  ], { HELLO_ROOT: root });
  await using a = await session(gate.url, ACCEPT_FOR_SESSION);
  await using b = await session(gate.url, DECLINE);
  const write = (who: typeof a, path: string, content: string) =>
    who.client.callTool({
      name: "write_file",
      arguments: { path, content },
    }) as Promise<Message>;

  await t.step("A's remembered approval is A's alone", async () => {
    assert.equal(
      textOf(await write(a, "notes/a.txt", "one")),
      "Wrote 3 bytes to notes/a.txt",
    );
    assert.equal(
      textOf(await write(a, "notes/a.txt", "two")),
      "Wrote 3 bytes to notes/a.txt",
    );
    assert.equal(a.asked.length, 1);
    const refused = await write(b, "notes/a.txt", "bee");
    assert.equal(refused.isError, true);
    assert.equal(b.asked.length, 1);
    assert.equal(await Deno.readTextFile(`${root}/notes/a.txt`), "two");
  });

  await t.step("a denied write is refused by its rule", async () => {
    const denied = await write(a, "secrets/k", "x");
    assert.match(
      textOf(denied),
      /write:secrets\/k denied by write:secrets\/\*\*/,
    );
    await assert.rejects(Deno.stat(`${root}/secrets`));
  });

  await t.step(
    "a 2026-07-28 caller is asked each time: the shared gate remembers nothing",
    async () => {
      const call = (extra: Record<string, unknown> = {}) =>
        stateless(gate.url, 1, "tools/call", {
          name: "write_file",
          arguments: { path: "notes/s.txt", content: "ss" },
          ...extra,
        }, { elicitation: {} });
      const asked = (await call()).result;
      assert.equal(asked.resultType, "input_required");
      const [key] = Object.keys(asked.inputRequests);
      // No choice to remember is offered to callers that share the gate.
      assert.deepEqual(
        asked.inputRequests[key].params.requestedSchema.properties,
        {},
      );
      const accepted = await call({
        requestState: asked.requestState,
        inputResponses: {
          [key]: { action: "accept", content: { remember: "session" } },
        },
      });
      assert.equal(textOf(accepted.result), "Wrote 2 bytes to notes/s.txt");
      const again = (await call()).result;
      assert.equal(again.resultType, "input_required");
    },
  );

  await t.step(
    "a 2026-07-28 caller that cannot be asked is refused",
    async () => {
      const refused = await stateless(gate.url, 2, "tools/call", {
        name: "write_file",
        arguments: { path: "notes/t.txt", content: "t" },
      });
      assert.equal(refused.result.isError, true);
      assert.equal(refused.result.resultType, "complete");
      const hello = await stateless(gate.url, 3, "tools/call", {
        name: "hello",
        arguments: { name: "Ada" },
      });
      assert.match(textOf(hello.result), /Ada/);
    },
  );
});

Deno.test("gate --http in front of a servers: aggregate, per session", async (t) => {
  await using ws = await workspace(`${POLICY}
servers:
  one:
    command: ["${Deno.execPath()}", "run", "${FAKE}"]
  two:
    command: ["${Deno.execPath()}", "run", "${FAKE}"]
`);
  await using gate = await httpGate([
    "--policy",
    ws.policy,
    "--http",
    "127.0.0.1:0",
  ]);
  await using a = await session(gate.url, ACCEPT_FOR_SESSION);
  await using b = await session(gate.url, DECLINE);

  await t.step("each session has its own servers", async () => {
    const { tools } = await a.client.listTools();
    const names = tools.map((tool: Message) => tool.name);
    assert.ok(names.includes("one_probed") && names.includes("two_probed"));
    assert.equal((await fakeServers(gate.pid)).length, 4);
  });

  await t.step(
    "session A's remembered approval does not let session B's call through",
    async () => {
      const first = await a.probed(["write:x"], "one_probed");
      assert.deepEqual(approvedOf(first), ["x-fake:always", "write:x"]);
      await a.probed(["write:x"], "one_probed");
      assert.equal(a.asked.length, 1);
      const other = await b.probed(["write:x"], "one_probed");
      assert.equal(other.isError, true);
      assert.match(textOf(other), /declined/);
      assert.equal(b.asked.length, 1);
    },
  );

  await t.step("a denied call is refused", async () => {
    const denied = await b.probed(["write:secret/x"], "two_probed");
    assert.equal(denied.isError, true);
    assert.match(textOf(denied), /write:secret\/\*\*/);
  });

  await t.step("a 2026-07-28 call goes through the shared gate", async () => {
    const answer = await stateless(gate.url, 1, "tools/call", {
      name: "two_probed",
      arguments: { patterns: ["x-fake:s"] },
    });
    assert.deepEqual(approvedOf(answer.result), ["x-fake:always", "x-fake:s"]);
  });

  await t.step("closing a session stops its servers", async () => {
    const before = await fakeServers(gate.pid);
    const from = gate.lines.length;
    await b.transport.terminateSession();
    await gate.line(/a session ended and its server stopped/, from);
    const after = await fakeServers(gate.pid);
    const gone = before.filter((pid) => !after.includes(pid));
    assert.equal(gone.length, 2, JSON.stringify({ before, after }));
    for (const pid of gone) assert.equal(await alive(pid), false);
  });
});

Deno.test("gate serves HTTP where the policy file's listen: says, without --http", async () => {
  await using ws = await workspace(`${POLICY}listen: "127.0.0.1:0"\n`);
  await using gate = await httpGate([
    "--policy",
    ws.policy,
    "--",
    ...FAKE_COMMAND,
  ]);
  await using a = await session(gate.url, DECLINE);
  const allowed = await a.probed(["x-fake:a"]);
  assert.deepEqual(approvedOf(allowed), ["x-fake:always", "x-fake:a"]);
});

Deno.test("gate --http refuses an address that is not loopback", async (t) => {
  await using ws = await workspace(POLICY);
  await t.step("--http 0.0.0.0", async () => {
    const result = await runGate([
      "--policy",
      ws.policy,
      "--http",
      "0.0.0.0:0",
      "--",
      ...FAKE_COMMAND,
    ]);
    assert.equal(result.code, 2);
    assert.match(
      result.stderr,
      /expected a loopback address, or auth: in the policy/,
    );
  });
  await t.step("listen: in the policy", async () => {
    await Deno.writeTextFile(ws.policy, `${POLICY}listen: "[::]:0"\n`);
    const result = await runGate([
      "--policy",
      ws.policy,
      "--",
      ...FAKE_COMMAND,
    ]);
    assert.equal(result.code, 2);
    assert.match(
      result.stderr,
      /expected a loopback address, or auth: in the policy/,
    );
  });
});
