// The gate as a shared service, with every part real: a redis-server, two
// gate instances (gate/main.ts --http --redis, with auth:) in front of the
// fake server, nginx running deploy/nginx.conf in front of them, and an
// authorization server that gives the callers' tokens and signs the
// approver in to the approval page. Callers see their own tool lists and
// decisions through nginx; an approval on one instance's page releases a
// call held by the other; and an instance killed while a call waits loses
// that call's connection and nothing else.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  haveRedis,
  installed,
  startRedis,
  testLink,
} from "../redis/_test_redis.ts";
import {
  authorizationServer,
  browse,
  CLIENT,
  csrfOf,
  decide,
  Jar,
  visit,
} from "./testdata/authorization_server.ts";
import {
  auditLines,
  FAKE_COMMAND,
  type Message,
  textOf,
} from "./testdata/gate_process.ts";
import {
  freePort,
  type Running,
  startGateNginx,
  startHttpGate,
} from "./testdata/gate_nginx.ts";
import { stateless } from "./testdata/stateless_call.ts";

const ignore = !haveRedis() || !installed("nginx");

const KEY = "forge-gate/approval";

/**
 * The policy every instance runs: a write no rule matches is asked; ada
 * may write notes, bob may not run `plain`.
 */
function policy(issuer: string, resource: string): string {
  return `
auth: { issuer: "${issuer}", jwks: jwks.json, resource: "${resource}" }
allow: ["x-fake:**", "read:**", "net:**"]
unprobed: allow
pins: pins.json
principals:
  - match: { sub: [ada] }
    allow: ["write:notes/**"]
  - match: { sub: [bob] }
    tools: { plain: deny }
approvers: { groups: [security] }
flows:
  - after: ["read:secrets/**"]
    deny: ["net:**"]
`;
}

/** Redis, the authorization server, two instances and nginx, started in that order. */
async function startService() {
  const redis = await startRedis();
  const as = await authorizationServer();
  // Who signs in to the page: an approver.
  as.state.user = "carol";
  as.state.groups = ["security"];
  const dir = await Deno.makeTempDir({ prefix: "gate-service-" });
  // The resource callers and approvers reach is nginx's: its port first.
  const port = freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  await Deno.writeTextFile(`${dir}/jwks.json`, JSON.stringify(as.jwks));
  await Deno.writeTextFile(`${dir}/gate.yaml`, policy(as.issuer, resource));
  const audits = [`${dir}/a.jsonl`, `${dir}/b.jsonl`] as const;
  const gates: Running[] = [];
  let nginx: Running | undefined;
  const stop = async () => {
    await nginx?.stop();
    await Promise.all(gates.map((gate) => gate.stop()));
    await as[Symbol.asyncDispose]();
    await redis.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  try {
    for (const audit of audits) {
      gates.push(
        await startHttpGate([
          "--policy",
          `${dir}/gate.yaml`,
          "--redis",
          redis.url,
          "--audit",
          audit,
          "--",
          ...FAKE_COMMAND,
        ], {
          env: {
            FORGE_GATE_APPROVER_CLIENT_ID: CLIENT.id,
            FORGE_GATE_APPROVER_CLIENT_SECRET: CLIENT.secret,
          },
        }),
      );
    }
    nginx = await startGateNginx([gates[0].url, gates[1].url], { port });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    redis,
    gates,
    audits,
    url: nginx.url,
    token: (sub: string) => as.token(sub, resource),
    [Symbol.asyncDispose]: stop,
  };
}

/**
 * A 2025-11-25 session of `token`'s caller through `url` whose host takes
 * only URL elicitations (and accepts them). A broken stream is not
 * resumed.
 */
async function urlSession(url: string, token: string) {
  const client = new Client({ name: "gate-service-test", version: "1.0.0" }, {
    capabilities: { elicitation: { url: {} } },
  });
  const asked = Promise.withResolvers<Message>();
  client.setRequestHandler(ElicitRequestSchema, (request: Message) => {
    asked.resolve(request.params);
    return { action: "accept" } as never;
  });
  let broken = Promise.withResolvers<Error>();
  client.onerror = (error: Error) => broken.resolve(error);
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    reconnectionOptions: {
      maxRetries: 0,
      initialReconnectionDelay: 1,
      maxReconnectionDelay: 1,
      reconnectionDelayGrowFactor: 1,
    },
  });
  await client.connect(transport);
  return {
    client,
    /** The instance the session lives on: nginx's tag of its id. */
    tag: transport.sessionId!.at(0),
    asked: asked.promise,
    /** The session's next error: a broken stream, a failed resume. */
    nextError(): Promise<Error> {
      broken = Promise.withResolvers<Error>();
      return broken.promise;
    },
    async [Symbol.asyncDispose]() {
      await client.close().catch(() => {});
    },
  };
}

/** The fake server's `probed` tool touching `patterns`. */
function probe(patterns: string[]) {
  return { name: "probed", arguments: { patterns } };
}

/**
 * The patterns the fake server was told were approved, when it ran the
 * call: from a JSON-RPC answer, or a call's result.
 */
function approvedOf(answer: Message): unknown {
  const text = textOf("result" in answer ? answer : { result: answer });
  assert.ok(text.startsWith("{"), JSON.stringify(answer));
  return JSON.parse(text)["forge.approved_patterns"];
}

/** `page`'s path on the instance (or nginx) at `base`. */
function on(base: string, page: string): string {
  return new URL(new URL(page).pathname, base).href;
}

/**
 * The approver, signed in with `jar` (through nginx, where the sign-in's
 * callback is), looks at `page` and approves: the page's state before,
 * and the post's status.
 */
async function approve(
  page: string,
  jar: Jar,
): Promise<{ state: string; status: number }> {
  const shown = await browse(page, jar);
  assert.equal(shown.status, 200);
  await shown.body?.cancel();
  // The sign-in may end on nginx's copy of the page: look at `page` itself.
  const html = await (await visit(page, jar)).text();
  const state = html.match(/data-state="(\w+)"/)?.[1] ?? "";
  return { state, status: await decide(page, jar, { csrf: csrfOf(html) }) };
}

Deno.test({
  name:
    "Behind nginx, two instances on Redis decide by who calls, and a page approval on one releases a call held by the other",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    await using service = await startService();
    const ada = await service.token("ada");
    const bob = await service.token("bob");

    await t.step("each caller sees its own tool list", async () => {
      const names = async (token: string) =>
        (await stateless(service.url, "tools/list", {}, { token })).result
          .tools.map((tool: Message) => tool.name);
      for (let i = 0; i < 2; i++) {
        // Twice each: round robin, so both instances answer both callers.
        assert.ok((await names(ada)).includes("plain"));
        const bobs = await names(bob);
        assert.ok(bobs.includes("probed"), String(bobs));
        assert.ok(!bobs.includes("plain"), String(bobs));
      }
    });

    await t.step("the same call: ada's runs, bob's is asked", async () => {
      const call = probe(["write:notes/a.md"]);
      for (let i = 0; i < 2; i++) {
        const ran = await stateless(service.url, "tools/call", call, {
          token: ada,
        });
        assert.deepEqual(approvedOf(ran), [
          "x-fake:always",
          "write:notes/a.md",
        ]);
      }
      const refused = await stateless(service.url, "tools/call", call, {
        token: bob,
      });
      // Bob's host can be asked nothing: sent to the page, behind nginx.
      assert.equal(refused.error?.code, -32042, JSON.stringify(refused));
      assert.ok(
        refused.error.data.elicitations[0].url.startsWith(
          new URL("/approvals/", service.url).href,
        ),
      );
      const plain = await stateless(service.url, "tools/call", {
        name: "plain",
        arguments: {},
      }, { token: bob });
      assert.equal(plain.result?.isError, true);
      assert.match(textOf(plain), /tools\.plain/);
    });

    await t.step(
      "an approval on one instance's page releases the call held on the other",
      async () => {
        await using host = await urlSession(service.url, bob);
        const calling = host.client.callTool(probe(["write:notes/held.md"]));
        const asked = await Promise.race([
          host.asked,
          calling.then((r: unknown) =>
            assert.fail(`answered unasked: ${JSON.stringify(r)}`)
          ),
        ]);
        const holder = host.tag === "a" ? 0 : 1;
        const other = service.gates[1 - holder].url;
        assert.ok(
          asked.url.startsWith(new URL("/approvals/", service.url).href),
        );
        const { state, status } = await approve(
          on(other, asked.url),
          new Jar(),
        );
        assert.deepEqual([state, status], ["pending", 303]);
        const result = await calling as Message;
        assert.deepEqual(approvedOf(result), [
          "x-fake:always",
          "write:notes/held.md",
        ]);
        // The holder forwarded it, naming the approver from the other page.
        const line = (await auditLines(service.audits[holder])).at(-1)!;
        assert.deepEqual(
          [line.outcome, line.approver, line.patterns.at(-1)],
          ["approved", "carol", "write:notes/held.md"],
        );
      },
    );
  },
});

Deno.test({
  name:
    "An instance killed while a call waits loses that call's connection and nothing else",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    await using service = await startService();
    const ada = await service.token("ada");
    const bob = await service.token("bob");
    const HELD = probe(["write:drafts/held.md"]);
    const OTHER = probe(["write:drafts/other.md"]);
    const KEPT = probe(["write:drafts/kept.md"]);

    // The call that waits, on whichever instance nginx gave the session.
    const host = await urlSession(service.url, bob);
    const calling = host.client.callTool(HELD);
    const asked = await host.asked;
    const victim = host.tag === "a" ? 0 : 1;
    const survivor = service.gates[1 - victim];
    const onVictim = service.gates[victim].url;
    let otherPage = "";

    await t.step("the victim holds more than that call", async () => {
      // Another pending approval, opened by the victim.
      const refused = await stateless(onVictim, "tools/call", OTHER, {
        token: bob,
      });
      assert.equal(refused.error?.code, -32042, JSON.stringify(refused));
      otherPage = refused.error.data.elicitations[0].url;
      // An approval ada chose to remember there.
      const ask = (extra: Record<string, unknown> = {}) =>
        stateless(onVictim, "tools/call", { ...KEPT, ...extra }, {
          token: ada,
          capabilities: { elicitation: {} },
        });
      const round = (await ask()).result;
      assert.equal(round.resultType, "input_required", JSON.stringify(round));
      const kept = await ask({
        requestState: round.requestState,
        inputResponses: {
          [KEY]: { action: "accept", content: { remember: "session" } },
        },
      });
      assert.equal(kept.result?.isError, undefined, JSON.stringify(kept));
      // A flow ada's read set off there.
      const read = await stateless(
        onVictim,
        "tools/call",
        probe(["read:secrets/k"]),
        { token: ada },
      );
      assert.equal(read.result?.isError, undefined, JSON.stringify(read));
    });

    const link = await testLink(service.redis.url);
    const pins = () =>
      link.eval(
        "local k = redis.call('KEYS', 'forge-gate:pins:*') return {k[1], redis.call('HGET', k[1], 'doc')}",
        [],
        [],
      );
    try {
      const pinned = await pins() as string[];
      assert.match(pinned[1], /"probed"/);

      const lost = host.nextError();
      await service.gates[victim].kill();

      await t.step("the held call's connection is lost", async () => {
        assert.match(String(await lost), /SSE stream|reconnect/);
        // The session was the victim's: nginx answers 404 for it.
        await assert.rejects(host.client.listTools(), /404/);
        await host.client.close();
        await assert.rejects(calling);
      });

      await t.step(
        "its approval waits on the board; approved on the survivor, the caller's retry runs on it once",
        async () => {
          const jar = new Jar();
          const page = on(survivor.url, asked.url);
          assert.deepEqual(await approve(page, jar), {
            state: "pending",
            status: 303,
          });
          await using again = await urlSession(service.url, bob);
          assert.equal(again.tag, survivor === service.gates[0] ? "a" : "b");
          const result = await again.client.callTool(HELD) as Message;
          assert.deepEqual(approvedOf(result), [
            "x-fake:always",
            "write:drafts/held.md",
          ]);
          // Spent: the same call again is sent to a new approval.
          const after = await stateless(service.url, "tools/call", HELD, {
            token: bob,
          });
          assert.equal(after.error?.code, -32042, JSON.stringify(after));
          assert.notEqual(after.error.data.elicitations[0].url, asked.url);
          // The victim never ran the held call: no line of it there.
          const victims = await auditLines(service.audits[victim]);
          assert.ok(
            !victims.some((line) =>
              line.patterns.includes("write:drafts/held.md")
            ),
            JSON.stringify(victims),
          );
        },
      );

      await t.step("the other pending approval too", async () => {
        assert.deepEqual(
          await approve(on(survivor.url, otherPage), new Jar()),
          { state: "pending", status: 303 },
        );
        const ran = await stateless(service.url, "tools/call", OTHER, {
          token: bob,
        });
        assert.deepEqual(approvedOf(ran), [
          "x-fake:always",
          "write:drafts/other.md",
        ]);
      });

      await t.step("ada's remembered approval holds", async () => {
        const ran = await stateless(service.url, "tools/call", KEPT, {
          token: ada,
          capabilities: { elicitation: {} },
        });
        assert.deepEqual(approvedOf(ran), [
          "x-fake:always",
          "write:drafts/kept.md",
        ]);
      });

      await t.step("ada's flow holds", async () => {
        const sent = await stateless(
          service.url,
          "tools/call",
          probe(["net:https://attacker.example"]),
          { token: ada },
        );
        assert.equal(sent.result?.isError, true, JSON.stringify(sent));
        assert.match(textOf(sent), /denied by flows\[0\]/);
      });

      await t.step("the pins are as they were", async () => {
        assert.deepEqual(await pins(), pinned);
      });
    } finally {
      await link.close();
      await host.client.close().catch(() => {});
    }
  },
});
