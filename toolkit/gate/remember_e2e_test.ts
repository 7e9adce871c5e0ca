// Approvals that last: the user accepts a call's patterns for the rest of
// the session, and later calls whose every pattern was remembered run
// without asking, still decided by the policy first. The gate in front of
// the fake server, whose "probed" tool reports the patterns it is given.

import assert from "node:assert/strict";
import {
  auditLines,
  callTool,
  FAKE_COMMAND,
  type Message,
  rpc,
  startGateProcess,
  textOf,
  writeAtomic,
} from "./testdata/gate_process.ts";
import { ISSUER, signingKey, signToken } from "../http/_jwt_test_helpers.ts";
import { authWorkspace } from "./testdata/auth_workspace.ts";
import { gateInstance } from "./testdata/gate_instance.ts";
import { stateless } from "./testdata/stateless_call.ts";

const KEY = "forge-gate/approval";
const RESOURCE = "https://gate.example.com/mcp";
const POLICY = `
allow: ["x-fake:**"]
ask: ["write:**"]
unprobed: ask
`;

async function workspace(policy: string) {
  const dir = await Deno.makeTempDir({ prefix: "gate-remember-" });
  const policyPath = `${dir}/policy.yaml`;
  await Deno.writeTextFile(policyPath, policy);
  return {
    policyPath,
    audit: `${dir}/audit.jsonl`,
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** The approved patterns the fake server received with a call it ran. */
function approvedOf(answer: Message): unknown {
  return JSON.parse(textOf(answer))["forge.approved_patterns"];
}

Deno.test("gate remembers patterns the user approves for the session (2025 host)", async (t) => {
  await using ws = await workspace(POLICY);
  await using gate = await startGateProcess(
    ["--policy", ws.policyPath, "--audit", ws.audit],
    FAKE_COMMAND,
    { capabilities: { elicitation: {} } },
  );
  let asked = 0;
  /** Answers the next elicitation with `result`; resolves with its request. */
  async function answerNext(result: Message): Promise<Message> {
    const index = asked++;
    const request: Message = await gate.next((m) =>
      m.method === "elicitation/create" &&
      gate.messages.filter((x) => x.method === "elicitation/create")
          .indexOf(m) === index
    );
    await gate.sendMessage({ jsonrpc: "2.0", id: request.id, result });
    return request;
  }
  const elicitations = () =>
    gate.messages.filter((m) => m.method === "elicitation/create").length;
  const probed = (patterns: string[]) => callTool(gate, "probed", { patterns });

  await t.step(
    "the form offers this call only (the default) or the session",
    async () => {
      const answered = probed(["write:a"]);
      const request = await answerNext({
        action: "accept",
        content: { remember: "session" },
      });
      const remember = request.params.requestedSchema.properties.remember;
      assert.equal(remember.type, "string");
      assert.deepEqual(remember.enum, ["call", "session"]);
      assert.equal(remember.default, "call");
      assert.equal(remember.enumNames.length, 2);
      assert.deepEqual(approvedOf(await answered), [
        "x-fake:always",
        "write:a",
      ]);
    },
  );

  await t.step("the same patterns again run without asking", async () => {
    const before = elicitations();
    const again = await probed(["write:a"]);
    assert.deepEqual(approvedOf(again), ["x-fake:always", "write:a"]);
    assert.equal(elicitations(), before);
  });

  await t.step("one pattern more is asked", async () => {
    const answered = probed(["write:a", "write:b"]);
    const request = await answerNext({ action: "decline" });
    assert.match(request.params.message, /write:b/);
    assert.match(textOf(await answered), /The user declined/);
  });

  await t.step("a pattern that only a glob would cover is asked", async () => {
    const answered = probed(["write:a/b"]);
    await answerNext({ action: "decline" });
    assert.match(textOf(await answered), /The user declined/);
  });

  await t.step("this call only is asked again next time", async () => {
    const first = probed(["write:c"]);
    await answerNext({ action: "accept", content: { remember: "call" } });
    assert.deepEqual(approvedOf(await first), ["x-fake:always", "write:c"]);
    const second = probed(["write:c"]);
    await answerNext({ action: "accept" });
    assert.deepEqual(approvedOf(await second), ["x-fake:always", "write:c"]);
  });

  await t.step(
    "a tool without patterns is not offered the choice, nor remembered",
    async () => {
      const first = callTool(gate, "plain");
      const request = await answerNext({
        action: "accept",
        content: { remember: "session" },
      });
      assert.deepEqual(request.params.requestedSchema.properties, {});
      await first;
      const second = callTool(gate, "plain");
      await answerNext({ action: "accept" });
      await second;
    },
  );

  await t.step(
    "a deny rule added by a reload beats the remembered approval",
    async () => {
      await writeAtomic(
        ws.policyPath,
        `${POLICY}deny: ["write:a"]\ntools: { probed: ask }\n`,
      );
      await gate.waitForStderr(/policy reloaded/);
      const before = elicitations();
      const denied = await probed(["write:a"]);
      assert.equal(denied.result.isError, true);
      assert.match(textOf(denied), /write:a denied by write:a/);
      assert.equal(elicitations(), before);
    },
  );

  await t.step(
    "a tools entry that asks before every call is asked, remembered or not",
    async () => {
      // x-fake:always alone was remembered with the first approval.
      const answered = probed([]);
      const request = await answerNext({ action: "decline" });
      assert.deepEqual(request.params.requestedSchema.properties, {});
      assert.match(textOf(await answered), /The user declined/);
    },
  );

  await t.step(
    "the audit records the scope and the remembered calls",
    async () => {
      await gate.close();
      const lines = await auditLines(ws.audit);
      // A custom pattern is recorded as its digest (_redact.ts).
      const always = "x-fake:[redacted sha256:75c088572910bf9d]";
      assert.deepEqual(
        lines.map((r) => [r.tool, r.patterns, r.outcome, r.rule, r.remember]),
        [
          [
            "probed",
            [always, "write:a"],
            "approved",
            "write:**",
            "session",
          ],
          [
            "probed",
            [always, "write:a"],
            "approved",
            "remembered",
            undefined,
          ],
          [
            "probed",
            [always, "write:a", "write:b"],
            "declined",
            "write:**",
            undefined,
          ],
          [
            "probed",
            [always, "write:a/b"],
            "declined",
            "write:**",
            undefined,
          ],
          [
            "probed",
            [always, "write:c"],
            "approved",
            "write:**",
            undefined,
          ],
          [
            "probed",
            [always, "write:c"],
            "approved",
            "write:**",
            undefined,
          ],
          ["plain", [], "approved", "unprobed", undefined],
          ["plain", [], "approved", "unprobed", undefined],
          [
            "probed",
            [always, "write:a"],
            "denied",
            "write:a",
            undefined,
          ],
          [
            "probed",
            [always],
            "declined",
            "tools.probed",
            undefined,
          ],
        ],
      );
      assert.equal(lines[1].decision, "ask");
    },
  );
});

/** The `_meta` a 2026-07-28 host that can be asked sends on every request. */
const META_2026 = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  "io.modelcontextprotocol/clientInfo": { name: "host-2026", version: "1" },
};

Deno.test("gate remembers patterns a 2026-07-28 host approves, for the gate's process", async (t) => {
  await using ws = await workspace(POLICY);
  await using gate = await startGateProcess(
    ["--policy", ws.policyPath, "--audit", ws.audit],
    FAKE_COMMAND,
    { capabilities: null },
  );
  const call = (patterns: string[], extra: Message = {}) =>
    rpc(gate, "tools/call", {
      name: "probed",
      arguments: { patterns },
      ...extra,
      _meta: META_2026,
    });

  await t.step(
    "the round offers the choice; session is remembered",
    async () => {
      const asked = (await call(["write:a"])).result;
      assert.equal(asked.resultType, "input_required");
      const schema = asked.inputRequests[KEY].params.requestedSchema;
      assert.deepEqual(schema.properties.remember.enum, ["call", "session"]);
      const accepted = await call(["write:a"], {
        requestState: asked.requestState,
        inputResponses: {
          [KEY]: { action: "accept", content: { remember: "session" } },
        },
      });
      assert.notEqual(accepted.result.resultType, "input_required");
      assert.deepEqual(approvedOf(accepted), ["x-fake:always", "write:a"]);
    },
  );

  await t.step("the same patterns again run at once", async () => {
    const again = await call(["write:a"]);
    assert.notEqual(again.result.resultType, "input_required");
    assert.deepEqual(approvedOf(again), ["x-fake:always", "write:a"]);
  });

  await t.step("one pattern more is asked", async () => {
    const more = await call(["write:a", "write:b"]);
    assert.equal(more.result.resultType, "input_required");
  });

  await t.step("this call only is asked again", async () => {
    const asked = (await call(["write:c"])).result;
    const accepted = await call(["write:c"], {
      requestState: asked.requestState,
      inputResponses: { [KEY]: { action: "accept" } },
    });
    assert.notEqual(accepted.result.resultType, "input_required");
    const again = await call(["write:c"]);
    assert.equal(again.result.resultType, "input_required");
  });

  await t.step(
    "the audit records the scope and the remembered call",
    async () => {
      await gate.close();
      const lines = await auditLines(ws.audit);
      // A custom pattern is recorded as its digest (_redact.ts).
      const always = "x-fake:[redacted sha256:75c088572910bf9d]";
      assert.deepEqual(
        lines.map((r) => [r.patterns, r.outcome, r.rule, r.remember]),
        [
          [[always, "write:a"], "approved", "write:**", "session"],
          [[always, "write:a"], "approved", "remembered", undefined],
          [[always, "write:c"], "approved", "write:**", undefined],
        ],
      );
    },
  );
});

Deno.test("gate served over HTTP with auth: remembers a 2026-07-28 caller's approvals in its gate, for that caller", async (t) => {
  const key = await signingKey("k1");
  await using ws = await authWorkspace(
    `auth:\n  issuer: ${ISSUER}\n  jwks: jwks.json\n  resource: ${RESOURCE}\n${POLICY}`,
    key,
  );
  await using gate = await gateInstance(ws.dir, "a");
  const ada = await signToken(key, RESOURCE, { sub: "ada" });
  const bob = await signToken(key, RESOURCE, { sub: "bob" });
  const NOTE = ["write:notes/a.md"];
  const probed = (token: string, extra: Record<string, unknown> = {}) =>
    stateless(gate.url, "tools/call", {
      name: "probed",
      arguments: { patterns: NOTE },
      ...extra,
    }, { token, capabilities: { elicitation: {} } });

  await t.step("ada is offered to remember, and does", async () => {
    const asked = (await probed(ada)).result;
    assert.equal(asked.resultType, "input_required", JSON.stringify(asked));
    const field = asked.inputRequests[KEY].params.requestedSchema.properties
      .remember;
    assert.deepEqual(field.enum, ["call", "session"]);
    const ran = await probed(ada, {
      requestState: asked.requestState,
      inputResponses: {
        [KEY]: { action: "accept", content: { remember: "session" } },
      },
    });
    assert.equal(ran.result?.isError, undefined, JSON.stringify(ran));
  });

  await t.step("her same call runs unasked", async () => {
    const ran = (await probed(ada)).result;
    assert.notEqual(ran.resultType, "input_required", JSON.stringify(ran));
    const line = (await auditLines(gate.audit)).at(-1)!;
    assert.deepEqual([line.outcome, line.rule, line.caller?.sub], [
      "approved",
      "remembered",
      "ada",
    ]);
  });

  await t.step("bob's same call is asked", async () => {
    const asked = (await probed(bob)).result;
    assert.equal(asked.resultType, "input_required");
  });
});
