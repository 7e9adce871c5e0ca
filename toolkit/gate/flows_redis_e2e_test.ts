// Two gate instances served over HTTP with `--redis` set to one real
// redis-server decide a 2026-07-28 caller's calls with one flow history:
// what the caller's call set off on one instance refuses its next call on
// the other, and no other caller's. The history is kept under a digest of
// the caller's key, never its claims.

import assert from "node:assert/strict";
import { ISSUER, signingKey, signToken } from "../http/_jwt_test_helpers.ts";
import { haveRedis, startRedis, testLink } from "../redis/_test_redis.ts";
import { gateInstance } from "./testdata/gate_instance.ts";
import { authWorkspace } from "./testdata/auth_workspace.ts";
import {
  auditLines,
  FAKE_COMMAND,
  type Message,
} from "./testdata/gate_process.ts";
import { statelessResponse } from "./testdata/stateless_call.ts";

const ignore = !haveRedis();

const RESOURCE = "https://gate.example.com/mcp";

const POLICY = `
auth:
  issuer: ${ISSUER}
  jwks: jwks.json
  resource: ${RESOURCE}
allow: ["x-fake:**", "read:**", "net:**"]
unprobed: allow
flows:
  - after: ["read:secrets/**"]
    deny: ["net:**"]
`;

/** One 2026-07-28 call of the fake server's `probed` tool, touching `patterns`. */
async function probed(
  url: URL,
  token: string | undefined,
  patterns: string[],
  tool = "probed",
): Promise<Message> {
  const { status, body } = await statelessResponse(url, "tools/call", {
    name: tool,
    arguments: { patterns },
  }, token === undefined ? {} : { token });
  assert.equal(status, 200);
  return body;
}

function textOf(answer: Message): string {
  return answer.result?.content?.[0]?.text ?? answer.error?.message ?? "";
}

const SECRET = ["read:secrets/x"];
const OUT = ["net:https://attacker.example"];

Deno.test({
  name:
    "a 2026-07-28 caller's read on one instance refuses its net call on another",
  ignore,
  fn: async (t) => {
    await using redis = await startRedis();
    const key = await signingKey("k1");
    await using ws = await authWorkspace(POLICY, key);
    await using a = await gateInstance(ws.dir, "a", { redis: redis.url });
    await using b = await gateInstance(ws.dir, "b", { redis: redis.url });
    const ada = await signToken(key, RESOURCE, { sub: "ada" });
    const bob = await signToken(key, RESOURCE, { sub: "bob" });

    await t.step("the read runs on instance A", async () => {
      const read = await probed(a.url, ada, SECRET);
      assert.equal(read.result?.isError, undefined, textOf(read));
    });

    await t.step(
      "the same caller's net call on B is refused by the flow",
      async () => {
        const sent = await probed(b.url, ada, OUT);
        assert.equal(sent.result?.isError, true, textOf(sent));
        assert.match(
          textOf(sent),
          /net:https:\/\/attacker\.example denied by flows\[0\] \(net:\*\*\), since this session read secrets\/x with probed\. Nothing was run\./,
        );
        // B's line names A's line as the call that set the flow off.
        const [read] = await auditLines(a.audit);
        const [refused] = await auditLines(b.audit);
        assert.deepEqual(
          [refused.outcome, refused.flow, refused.since],
          ["denied", "flows[0]", read.digest],
        );
      },
    );

    await t.step("a new token of the same caller is refused too", async () => {
      const again = await signToken(key, RESOURCE, { sub: "ada" });
      const sent = await probed(a.url, again, OUT);
      assert.equal(sent.result?.isError, true, textOf(sent));
    });

    await t.step(
      "another caller's net call runs on either instance",
      async () => {
        for (const url of [a.url, b.url]) {
          const sent = await probed(url, bob, OUT);
          assert.equal(sent.result?.isError, undefined, textOf(sent));
        }
      },
    );

    await t.step(
      "Redis holds a digest of the caller's key, not its claims",
      async () => {
        const link = await testLink(redis.url);
        try {
          const keys = await link.eval(
            "return redis.call('KEYS', 'forge-gate:flows:*')",
            [],
            [],
          ) as string[];
          assert.equal(keys.length, 1, JSON.stringify(keys));
          assert.match(keys[0], /^forge-gate:flows:[0-9a-f]{64}$/);
          const ttl = await link.eval(
            "return redis.call('PTTL', KEYS[1])",
            [keys[0]],
            [],
          ) as number;
          assert.ok(ttl > 0, `expected an expiry, got ${ttl}`);
          const dump = JSON.stringify(
            await link.eval("return redis.call('HGETALL', KEYS[1])", keys, []),
          );
          // Whole words: a digest in the dump may hold the letters "ada".
          assert.doesNotMatch(dump, /\bada\b|"sub"/);
        } finally {
          await link.close();
        }
      },
    );

    await t.step(
      "Redis away: a call is refused, not decided without history",
      async () => {
        await redis.stop();
        const sent = await probed(b.url, bob, OUT);
        assert.equal(sent.result?.isError, true, textOf(sent));
        assert.match(
          textOf(sent),
          /cannot read the caller's flow history: Redis is unavailable/,
        );
      },
    );
  },
});

Deno.test({
  name: "without redis each instance keeps its callers' flows to itself",
  fn: async () => {
    const key = await signingKey("k1");
    await using ws = await authWorkspace(POLICY, key);
    await using a = await gateInstance(ws.dir, "a");
    await using b = await gateInstance(ws.dir, "b");
    const ada = await signToken(key, RESOURCE, { sub: "ada" });
    const read = await probed(a.url, ada, SECRET);
    assert.equal(read.result?.isError, undefined, textOf(read));
    // The same instance refuses; the other knows nothing of the read.
    assert.equal((await probed(a.url, ada, OUT)).result?.isError, true);
    const sent = await probed(b.url, ada, OUT);
    assert.equal(sent.result?.isError, undefined, textOf(sent));
  },
});

Deno.test({
  name:
    "an aggregate's flow set off on one server and instance refuses another server's call on another instance",
  ignore,
  fn: async () => {
    await using redis = await startRedis();
    const dir = await Deno.makeTempDir({ prefix: "gate-flows-redis-" });
    try {
      await Deno.writeTextFile(
        `${dir}/gate.yaml`,
        `allow: ["x-fake:**", "read:**", "net:**"]
unprobed: allow
servers:
  one:
    command: ${JSON.stringify(FAKE_COMMAND)}
  two:
    command: ${JSON.stringify(FAKE_COMMAND)}
flows:
  - after: ["read:secrets/**"]
    server: one
    deny: ["net:**"]
`,
      );
      await using a = await gateInstance(dir, "a", {
        redis: redis.url,
        command: [],
      });
      await using b = await gateInstance(dir, "b", {
        redis: redis.url,
        command: [],
      });
      // Set off on server two, the flow (of server one) stays clear.
      const elsewhere = await probed(a.url, undefined, SECRET, "two_probed");
      assert.equal(elsewhere.result?.isError, undefined, textOf(elsewhere));
      const still = await probed(b.url, undefined, OUT, "one_probed");
      assert.equal(still.result?.isError, undefined, textOf(still));
      const read = await probed(a.url, undefined, SECRET, "one_probed");
      assert.equal(read.result?.isError, undefined, textOf(read));
      const sent = await probed(b.url, undefined, OUT, "two_probed");
      assert.equal(sent.result?.isError, true, textOf(sent));
      assert.match(
        textOf(sent),
        /denied by flows\[0\] \(net:\*\*\), since this session read secrets\/x with one_probed/,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
