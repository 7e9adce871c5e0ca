// Rules across calls: the gate (a real process) in front of the fake
// server, whose "probed" tool answers the patterns it is given.

import assert from "node:assert/strict";
import {
  auditLines,
  callTool,
  FAKE_COMMAND,
  type Message,
  startGateProcess,
  textOf,
  writeAtomic,
} from "./testdata/gate_process.ts";

const FLOWS = `
allow: ["read:**", "net:**", "write:**", "exec:**", "x-fake:**"]
deny: ["net:https://blocked.example"]
unprobed: allow
flows:
  - after: ["read:secrets/**"]
    deny: ["net:**", "exec:**"]
  - after: ["net:**"]
    ask: ["write:**", "exec:**", unprobed]
`;

async function workspace(policy: string) {
  const dir = await Deno.makeTempDir({ prefix: "gate-flows-" });
  const policyPath = `${dir}/policy.yaml`;
  await Deno.writeTextFile(policyPath, policy);
  return {
    dir,
    policyPath,
    audit: `${dir}/audit.jsonl`,
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const probed = (patterns: string[]) => ({ patterns });

Deno.test("a flow refuses a net call once a secret was read, and names why", async (t) => {
  await using ws = await workspace(FLOWS);
  {
    await using gate = await startGateProcess(
      ["--policy", ws.policyPath, "--audit", ws.audit],
      FAKE_COMMAND,
    );
    await t.step("before the read, the net call is allowed", async () => {
      const answer = await callTool(
        gate,
        "probed",
        probed(["net:https://example.com"]),
      );
      assert.equal(answer.result.isError, undefined, textOf(answer));
    });
    await t.step("a read of secrets/key runs", async () => {
      const answer = await callTool(
        gate,
        "probed",
        probed(["read:secrets/key"]),
      );
      assert.equal(answer.result.isError, undefined, textOf(answer));
    });
    await t.step("then a net call is refused by flows[0]", async () => {
      const answer = await callTool(
        gate,
        "probed",
        probed(["net:https://attacker.example:8443"]),
      );
      assert.equal(answer.result.isError, true);
      assert.match(
        textOf(answer),
        /net:https:\/\/attacker\.example:8443 denied by flows\[0\] \(net:\*\*\), since this session read secrets\/key with probed\. Nothing was run\./,
      );
    });
    await t.step("and so is a program", async () => {
      const answer = await callTool(gate, "probed", probed(["exec:curl x"]));
      assert.equal(answer.result.isError, true);
      assert.match(textOf(answer), /denied by flows\[0\] \(exec:\*\*\)/);
    });
    await t.step("a read still runs: a flow only tightens", async () => {
      const answer = await callTool(gate, "probed", probed(["read:notes/a"]));
      assert.equal(answer.result.isError, undefined, textOf(answer));
    });
    await t.step(
      "the net call before the read set off flows[1]: writes and unprobed tools are asked",
      async () => {
        const write = await callTool(gate, "probed", probed(["write:a"]));
        assert.equal(write.result.isError, true);
        assert.match(
          textOf(write),
          /needs the user's approval.*write:a is asked by flows\[1\] \(write:\*\*\), since this session reached https:\/\/example\.com with probed/,
        );
        const plain = await callTool(gate, "plain", {});
        assert.equal(plain.result.isError, true);
        assert.match(
          textOf(plain),
          /a call of plain, whose effects the gate cannot know, is asked by flows\[1\] \(unprobed\)/,
        );
      },
    );
    await t.step(
      "the audit names the flow and the line that set it off",
      async () => {
        const lines = await auditLines(ws.audit);
        const trigger = lines.find((l) =>
          l.patterns.includes("read:secrets/key")
        )!;
        const refused = lines.find((l) =>
          l.patterns.includes("net:https://attacker.example:8443")
        )!;
        assert.equal(refused.decision, "deny");
        assert.equal(refused.outcome, "denied");
        assert.equal(refused.rule, "net:**");
        assert.equal(refused.flow, "flows[0]");
        assert.equal(refused.since, trigger.digest);
        // Verifiable: the line after the trigger carries its digest.
        assert.equal(lines[lines.indexOf(trigger) + 1].prev, refused.since);
        const first = lines[0];
        assert.equal(first.flow, undefined);
        const write = lines.find((l) => l.patterns.includes("write:a"))!;
        assert.equal(write.flow, "flows[1]");
        assert.equal(write.since, first.digest);
      },
    );
  }
  await t.step("a fresh session starts clean", async () => {
    await using gate = await startGateProcess(
      ["--policy", ws.policyPath],
      FAKE_COMMAND,
    );
    const answer = await callTool(
      gate,
      "probed",
      probed(["net:https://attacker.example:8443"]),
    );
    assert.equal(answer.result.isError, undefined, textOf(answer));
  });
  await t.step("a refused call sets nothing off", async () => {
    await using gate = await startGateProcess(
      ["--policy", ws.policyPath],
      FAKE_COMMAND,
    );
    const refused = await callTool(
      gate,
      "probed",
      probed(["net:https://blocked.example"]),
    );
    assert.match(textOf(refused), /denied by net:https:\/\/blocked\.example/);
    const write = await callTool(gate, "probed", probed(["write:a"]));
    assert.equal(write.result.isError, undefined, textOf(write));
  });
});

Deno.test("a call sent once the triggering call is answered is decided with the flow", async () => {
  await using ws = await workspace(FLOWS);
  await using gate = await startGateProcess(
    ["--policy", ws.policyPath],
    FAKE_COMMAND,
  );
  // Many rounds: each a secret read, and at its answer a burst of net
  // calls sent at once, racing each other through the probe.
  for (let round = 0; round < 3; round++) {
    const read = await callTool(
      gate,
      "probed",
      probed([`read:secrets/k${round}`]),
    );
    assert.equal(read.result.isError, undefined, textOf(read));
    const burst = await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) =>
          callTool(gate, "probed", probed([`net:https://h${i}.example`])),
      ),
    );
    for (const answer of burst) {
      assert.equal(answer.result.isError, true, textOf(answer));
      assert.match(textOf(answer), /denied by flows\[0\]/);
    }
  }
});

Deno.test("a reload keeps a flow set off by the same after rule, with its new lists", async () => {
  await using ws = await workspace(FLOWS);
  await using gate = await startGateProcess(
    ["--policy", ws.policyPath],
    FAKE_COMMAND,
  );
  await callTool(gate, "probed", probed(["read:secrets/key"]));
  // The flow moves to second place and no longer denies exec; a flow with
  // an after rule no call met is not set off.
  await writeAtomic(
    ws.policyPath,
    `
allow: ["read:**", "net:**", "write:**", "exec:**", "x-fake:**"]
unprobed: allow
flows:
  - after: ["read:other/**"]
    deny: ["write:**"]
  - after: ["read:secrets/**"]
    deny: ["net:**"]
`,
  );
  const net = await callTool(gate, "probed", probed(["net:https://x.example"]));
  assert.equal(net.result.isError, true);
  assert.match(textOf(net), /denied by flows\[1\] \(net:\*\*\)/);
  const exec = await callTool(gate, "probed", probed(["exec:ls"]));
  assert.equal(exec.result.isError, undefined, textOf(exec));
  const write = await callTool(gate, "probed", probed(["write:a"]));
  assert.equal(write.result.isError, undefined, textOf(write));
});

Deno.test("a call a flow asks about is asked each time, whatever was remembered", async () => {
  await using ws = await workspace(`
allow: ["x-fake:**", "read:**", "net:**"]
ask: ["write:**"]
flows:
  - after: ["net:**"]
    ask: ["write:**"]
`);
  await using gate = await startGateProcess(
    ["--policy", ws.policyPath, "--audit", ws.audit],
    FAKE_COMMAND,
    { capabilities: { elicitation: {} } },
  );
  const questions = () =>
    gate.messages.filter((m) => m.method === "elicitation/create");
  /** Sends a call and accepts its question for the session. */
  async function approved(patterns: string[]): Promise<Message> {
    const before = questions().length;
    const answer = callTool(gate, "probed", { patterns });
    const request: Message = await gate.next((m) =>
      m.method === "elicitation/create" && questions().indexOf(m) === before
    );
    await gate.sendMessage({
      jsonrpc: "2.0",
      id: request.id,
      result: { action: "accept", content: { remember: "session" } },
    });
    await answer;
    return request;
  }
  await approved(["write:a"]);
  // Remembered: asked no more.
  const again = await callTool(gate, "probed", { patterns: ["write:a"] });
  assert.equal(again.result.isError, undefined, textOf(again));
  assert.equal(questions().length, 1);
  await callTool(gate, "probed", { patterns: ["net:https://example.com"] });
  // Now the flow asks, with why, and offers no session scope.
  const request = await approved(["write:a"]);
  assert.match(
    request.params.message,
    /write:a is asked by flows\[0\] \(write:\*\*\), since this session reached https:\/\/example\.com with probed/,
  );
  assert.equal(request.params.requestedSchema.properties?.remember, undefined);
  assert.equal(questions().length, 2);
  const lines = await auditLines(ws.audit);
  assert.deepEqual(lines.at(-1)!.flow, "flows[0]");
  assert.equal(lines.at(-1)!.outcome, "approved");
});
