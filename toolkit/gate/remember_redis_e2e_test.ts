// Two gate instances served over HTTP with `--redis` set to one real
// redis-server share what a 2026-07-28 caller chose to remember: an
// approval remembered on one instance lets the same patterns through on
// the other, for that caller only, and the policy still decides first.

import assert from "node:assert/strict";
import { ISSUER, signingKey, signToken } from "../http/_jwt_test_helpers.ts";
import { haveRedis, startRedis } from "../redis/_test_redis.ts";
import { gateInstance } from "./testdata/gate_instance.ts";
import { authWorkspace } from "./testdata/auth_workspace.ts";
import { type Message, textOf, writeAtomic } from "./testdata/gate_process.ts";
import { stateless } from "./testdata/stateless_call.ts";

const ignore = !haveRedis();

const RESOURCE = "https://gate.example.com/mcp";
const KEY = "forge-gate/approval";

const POLICY = `
auth:
  issuer: ${ISSUER}
  jwks: jwks.json
  resource: ${RESOURCE}
allow: ["x-fake:**"]
ask: ["write:**"]
unprobed: allow
`;

/** A gate instance on a free port with its own audit log; `reloaded` waits for its next reload. */
async function instance(dir: string, name: string, redis: string) {
  let reloaded = Promise.withResolvers<void>();
  const gate = await gateInstance(dir, name, {
    redis,
    log: (line) => {
      if (/policy reloaded/.test(line)) reloaded.resolve();
    },
  });
  return Object.assign(gate, {
    async reloaded() {
      await reloaded.promise;
      reloaded = Promise.withResolvers<void>();
    },
  });
}

/** The fake server's `probed` tool touching `patterns`, as a caller that can be asked by form. */
function probed(
  url: URL,
  token: string,
  patterns: string[],
  extra: Record<string, unknown> = {},
): Promise<Message> {
  return stateless(url, "tools/call", {
    name: "probed",
    arguments: { patterns },
    ...extra,
  }, { token, capabilities: { elicitation: {} } });
}

/** The patterns the fake server was told were approved, when it ran the call. */
function approvedOf(answer: Message): unknown {
  return JSON.parse(textOf(answer))["forge.approved_patterns"];
}

async function lastAuditLine(path: string): Promise<Message> {
  const lines = (await Deno.readTextFile(path)).trim().split("\n");
  return JSON.parse(lines.at(-1)!);
}

Deno.test({
  name:
    "an approval a 2026-07-28 caller remembers on one instance lets the same patterns through on another",
  ignore,
  fn: async (t) => {
    await using redis = await startRedis();
    const key = await signingKey("k1");
    await using ws = await authWorkspace(POLICY, key);
    await using a = await instance(ws.dir, "a", redis.url);
    await using b = await instance(ws.dir, "b", redis.url);
    const ada = await signToken(key, RESOURCE, { sub: "ada" });
    const bob = await signToken(key, RESOURCE, { sub: "bob" });
    const NOTE = ["write:notes/a.md"];

    await t.step("ada approves on A, remembering it", async () => {
      const asked = (await probed(a.url, ada, NOTE)).result;
      assert.equal(asked.resultType, "input_required", JSON.stringify(asked));
      const field = asked.inputRequests[KEY].params.requestedSchema.properties
        .remember;
      assert.deepEqual(field.enum, ["call", "session"]);
      assert.match(field.enumNames[1], /for a day after their last use/);
      const ran = await probed(a.url, ada, NOTE, {
        requestState: asked.requestState,
        inputResponses: {
          [KEY]: { action: "accept", content: { remember: "session" } },
        },
      });
      assert.deepEqual(approvedOf(ran), ["x-fake:always", ...NOTE]);
    });

    await t.step("the same call runs on B without asking", async () => {
      const ran = await probed(b.url, ada, NOTE);
      assert.notEqual(ran.result?.resultType, "input_required");
      assert.deepEqual(approvedOf(ran), ["x-fake:always", ...NOTE]);
      const line = await lastAuditLine(b.audit);
      assert.deepEqual(
        [line.decision, line.outcome, line.rule],
        ["ask", "approved", "remembered"],
      );
    });

    await t.step("a new token of the same caller counts too", async () => {
      const again = await signToken(key, RESOURCE, { sub: "ada" });
      assert.deepEqual(approvedOf(await probed(b.url, again, NOTE)), [
        "x-fake:always",
        ...NOTE,
      ]);
    });

    await t.step("one pattern more, or a longer path, is asked", async () => {
      for (
        const patterns of [[...NOTE, "write:notes/b.md"], [
          "write:notes/a.md/x",
        ]]
      ) {
        const asked = (await probed(b.url, ada, patterns)).result;
        assert.equal(asked.resultType, "input_required", String(patterns));
      }
    });

    await t.step("another caller's same call is asked on B", async () => {
      const asked = (await probed(b.url, bob, NOTE)).result;
      assert.equal(asked.resultType, "input_required");
    });

    await t.step("a deny a reload adds wins over the remembered", async () => {
      await writeAtomic(
        `${ws.dir}/gate.yaml`,
        `${POLICY}deny: ["write:notes/a.md"]\n`,
      );
      await b.reloaded();
      const denied = await probed(b.url, ada, NOTE);
      assert.equal(denied.result?.isError, true, JSON.stringify(denied));
      assert.match(textOf(denied), /write:notes\/a\.md denied by/);
      await writeAtomic(`${ws.dir}/gate.yaml`, POLICY);
      await b.reloaded();
    });

    await t.step("Redis away: the call is asked, not run", async () => {
      await redis.stop();
      const asked = (await probed(b.url, ada, NOTE)).result;
      assert.equal(asked.resultType, "input_required", JSON.stringify(asked));
    });
  },
});
