// The gate in front of real hello-tool and fake-server processes.

import assert from "node:assert/strict";
import {
  callTool,
  FAKE_COMMAND,
  HELLO_COMMAND,
  type Message,
  rpc,
  startGateProcess,
  textOf,
  writeAtomic,
} from "./testdata/gate_process.ts";

async function workspace(policy: string, name = "policy.yaml") {
  const dir = await Deno.makeTempDir({ prefix: "gate-test-" });
  const root = `${dir}/root`;
  await Deno.mkdir(root);
  const policyPath = `${dir}/${name}`;
  await Deno.writeTextFile(policyPath, policy);
  return {
    dir,
    root,
    policyPath,
    audit: `${dir}/audit.jsonl`,
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

const POLICY = `
allow: ["write:notes/**", "delete:tmp/**"]
ask:   ["write:drafts/**"]
deny:  ["write:secrets/**", "delete:**"]
unprobed: allow
`;

Deno.test("gate decides hello-tool's calls by the policy", async (t) => {
  await using ws = await workspace(POLICY);
  await using gate = await startGateProcess(
    ["--policy", ws.policyPath, "--audit", ws.audit],
    HELLO_COMMAND,
    { env: { HELLO_ROOT: ws.root } },
  );

  await t.step("tools/list passes through unchanged", async () => {
    const answer = await rpc(gate, "tools/list");
    const names = answer.result.tools.map((tool: Message) => tool.name);
    assert.deepEqual(names, ["hello", "write_file", "delete_file"]);
  });

  await t.step(
    "an allowed call is forwarded and its answer returned",
    async () => {
      const answer = await callTool(gate, "write_file", {
        path: "notes/a.txt",
        content: "hi",
      });
      assert.equal(answer.result.isError, undefined);
      assert.equal(textOf(answer), "Wrote 2 bytes to notes/a.txt");
      assert.equal(await Deno.readTextFile(`${ws.root}/notes/a.txt`), "hi");
    },
  );

  await t.step(
    "a denied call names the pattern and the rule, and does nothing",
    async () => {
      const answer = await callTool(gate, "write_file", {
        path: "secrets/key",
        content: "SECRET-VALUE",
      });
      assert.equal(answer.result.isError, true);
      assert.match(
        textOf(answer),
        /write:secrets\/key denied by write:secrets\/\*\*/,
      );
      assert.equal(await exists(`${ws.root}/secrets`), false);
    },
  );

  await t.step("deny beats allow", async () => {
    const answer = await callTool(gate, "delete_file", { path: "tmp/x" });
    assert.equal(answer.result.isError, true);
    assert.match(textOf(answer), /delete:tmp\/x denied by delete:\*\*/);
  });

  await t.step(
    "a probe answered isError goes back to the host; nothing runs",
    async () => {
      const answer = await callTool(gate, "write_file", {
        path: "../out.txt",
        content: "x",
      });
      assert.equal(answer.result.isError, true);
      assert.match(textOf(answer), /leaves the root/);
      assert.equal(await exists(`${ws.dir}/out.txt`), false);
    },
  );

  await t.step(
    "an asked call is refused when the host cannot elicit, with how to allow it",
    async () => {
      const answer = await callTool(gate, "write_file", {
        path: "x.txt",
        content: "x",
      });
      assert.equal(answer.result.isError, true);
      const text = textOf(answer);
      assert.match(text, /needs the user's approval/);
      assert.match(text, /write:x\.txt \(no rule matches\)/);
      assert.match(text, /allow: \["write:x\.txt"\]/);
      const byRule = textOf(
        await callTool(gate, "write_file", {
          path: "drafts/d.md",
          content: "x",
        }),
      );
      assert.match(byRule, /asked by write:drafts\/\*\*/);
      assert.match(
        byRule,
        /ask rule write:drafts\/\*\* must be removed or narrowed/,
      );
      assert.equal(await exists(`${ws.root}/x.txt`), false);
    },
  );

  await t.step("an unprobed tool gets the unprobed decision", async () => {
    const answer = await callTool(gate, "hello", { name: "Ada" });
    assert.equal(textOf(answer), "Hello, Ada!");
  });

  await t.step("the host's own probe passes untouched", async () => {
    const answer = await callTool(gate, "write_file", {
      path: "secrets/key",
      content: "x",
    }, { "forge.permission_patterns": true });
    assert.deepEqual(answer.result._meta["forge.patterns"], [
      "write:secrets/key",
    ]);
    assert.equal(await exists(`${ws.root}/secrets`), false);
  });

  await t.step(
    "a probe flag on a tool without the probe is decided as a call",
    async () => {
      await using ws2 = await workspace(`unprobed: deny\n`);
      await using denying = await startGateProcess(
        ["--policy", ws2.policyPath],
        HELLO_COMMAND,
        { env: { HELLO_ROOT: ws2.root } },
      );
      const answer = await callTool(denying, "hello", { name: "x" }, {
        "forge.permission_patterns": true,
      });
      assert.equal(answer.result.isError, true);
      assert.match(textOf(answer), /unprobed setting is deny/);
      const notTrue = await callTool(gate, "write_file", {
        path: "secrets/key",
        content: "x",
      }, { "forge.permission_patterns": "yes" });
      assert.match(textOf(notTrue), /denied by write:secrets/);
      assert.equal(await exists(`${ws.root}/secrets`), false);
    },
  );

  await t.step(
    "a tool the server does not list is decided as unprobed, and the server answers it",
    async () => {
      await using ws3 = await workspace(
        `unprobed: ask\ntools: { missing_tool: allow }\n`,
      );
      await using asking = await startGateProcess(
        ["--policy", ws3.policyPath, "--audit", ws3.audit],
        HELLO_COMMAND,
        { env: { HELLO_ROOT: ws3.root } },
      );
      // Decided by unprobed (ask), which this host cannot be asked.
      const refused = await callTool(asking, "write_files", { path: "a" });
      assert.equal(refused.result.isError, true);
      // A misspelt name is corrected as the server itself would, never
      // answered with advice to allow the misspelling.
      assert.match(
        textOf(refused),
        /write_files is not in the server's tool list; did you mean "write_file"\?/,
      );
      assert.doesNotMatch(textOf(refused), /tools\.write_files/);
      // Let through by its tools entry: the server answers as it answers.
      const answer = await callTool(asking, "missing_tool", {});
      assert.deepEqual(answer.error, {
        code: -32602,
        message: 'Unknown tool: "missing_tool"',
      });
      // A listed tool without the probe is still asked about.
      const listed = await callTool(asking, "hello", { name: "x" });
      assert.match(textOf(listed), /unprobed setting is ask/);
      // The audit is written as calls are decided; the gate's exit flushes it.
      assert.equal((await asking.close()).code, 0);
      const records = (await Deno.readTextFile(ws3.audit)).trim().split("\n")
        .map((line) => JSON.parse(line));
      assert.deepEqual(
        records.map((r) => [r.tool, r.decision, r.outcome, r.rule, r.unlisted]),
        [
          ["write_files", "ask", "refused", "unprobed", true],
          ["missing_tool", "allow", "forwarded", "tools.missing_tool", true],
          ["hello", "ask", "refused", "unprobed", undefined],
        ],
      );
    },
  );

  await t.step("approvals the host sends are stripped", async () => {
    // An approval for the wrong pattern would make the server refuse; the
    // gate replaces it with what the policy approved.
    const answer = await callTool(gate, "write_file", {
      path: "notes/b.txt",
      content: "bb",
    }, { "forge.approved_patterns": ["write:secrets/key"] });
    assert.equal(textOf(answer), "Wrote 2 bytes to notes/b.txt");
  });

  await t.step(
    "the audit has one line per decided call and no argument value",
    async () => {
      const lines = (await Deno.readTextFile(ws.audit)).trim().split("\n");
      const records = lines.map((line) => JSON.parse(line));
      assert.deepEqual(
        records.map((r) => [r.tool, r.decision, r.outcome, r.rule]),
        [
          ["write_file", "allow", "forwarded", "write:notes/**"],
          ["write_file", "deny", "denied", "write:secrets/**"],
          ["delete_file", "deny", "denied", "delete:**"],
          ["write_file", "error", "probe-error", null],
          ["write_file", "ask", "refused", null],
          ["write_file", "ask", "refused", "write:drafts/**"],
          ["hello", "allow", "forwarded", "unprobed"],
          ["write_file", "deny", "denied", "write:secrets/**"],
          ["write_file", "allow", "forwarded", "write:notes/**"],
        ],
      );
      assert.deepEqual(records[1].patterns, ["write:secrets/key"]);
      for (const record of records) {
        assert.deepEqual(
          Object.keys(record),
          [
            "time",
            "tool",
            "patterns",
            "decision",
            "outcome",
            "rule",
            "elapsedMs",
            "prev",
          ],
        );
        assert.equal(new Date(record.time).toISOString(), record.time);
        assert.equal(typeof record.elapsedMs, "number");
      }
      const text = lines.join("\n");
      for (const value of ["SECRET-VALUE", "Ada", 'hi"', "../out.txt"]) {
        assert.equal(text.includes(value), false, `audit holds ${value}`);
      }
    },
  );

  await t.step("stdout carries JSON-RPC only", () => {
    for (const message of gate.messages) assert.equal(message.jsonrpc, "2.0");
    assert.deepEqual(gate.violations, []);
  });

  await t.step("host EOF closes the server and the gate exits 0", async () => {
    const status = await gate.close();
    assert.equal(status.code, 0);
  });
});

Deno.test("gate decides tools by name with the policy's tools entries", async (t) => {
  await using ws = await workspace(`
allow: ["write:notes/**", "delete:tmp/**"]
unprobed: deny
tools:
  hello: allow
  delete_file: deny
  write_file: ask
`);
  await Deno.mkdir(`${ws.root}/tmp`);
  await Deno.writeTextFile(`${ws.root}/tmp/x`, "keep");
  await using gate = await startGateProcess(
    ["--policy", ws.policyPath, "--audit", ws.audit],
    HELLO_COMMAND,
    { env: { HELLO_ROOT: ws.root }, capabilities: { elicitation: {} } },
  );

  await t.step(
    "an entry allows a tool without the probe over unprobed: deny",
    async () => {
      assert.equal(
        textOf(await callTool(gate, "hello", { name: "Ada" })),
        "Hello, Ada!",
      );
    },
  );

  await t.step(
    "deny refuses a probed tool whatever its patterns allow",
    async () => {
      const answer = await callTool(gate, "delete_file", { path: "tmp/x" });
      assert.equal(answer.result.isError, true);
      assert.equal(
        textOf(answer),
        "The gate's policy refuses every call of delete_file (tools.delete_file: deny). Nothing was run.",
      );
      assert.equal(await Deno.readTextFile(`${ws.root}/tmp/x`), "keep");
    },
  );

  await t.step(
    "ask asks before a call its patterns allow; accept runs it",
    async () => {
      const answered = callTool(gate, "write_file", {
        path: "notes/a.txt",
        content: "hi",
      });
      const request: Message = await gate.next((m) =>
        m.method === "elicitation/create"
      );
      assert.match(
        request.params.message,
        /- write:notes\/a\.txt: allowed by write:notes\/\*\*/,
      );
      assert.match(
        request.params.message,
        /- every call of write_file: asked by tools\.write_file/,
      );
      await gate.sendMessage({
        jsonrpc: "2.0",
        id: request.id,
        result: { action: "accept" },
      });
      assert.equal(textOf(await answered), "Wrote 2 bytes to notes/a.txt");
    },
  );

  await t.step("the audit names the entry that decided", async () => {
    assert.equal((await gate.close()).code, 0);
    const records = (await Deno.readTextFile(ws.audit)).trim().split("\n")
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      records.map((r) => [r.tool, r.patterns, r.decision, r.outcome, r.rule]),
      [
        ["hello", [], "allow", "forwarded", "tools.hello"],
        ["delete_file", [], "deny", "denied", "tools.delete_file"],
        [
          "write_file",
          ["write:notes/a.txt"],
          "ask",
          "approved",
          "tools.write_file",
        ],
      ],
    );
  });
});

/** The `_meta` a 2026-07-28 host sends on every request, in place of initialize. */
function era2026(capabilities: Message = {}): Message {
  return {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": capabilities,
    "io.modelcontextprotocol/clientInfo": { name: "host-2026", version: "1" },
  };
}

Deno.test("gate decides a 2026-07-28 host's calls, which carry their revision in _meta", async (t) => {
  await using ws = await workspace(POLICY);
  await using gate = await startGateProcess(
    ["--policy", ws.policyPath],
    HELLO_COMMAND,
    { env: { HELLO_ROOT: ws.root }, capabilities: null },
  );
  const meta = era2026();

  await t.step(
    "an allowed call is probed and forwarded in the host's revision",
    async () => {
      // The host never listed the tools: the gate lists them itself, in the
      // same revision, and so does its probe.
      const answer = await callTool(gate, "write_file", {
        path: "notes/a.txt",
        content: "hi",
      }, meta);
      assert.equal(textOf(answer), "Wrote 2 bytes to notes/a.txt");
      assert.equal(answer.result.resultType, "complete");
      assert.equal(await Deno.readTextFile(`${ws.root}/notes/a.txt`), "hi");
    },
  );

  await t.step("the gate's own refusals say they are complete", async () => {
    const denied = await callTool(gate, "write_file", {
      path: "secrets/k",
      content: "x",
    }, meta);
    assert.equal(denied.result.isError, true);
    assert.equal(denied.result.resultType, "complete");
    assert.match(textOf(denied), /denied by write:secrets/);
    const asked = await callTool(gate, "write_file", {
      path: "drafts/d.md",
      content: "x",
    }, meta);
    assert.equal(asked.result.resultType, "complete");
    assert.match(textOf(asked), /did not declare the elicitation capability/);
    assert.equal(await exists(`${ws.root}/secrets`), false);
  });

  await t.step(
    "a probe answered isError is passed back as the server said it",
    async () => {
      const answer = await callTool(gate, "write_file", {
        path: "../out.txt",
        content: "x",
      }, meta);
      assert.equal(answer.result.isError, true);
      assert.equal(answer.result.resultType, "complete");
      assert.match(textOf(answer), /leaves the root/);
    },
  );
});

Deno.test("gate asks a 2026-07-28 host in rounds: an input-required result, then the call again with the answer", async (t) => {
  await using ws = await workspace(POLICY);
  await using gate = await startGateProcess(
    ["--policy", ws.policyPath, "--audit", ws.audit],
    HELLO_COMMAND,
    { env: { HELLO_ROOT: ws.root }, capabilities: null },
  );
  const meta = era2026({ elicitation: {} });
  const KEY = "forge-gate/approval";
  const args = { path: "drafts/a.md", content: "# A" };
  const again = (
    state: unknown,
    reply: Message,
    changed: Message = args,
  ) =>
    rpc(gate, "tools/call", {
      name: "write_file",
      arguments: changed,
      inputResponses: { [KEY]: reply },
      requestState: state,
      _meta: meta,
    });
  let asked: Message;

  await t.step(
    "the question comes back as the call's input-required result",
    async () => {
      asked = (await callTool(gate, "write_file", args, meta)).result;
      assert.equal(asked.resultType, "input_required");
      assert.deepEqual(Object.keys(asked.inputRequests), [KEY]);
      const request = asked.inputRequests[KEY];
      assert.equal(request.method, "elicitation/create");
      assert.match(request.params.message, /"write_file"/);
      assert.match(
        request.params.message,
        /write:drafts\/a\.md: asked by write:drafts\/\*\*/,
      );
      assert.match(
        request.params.message,
        /\nArguments: \{"path":"drafts\/a\.md"/,
      );
      assert.equal(typeof asked.requestState, "string");
      assert.equal(await exists(`${ws.root}/drafts`), false);
    },
  );

  await t.step(
    "an answer for other arguments is asked again; one with a forged state is refused",
    async () => {
      const changed = await again(asked.requestState, { action: "accept" }, {
        ...args,
        content: "other",
      });
      assert.equal(changed.result.resultType, "input_required");
      const forged = await again(`${asked.requestState}x`, {
        action: "accept",
      });
      assert.equal(forged.error?.code, -32602);
      assert.match(
        forged.error.message,
        /requestState: the gate cannot verify it/,
      );
      assert.equal(await exists(`${ws.root}/drafts`), false);
    },
  );

  await t.step("decline refuses the call", async () => {
    const declined = await again(asked.requestState, { action: "decline" });
    assert.equal(declined.result.isError, true);
    assert.equal(declined.result.resultType, "complete");
    assert.match(textOf(declined), /The user declined this call of write_file/);
    assert.equal(await exists(`${ws.root}/drafts`), false);
  });

  await t.step("an answered state counts once: it is asked again", async () => {
    const spent = await again(asked.requestState, { action: "accept" });
    assert.equal(spent.result.resultType, "input_required");
    assert.equal(await exists(`${ws.root}/drafts`), false);
    asked = spent.result;
  });

  await t.step(
    "accept runs it, with neither the gate's answer nor its state",
    async () => {
      const accepted = await again(asked.requestState, { action: "accept" });
      assert.equal(textOf(accepted), "Wrote 3 bytes to drafts/a.md");
      assert.equal(accepted.result.resultType, "complete");
      assert.equal(await Deno.readTextFile(`${ws.root}/drafts/a.md`), "# A");
    },
  );

  await t.step(
    "the same approval sent again is asked again, never run twice",
    async () => {
      await Deno.remove(`${ws.root}/drafts/a.md`);
      const replay = await again(asked.requestState, { action: "accept" });
      assert.equal(replay.result.resultType, "input_required");
      assert.equal(await exists(`${ws.root}/drafts/a.md`), false);
    },
  );

  await t.step("the audit has the answered rounds only", async () => {
    assert.equal((await gate.close()).code, 0);
    const records = (await Deno.readTextFile(ws.audit)).trim().split("\n")
      .map((line) => JSON.parse(line));
    assert.deepEqual(records.map((r) => [r.outcome, r.patterns]), [
      ["invalid-params", []],
      ["declined", ["write:drafts/a.md"]],
      ["approved", ["write:drafts/a.md"]],
    ]);
  });
});

Deno.test("gate's round and a 2026-07-28 server's own round of one call go through together", async () => {
  await using ws = await workspace(`unprobed: ask\n`);
  const everything =
    new URL("../../examples/everything/main.ts", import.meta.url)
      .pathname;
  await using gate = await startGateProcess(
    ["--policy", ws.policyPath],
    [Deno.execPath(), "run", "-A", everything],
    { capabilities: null },
  );
  const meta = era2026({ elicitation: {} });
  const KEY = "forge-gate/approval";
  const call = (extra: Message = {}) =>
    rpc(gate, "tools/call", {
      name: "test_input_required_result_elicitation",
      arguments: {},
      ...extra,
      _meta: meta,
    });
  // The gate asks first; the approved call reaches the server, which asks
  // for the user's name in a round of its own.
  const first = (await call()).result;
  assert.deepEqual(Object.keys(first.inputRequests), [KEY]);
  const server = (await call({
    inputResponses: { [KEY]: { action: "accept" } },
    requestState: first.requestState,
  })).result;
  assert.deepEqual(Object.keys(server.inputRequests), ["user_name"]);
  // The answer to the server's round is a new call, which the gate asks
  // about again, keeping the server's state and answer for the server.
  const named = {
    inputResponses: {
      user_name: { action: "accept", content: { name: "Ada" } },
    },
    requestState: server.requestState,
  };
  const second = (await call(named)).result;
  assert.deepEqual(Object.keys(second.inputRequests), [KEY]);
  const done = await call({
    inputResponses: { [KEY]: { action: "accept" } },
    requestState: second.requestState,
  });
  assert.equal(textOf(done), "Hello, Ada!");
  assert.equal(done.result.resultType, "complete");
});

Deno.test("gate asks a host that can elicit, and follows the answer", async (t) => {
  await using ws = await workspace(POLICY);
  await using gate = await startGateProcess(
    ["--policy", ws.policyPath, "--audit", ws.audit],
    HELLO_COMMAND,
    { env: { HELLO_ROOT: ws.root }, capabilities: { elicitation: {} } },
  );
  let asked = 0;
  async function answerNextElicitation(action: string): Promise<Message> {
    const index = asked++;
    const request: Message = await gate.next((m) =>
      m.method === "elicitation/create" &&
      gate.messages.filter((x) => x.method === "elicitation/create")
          .indexOf(m) === index
    );
    await gate.sendMessage({
      jsonrpc: "2.0",
      id: request.id,
      result: { action },
    });
    return request;
  }

  await t.step("accept forwards the call", async () => {
    const answered = callTool(
      gate,
      "write_file",
      { path: "drafts/a.md", content: "# A" },
      undefined,
      "call-1",
    );
    const request = await answerNextElicitation("accept");
    assert.match(request.id, /^forge-gate:/);
    assert.match(request.params.message, /"write_file"/);
    assert.match(
      request.params.message,
      /write:drafts\/a\.md: asked by write:drafts\/\*\*/,
    );
    assert.equal(request.params.requestedSchema.type, "object");
    assert.match(
      request.params.message,
      /\nArguments: \{"path":"drafts\/a\.md","content":"# A"\}$/,
    );
    const answer = await answered;
    assert.equal(textOf(answer), "Wrote 3 bytes to drafts/a.md");
  });

  await t.step("long arguments are shown cut, with their length", async () => {
    const args = { path: "drafts/long.md", content: "x".repeat(3000) };
    const answered = callTool(gate, "write_file", args);
    const request = await answerNextElicitation("decline");
    const shown = request.params.message.split("\nArguments: ")[1];
    const all = JSON.stringify(args);
    assert.equal(
      shown,
      `${all.slice(0, 1000)}… (${all.length} characters in all)`,
    );
    assert.match(textOf(await answered), /The user declined/);
  });

  await t.step(
    "a target swapped for a symlink while the user is asked is refused by the server",
    async () => {
      await Deno.mkdir(`${ws.root}/drafts/swap`, { recursive: true });
      await Deno.mkdir(`${ws.root}/secrets`);
      const answered = callTool(gate, "write_file", {
        path: "drafts/swap/key",
        content: "x",
      });
      const index = asked++;
      const request: Message = await gate.next((m) =>
        m.method === "elicitation/create" &&
        gate.messages.filter((x) => x.method === "elicitation/create")
            .indexOf(m) === index
      );
      assert.match(request.params.message, /write:drafts\/swap\/key/);
      await Deno.remove(`${ws.root}/drafts/swap`);
      await Deno.symlink(`${ws.root}/secrets`, `${ws.root}/drafts/swap`);
      await gate.sendMessage({
        jsonrpc: "2.0",
        id: request.id,
        result: { action: "accept" },
      });
      const answer = await answered;
      assert.equal(answer.result.isError, true, JSON.stringify(answer));
      assert.match(textOf(answer), /write:secrets\/key/);
      assert.equal(await exists(`${ws.root}/secrets/key`), false);
    },
  );

  await t.step("decline refuses", async () => {
    const answered = callTool(gate, "write_file", {
      path: "drafts/b.md",
      content: "b",
    });
    await answerNextElicitation("decline");
    const answer = await answered;
    assert.equal(answer.result.isError, true);
    assert.match(
      textOf(answer),
      /The user declined this call of write_file \(write:drafts\/b\.md\)/,
    );
    assert.equal(await exists(`${ws.root}/drafts/b.md`), false);
  });

  await t.step("cancel refuses", async () => {
    const answered = callTool(gate, "write_file", {
      path: "drafts/c.md",
      content: "c",
    });
    await answerNextElicitation("cancel");
    const answer = await answered;
    assert.equal(answer.result.isError, true);
    assert.match(textOf(answer), /did not approve/);
  });

  await t.step(
    "cancelling the call cancels the elicitation and answers nothing",
    async () => {
      callTool(
        gate,
        "write_file",
        { path: "drafts/d.md", content: "d" },
        undefined,
        "doomed",
      ).catch(() => {});
      const index = asked++;
      const request: Message = await gate.next((m) =>
        m.method === "elicitation/create" &&
        gate.messages.filter((x) => x.method === "elicitation/create").indexOf(
            m,
          ) === index
      );
      await gate.sendMessage({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: "doomed", reason: "user pressed stop" },
      });
      const cancel: Message = await gate.next((m) =>
        m.method === "notifications/cancelled" &&
        m.params?.requestId === request.id
      );
      assert.equal(cancel.params.reason, "user pressed stop");
      // A late answer to the cancelled elicitation changes nothing.
      await gate.sendMessage({
        jsonrpc: "2.0",
        id: request.id,
        result: { action: "accept" },
      });
      const after = await callTool(gate, "hello", { name: "x" });
      assert.equal(textOf(after), "Hello, x!");
      assert.equal(gate.messages.some((m) => m.id === "doomed"), false);
      assert.equal(await exists(`${ws.root}/drafts/d.md`), false);
    },
  );

  await t.step("the audit records each outcome", async () => {
    await gate.close();
    const records = (await Deno.readTextFile(ws.audit)).trim().split("\n")
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      records.map((r) => r.outcome),
      [
        "approved",
        "declined",
        "approved",
        "declined",
        "refused",
        "cancelled",
        "forwarded",
      ],
    );
  });
});

Deno.test("gate keeps ids straight and sends the approved patterns", async (t) => {
  await using ws = await workspace(
    `allow: ["x-fake:**", "write:**"]\nunprobed: allow\n`,
  );
  await using gate = await startGateProcess(
    ["--policy", ws.policyPath],
    FAKE_COMMAND,
  );

  await t.step(
    "a call of a tool not yet listed is probed (the gate lists the tools itself)",
    async () => {
      const answer = await callTool(gate, "probed", { patterns: ["write:a"] });
      assert.deepEqual(JSON.parse(textOf(answer)), {
        "forge.approved_patterns": ["x-fake:always", "write:a"],
      });
    },
  );

  await t.step(
    "host ids in the gate's own id space do not collide",
    async () => {
      const [a, b] = await Promise.all([
        callTool(
          gate,
          "probed",
          { patterns: ["write:b"] },
          undefined,
          "forge-gate:1",
        ),
        callTool(gate, "plain", {}, undefined, "forge-gate:2"),
      ]);
      assert.equal(a.id, "forge-gate:1");
      assert.deepEqual(JSON.parse(textOf(a))["forge.approved_patterns"], [
        "x-fake:always",
        "write:b",
      ]);
      assert.equal(b.id, "forge-gate:2");
      assert.deepEqual(JSON.parse(textOf(b)), {});
      const numeric = await callTool(gate, "plain", {}, undefined, 1);
      assert.equal(numeric.id, 1);
      const seen = JSON.parse(textOf(await callTool(gate, "seen")))
        .seen as unknown[];
      // Numbers pass as they are; strings the gate owns are rewritten.
      assert.ok(seen.includes(1));
      assert.equal(seen.filter((id) => id === "forge-gate:1").length, 1); // the gate's own first request
    },
  );

  await t.step(
    "a server request under a gate-owned id reaches the host rewritten and its answer gets back",
    async () => {
      const answered = callTool(gate, "ask_host", {}, undefined, 77);
      const request: Message = await gate.next((m) =>
        m.method === "roots/list"
      );
      assert.notEqual(request.id, "forge-gate:1");
      await gate.sendMessage({
        jsonrpc: "2.0",
        id: request.id,
        result: { roots: [{ uri: "file:///r" }] },
      });
      const answer = await answered;
      const got = JSON.parse(textOf(answer));
      assert.equal(got.id, "forge-gate:1");
      assert.deepEqual(got.result.roots, [{ uri: "file:///r" }]);
    },
  );

  await t.step(
    "an unprobed call carries no approvals, and a smuggled one is stripped",
    async () => {
      const answer = await callTool(gate, "plain", {}, {
        "forge.approved_patterns": ["write:anything"],
        progressToken: "p1",
      });
      assert.deepEqual(JSON.parse(textOf(answer)), { progressToken: "p1" });
    },
  );

  await t.step(
    "cancelling a call waiting on its probe cancels the probe",
    async () => {
      callTool(gate, "wait", { announce: true }, undefined, "w1")
        .catch(() => {});
      // The fake server says when the probe reached it, and when its
      // cancellation did.
      const said = (text: RegExp) =>
        gate.next((m) =>
          m.method === "notifications/message" &&
          text.test(String(m.params?.data))
        );
      const probe = await said(/^probe of wait: /);
      await gate.sendMessage({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: "w1" },
      });
      const probeId = String(probe.params?.data).split(": ")[1];
      await said(new RegExp(`^cancelled: ${probeId}$`));
      const { cancelled } = JSON.parse(textOf(await callTool(gate, "seen")));
      assert.equal(cancelled.length, 1);
      assert.match(cancelled[0], /^forge-gate:\d+$/);
      assert.equal(gate.messages.some((m) => m.id === "w1"), false);
    },
  );

  await t.step(
    "progress passes to the host under the host's token",
    async () => {
      const answer = await callTool(gate, "progress", {}, {
        progressToken: "tok",
      });
      assert.equal(answer.error, undefined);
      const progress = await gate.next((m) =>
        m.method === "notifications/progress"
      );
      assert.deepEqual(progress.params, {
        progressToken: "tok",
        progress: 1,
        total: 2,
      });
    },
  );

  await t.step(
    "a malformed line is answered and the gate keeps serving",
    async () => {
      await gate.send("{not json\n");
      const parseError = await gate.next((m) => m.error?.code === -32700);
      assert.equal(parseError.id, null);
      assert.equal((await callTool(gate, "plain")).error, undefined);
    },
  );

  await t.step(
    "tools/list_changed makes the gate learn the tools again",
    async () => {
      const before = await callTool(gate, "plain", {}, undefined, "before");
      assert.deepEqual(JSON.parse(textOf(before)), {});
      await callTool(gate, "flip");
      await gate.next((m) => m.method === "notifications/tools/list_changed");
      const after = await callTool(gate, "plain", { patterns: ["write:z"] });
      assert.deepEqual(JSON.parse(textOf(after)), {
        "forge.approved_patterns": ["x-fake:always", "write:z"],
      });
    },
  );

  await t.step("unknown methods and notifications pass both ways", async () => {
    const answer = await rpc(gate, "resources/list");
    assert.equal(answer.error.code, -32601);
  });
});

Deno.test("gate answers pending calls when the server crashes, and exits non-zero", async () => {
  await using ws = await workspace(`unprobed: allow\n`);
  await using gate = await startGateProcess(
    ["--policy", ws.policyPath],
    FAKE_COMMAND,
  );
  await rpc(gate, "tools/list");
  const pending = callTool(gate, "wait", { patterns: [] }, {
    "forge.permission_patterns": true,
  }, "p");
  const crash = await callTool(gate, "crash", {}, undefined, "c");
  assert.equal(crash.error.code, -32000);
  assert.match(crash.error.message, /exited with status 3/);
  assert.equal((await pending).error.code, -32000);
  const status = await gate.close();
  assert.equal(status.code, 3);
  assert.match(gate.stderr, /forge gate: the server exited with status 3/);
});

Deno.test("gate refuses a tools/call whose name or arguments are malformed, and forwards nothing", async () => {
  await using ws = await workspace(`unprobed: deny\n`);
  await using gate = await startGateProcess(
    ["--policy", ws.policyPath, "--audit", ws.audit],
    FAKE_COMMAND,
  );
  const bad: [string, Message, string][] = [
    ["n1", { name: ["plain"] }, "name: expected a string, got array"],
    ["n2", { name: 7 }, "name: expected a string, got number"],
    ["n3", { name: null }, "name: expected a string, got null"],
    ["n4", {}, "name: missing: expected the tool's name as a string"],
    [
      "n5",
      { name: "plain", arguments: ["a"] },
      "arguments: expected an object, got array",
    ],
    [
      "n6",
      { name: "plain", arguments: "a" },
      "arguments: expected an object, got string",
    ],
  ];
  for (const [id, params, problem] of bad) {
    const answer = await rpc(gate, "tools/call", params, id);
    assert.deepEqual(answer.error, {
      code: -32602,
      message: `Invalid params for tools/call: ${problem}`,
    }, id);
  }
  // The policy's tools entry allows "seen", which reports what reached the server.
  await writeAtomic(ws.policyPath, `unprobed: deny\ntools: { seen: allow }\n`);
  await gate.waitForStderr(/policy reloaded/);
  const { seen } = JSON.parse(textOf(await callTool(gate, "seen")));
  for (const [id] of bad) assert.equal(seen.includes(id), false, id);
  assert.equal((await gate.close()).code, 0);
  const records = (await Deno.readTextFile(ws.audit)).trim().split("\n")
    .map((line) => JSON.parse(line));
  assert.deepEqual(
    records.slice(0, 6).map((r) => [r.tool, r.decision, r.outcome]),
    [
      [null, "error", "invalid-params"],
      [null, "error", "invalid-params"],
      [null, "error", "invalid-params"],
      [null, "error", "invalid-params"],
      ["plain", "error", "invalid-params"],
      ["plain", "error", "invalid-params"],
    ],
  );
});

Deno.test("gate drops a call the host cancels while it is decided: never forwarded, never answered, audited", async () => {
  await using ws = await workspace(`allow: ["x-fake:**"]\nunprobed: allow\n`);
  await using gate = await startGateProcess(
    ["--policy", ws.policyPath, "--audit", ws.audit],
    FAKE_COMMAND,
  );
  const said = (text: RegExp) =>
    gate.next((m) =>
      m.method === "notifications/message" &&
      text.test(String(m.params?.data))
    );
  callTool(gate, "wait", { announce: true }, undefined, "w1").catch(() => {});
  const probe = await said(/^probe of wait: /);
  await gate.sendMessage({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: "w1", reason: "stop" },
  });
  const probeId = String(probe.params?.data).split(": ")[1];
  await said(new RegExp(`^cancelled: ${probeId}$`));
  const { seen, cancelled } = JSON.parse(textOf(await callTool(gate, "seen")));
  // The server saw the gate's probe and its cancellation, never the call.
  assert.equal(seen.includes("w1"), false);
  assert.deepEqual(cancelled, [probeId]);
  assert.equal((await gate.close()).code, 0);
  assert.equal(gate.messages.some((m) => m.id === "w1"), false);
  const records = (await Deno.readTextFile(ws.audit)).trim().split("\n")
    .map((line) => JSON.parse(line));
  assert.deepEqual(
    records.map((r) => [r.tool, r.decision, r.outcome]),
    [["wait", "error", "cancelled"], ["seen", "allow", "forwarded"]],
  );
});
