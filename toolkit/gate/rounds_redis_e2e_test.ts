// A 2026-07-28 approval answered on another instance: two gate instances
// served over HTTP with `--redis` set to one real redis-server sign their
// approval rounds with one key, so a host that was asked on A and sends
// the user's answer to B (nginx without stickiness) has the call run by B,
// once, audited as approved. The state is the caller's alone, and counts
// once across the instances. A gate of another deployment (another Redis,
// another secret) refuses the answer clearly, and keeps serving.

import assert from "node:assert/strict";
import { ISSUER, signingKey, signToken } from "../http/_jwt_test_helpers.ts";
import { haveRedis, startRedis } from "../redis/_test_redis.ts";
import { authWorkspace } from "./testdata/auth_workspace.ts";
import { gateInstance } from "./testdata/gate_instance.ts";
import { APPROVAL_KEY } from "./_approval_round.ts";
import { auditLines, type Message } from "./testdata/gate_process.ts";
import { statelessResponse } from "./testdata/stateless_call.ts";

const ignore = !haveRedis();

const RESOURCE = "https://gate.example.com/mcp";

const POLICY = `
auth:
  issuer: ${ISSUER}
  jwks: jwks.json
  resource: ${RESOURCE}
allow: ["x-fake:**"]
ask: ["write:**"]
unprobed: allow
`;

/** One 2026-07-28 tools/call from a host that can ask its user (form elicitation). */
async function call(
  url: URL,
  token: string,
  params: Record<string, unknown>,
): Promise<Message> {
  const { status, body } = await statelessResponse(url, "tools/call", params, {
    token,
    capabilities: { elicitation: {} },
  });
  // An invalid-params error is answered with 400, the JSON-RPC error inside.
  assert.ok([200, 400].includes(status), String(status));
  return body;
}

/** The approvals the fake server behind `url` saw for `token`'s caller. */
async function approvalsSeen(url: URL, token: string): Promise<unknown[]> {
  const seen = await call(url, token, { name: "seen", arguments: {} });
  return JSON.parse(seen.result.content[0].text).approvals;
}

const WRITE = { name: "probed", arguments: { patterns: ["write:notes/a"] } };

function answered(state: unknown, action = "accept") {
  return {
    ...WRITE,
    requestState: state,
    inputResponses: { [APPROVAL_KEY]: { action } },
  };
}

Deno.test({
  name:
    "a 2026-07-28 approval asked on one instance and answered on another runs the call once",
  ignore,
  fn: async (t) => {
    await using redis = await startRedis();
    const key = await signingKey("k1");
    await using ws = await authWorkspace(POLICY, key);
    await using a = await gateInstance(ws.dir, "a", { redis: redis.url });
    await using b = await gateInstance(ws.dir, "b", { redis: redis.url });
    const ada = await signToken(key, RESOURCE, { sub: "ada" });
    const bob = await signToken(key, RESOURCE, { sub: "bob" });

    const asked = (await call(a.url, ada, WRITE)).result;
    assert.equal(asked.resultType, "input_required");
    const state = asked.requestState;

    await t.step("another caller cannot spend ada's answer", async () => {
      const stolen = await call(b.url, bob, answered(state));
      assert.equal(stolen.error?.code, -32602, JSON.stringify(stolen));
      assert.match(
        stolen.error.message,
        /requestState: the gate cannot verify/,
      );
      assert.deepEqual(await approvalsSeen(b.url, bob), []);
    });

    await t.step("the answer sent to B runs the call there", async () => {
      const ran = (await call(b.url, ada, answered(state))).result;
      assert.equal(ran.isError, undefined, JSON.stringify(ran));
      assert.deepEqual(
        JSON.parse(ran.content[0].text)["forge.approved_patterns"].sort(),
        ["write:notes/a", "x-fake:always"],
      );
      const lines = await auditLines(b.audit);
      assert.deepEqual(
        lines.filter((l) => l.tool === "probed").map((l) => l.outcome),
        ["invalid-params", "approved"],
      );
    });

    await t.step(
      "the same answer sent again, to either instance, is asked again",
      async () => {
        for (const url of [a.url, b.url]) {
          const again = (await call(url, ada, answered(state))).result;
          assert.equal(again.resultType, "input_required");
        }
        // Run once, on B alone.
        assert.equal((await approvalsSeen(b.url, ada)).length, 1);
        assert.deepEqual(await approvalsSeen(a.url, ada), []);
        const ran = [
          ...await auditLines(a.audit),
          ...await auditLines(b.audit),
        ].filter((l) => l.tool === "probed" && l.outcome !== "invalid-params");
        assert.deepEqual(ran.map((l) => l.outcome), ["approved"]);
      },
    );

    await t.step(
      "one answer raced to both instances at once runs the call once",
      async () => {
        const fresh = (await call(a.url, ada, WRITE)).result;
        assert.equal(fresh.resultType, "input_required");
        const before = (await approvalsSeen(a.url, ada)).length +
          (await approvalsSeen(b.url, ada)).length;
        // A host (or a replaying attacker holding the answer) sends it to
        // every instance at the same moment, over and over.
        const answers = await Promise.all(
          Array.from(
            { length: 24 },
            (_, i) =>
              call(
                i % 2 === 0 ? a.url : b.url,
                ada,
                answered(fresh.requestState),
              ),
          ),
        );
        const ran = answers.filter((r) =>
          r.result !== undefined && r.result.resultType === undefined &&
          r.result.isError === undefined
        );
        assert.equal(ran.length, 1, JSON.stringify(answers));
        for (const other of answers) {
          if (other === ran[0]) continue;
          assert.equal(other.result?.resultType, "input_required");
        }
        const after = (await approvalsSeen(a.url, ada)).length +
          (await approvalsSeen(b.url, ada)).length;
        assert.equal(after - before, 1);
      },
    );

    await t.step(
      "a gate of another deployment refuses the answer clearly, and keeps serving",
      async () => {
        await using other = await startRedis();
        await using c = await gateInstance(ws.dir, "c", { redis: other.url });
        const fresh = (await call(a.url, ada, WRITE)).result;
        const refused = await call(c.url, ada, answered(fresh.requestState));
        assert.equal(refused.error?.code, -32602, JSON.stringify(refused));
        assert.match(
          refused.error.message,
          /requestState: the gate cannot verify it .*another deployment.*Nothing was run/,
        );
        const [line] = await auditLines(c.audit);
        assert.deepEqual([line.tool, line.outcome], [
          "probed",
          "invalid-params",
        ]);
        assert.deepEqual(await approvalsSeen(c.url, ada), []);
        // Its own question is asked and answered as ever.
        const own = (await call(c.url, ada, WRITE)).result;
        assert.equal(own.resultType, "input_required");
        const ran = (await call(c.url, ada, answered(own.requestState))).result;
        assert.equal(ran.isError, undefined, JSON.stringify(ran));
      },
    );
  },
});
