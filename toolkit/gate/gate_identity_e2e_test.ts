// The gate as an HTTP service with identities: `auth:` puts the toolkit's
// OAuth resource server in front, and each caller's calls are decided by
// its view of the policy (the principals its token matches): different
// tool lists, different decisions for the same call, a scope a call needs
// refused with 403 insufficient_scope, and the caller's token never sent
// to the server behind the gate.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ISSUER, signingKey, signToken } from "../http/_jwt_test_helpers.ts";
import { createServer, text } from "../mod.ts";
import { createHttpHandler } from "../http/handler.ts";
import { startGate } from "./gate.ts";
import { authWorkspace } from "./testdata/auth_workspace.ts";
import { FAKE_COMMAND, type Message } from "./testdata/gate_process.ts";
import { statelessResponse } from "./testdata/stateless_call.ts";

const AUTH = `
auth:
  issuer: ${ISSUER}
  jwks: jwks.json
`;

const RULES = `
allow: ["x-fake:**"]
deny: ["write:secret/**"]
unprobed: allow
scopes:
  plain: ["tools:plain"]
principals:
  - match: { groups: [admins] }
    allow: ["write:**"]
  - match: { sub: [alice] }
    allow: ["write:home/alice/**"]
    tools: { crash: deny }
  - match: { claim: { team: [red] } }
    deny: ["exec:**"]
`;

/** A 2025-11-25 session that sends `token`. */
async function session(url: URL, token: string) {
  const client = new Client({ name: "gate-identity-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return {
    client,
    async names(): Promise<string[]> {
      return (await client.listTools()).tools.map((t: Message) =>
        t.name as string
      ).sort();
    },
    async call(name: string, args: Record<string, unknown> = {}) {
      return await client.callTool({ name, arguments: args }) as Message;
    },
    async [Symbol.asyncDispose]() {
      await client.close().catch(() => {});
    },
  };
}

/** POSTs one 2026-07-28 request with `token`; resolves with the response and its JSON. */
function stateless(
  url: URL,
  token: string | undefined,
  method: string,
  params: Record<string, unknown>,
): Promise<{ status: number; headers: Headers; body: Message }> {
  return statelessResponse(url, method, params, { token });
}

function textOf(result: Message): string {
  return result.content?.[0]?.text ?? "";
}

/** The patterns the fake server was told were approved, from its answer. */
function approvedOf(result: Message): unknown {
  const approved = JSON.parse(textOf(result))["forge.approved_patterns"];
  return Array.isArray(approved) ? [...approved].sort() : approved;
}

const QUIET = () => {};

Deno.test("gate with auth: decides each caller's calls by its principals", async (t) => {
  const key = await signingKey("k1");
  await using ws = await authWorkspace(AUTH + RULES, key);
  const audit = `${ws.dir}/audit.jsonl`;
  await using gate = await startGate([...FAKE_COMMAND], {
    policy: ws.policy,
    listen: "127.0.0.1:0",
    log: QUIET,
    audit,
  });
  const url = gate.url!;
  const admin = await signToken(key, url.href, {
    sub: "bob",
    groups: ["admins"],
  });
  const alice = await signToken(key, url.href, {
    sub: "alice",
    team: "blue",
    email: "alice@example.com",
  });
  await using a = await session(url, admin);
  await using b = await session(url, alice);

  await t.step("the two callers see different tool lists", async () => {
    const adminTools = await a.names();
    const aliceTools = await b.names();
    assert.ok(adminTools.includes("crash"), adminTools.join());
    assert.ok(!aliceTools.includes("crash"), aliceTools.join());
    assert.ok(aliceTools.includes("probed"), aliceTools.join());
  });

  await t.step(
    "the same call is allowed for one and refused for the other",
    async () => {
      const bob = ["write:home/bob/notes"];
      assert.deepEqual(approvedOf(await a.call("probed", { patterns: bob })), [
        "write:home/bob/notes",
        "x-fake:always",
      ]);
      const refused = await b.call("probed", { patterns: bob });
      assert.equal(refused.isError, true);
      assert.match(textOf(refused), /write:home\/bob\/notes/);
      const own = await b.call("probed", { patterns: ["write:home/alice/a"] });
      assert.deepEqual(approvedOf(own), [
        "write:home/alice/a",
        "x-fake:always",
      ]);
    },
  );

  await t.step(
    "a tool hidden from a caller is refused by its rule, not unknown",
    async () => {
      const refused = await b.call("crash");
      assert.equal(refused.isError, true);
      assert.match(
        textOf(refused),
        /refuses every call of crash \(tools\.crash: deny\)/,
      );
      assert.doesNotMatch(textOf(refused), /unknown tool/i);
    },
  );

  await t.step("the caller's token never reaches the server", async () => {
    const answer = await a.call("probed", { patterns: ["x-fake:a"] });
    assert.ok(!textOf(answer).includes(admin));
    assert.doesNotMatch(textOf(answer), /authorization|bearer/i);
  });

  await t.step("no token: 401 with WWW-Authenticate", async () => {
    const answer = await stateless(url, undefined, "tools/list", {});
    assert.equal(answer.status, 401);
    assert.match(
      answer.headers.get("www-authenticate") ?? "",
      /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
  });

  await t.step("a token for another audience: 401 invalid_token", async () => {
    const other = await signToken(key, "https://elsewhere.example.com/mcp", {
      groups: ["admins"],
    });
    const answer = await stateless(url, other, "tools/list", {});
    assert.equal(answer.status, 401);
    assert.match(
      answer.headers.get("www-authenticate") ?? "",
      /error="invalid_token"/,
    );
  });

  await t.step(
    "a call whose scope the token lacks: 403 insufficient_scope",
    async () => {
      const answer = await stateless(url, admin, "tools/call", {
        name: "plain",
        arguments: {},
      });
      assert.equal(answer.status, 403);
      const challenge = answer.headers.get("www-authenticate") ?? "";
      assert.match(challenge, /^Bearer error="insufficient_scope"/);
      assert.match(challenge, /scope="tools:plain"/);
      assert.match(
        challenge,
        /resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
      );
      const scoped = await signToken(key, url.href, {
        sub: "bob",
        groups: ["admins"],
        scope: "mcp:tools tools:plain",
      });
      const allowed = await stateless(url, scoped, "tools/call", {
        name: "plain",
        arguments: {},
      });
      assert.equal(allowed.status, 200);
      assert.equal(allowed.body.result?.isError, undefined);
    },
  );

  await t.step(
    "in a session too, the scope is asked for with 403",
    async () => {
      await assert.rejects(
        () => a.call("plain"),
        /needs the scope tools:plain/,
      );
    },
  );

  await t.step(
    "2026-07-28 callers never decide by each other's view",
    async () => {
      const call = {
        name: "probed",
        arguments: { patterns: ["write:home/x"] },
      };
      const first = await stateless(url, admin, "tools/call", call);
      assert.deepEqual(approvedOf(first.body.result), [
        "write:home/x",
        "x-fake:always",
      ]);
      const second = await stateless(url, alice, "tools/call", call);
      assert.equal(second.body.result?.isError, true);
      assert.match(textOf(second.body.result), /write:home\/x/);
      const again = await stateless(url, admin, "tools/call", call);
      assert.deepEqual(approvedOf(again.body.result), [
        "write:home/x",
        "x-fake:always",
      ]);
      const listed = await stateless(url, alice, "tools/list", {});
      const names = listed.body.result.tools.map((t: Message) => t.name);
      assert.ok(!names.includes("crash"), names.join());
    },
  );

  await t.step(
    "each audit line names its caller by the claims the policy decides by",
    async () => {
      const lines = (await Deno.readTextFile(audit)).trim().split("\n")
        .map((line) => JSON.parse(line));
      const callers = (patterns: string) =>
        lines.filter((l) => JSON.stringify(l.patterns).includes(patterns))
          .map((l) => [l.decision, l.caller]);
      // In sessions, and as 2026-07-28 callers alike; a claim no rule
      // matches on (the e-mail address) is not written, and one a rule
      // matches on that the token lacks is written null.
      const BOB = {
        sub: "bob",
        groups: ["admins"],
        scope: "mcp:tools",
        team: null,
      };
      const ALICE = { sub: "alice", scope: "mcp:tools", team: "blue" };
      assert.deepEqual(callers("write:home/bob/notes"), [
        ["allow", BOB],
        ["ask", ALICE],
      ]);
      assert.deepEqual(callers("write:home/x"), [
        ["allow", BOB],
        ["ask", ALICE],
        ["allow", BOB],
      ]);
      assert.ok(!lines.some((l) => JSON.stringify(l).includes("@")));
      // What gate replay decides each line by: the same policy changes
      // nothing, as each line is decided by its caller's principals.
      const replay = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          new URL("./main.ts", import.meta.url).pathname,
          "replay",
          audit,
          "--policy",
          ws.policy,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const said = new TextDecoder().decode(replay.stdout);
      assert.equal(replay.code, 0, said);
      assert.match(said, /0 would change/);
    },
  );
});

Deno.test("gate with auth: in front of servers:, each server's view is the caller's", async (t) => {
  const key = await signingKey("k1");
  const command = JSON.stringify(FAKE_COMMAND);
  await using ws = await authWorkspace(
    `${AUTH}${RULES}
servers:
  one:
    command: ${command}
    scopes:
      probed: ["one:probed"]
  two:
    command: ${command}
`,
    key,
  );
  await using gate = await startGate([], {
    policy: ws.policy,
    listen: "127.0.0.1:0",
    log: QUIET,
  });
  const url = gate.url!;
  const admin = await signToken(key, url.href, {
    sub: "bob",
    groups: ["admins"],
    scope: "mcp:tools one:probed",
  });
  const alice = await signToken(key, url.href, {
    sub: "alice",
    scope: "mcp:tools one:probed",
  });
  await using a = await session(url, admin);
  await using b = await session(url, alice);

  await t.step(
    "each server's list leaves out what the caller cannot run",
    async () => {
      const adminTools = await a.names();
      const aliceTools = await b.names();
      assert.ok(adminTools.includes("one_crash"), adminTools.join());
      assert.ok(adminTools.includes("two_crash"), adminTools.join());
      assert.ok(!aliceTools.includes("one_crash"), aliceTools.join());
      assert.ok(!aliceTools.includes("two_crash"), aliceTools.join());
    },
  );

  await t.step(
    "the same call is allowed for one and refused for the other",
    async () => {
      const patterns = ["write:home/bob/notes"];
      assert.deepEqual(approvedOf(await a.call("two_probed", { patterns })), [
        "write:home/bob/notes",
        "x-fake:always",
      ]);
      const refused = await b.call("two_probed", { patterns });
      assert.equal(refused.isError, true);
      const hidden = await b.call("two_crash");
      assert.equal(hidden.isError, true);
      assert.match(textOf(hidden), /tools\.crash: deny/);
      assert.doesNotMatch(textOf(hidden), /unknown tool/i);
    },
  );

  await t.step(
    "a server's scopes are asked for by its prefixed name",
    async () => {
      const lacking = await signToken(key, url.href, {
        sub: "bob",
        groups: ["admins"],
      });
      const answer = await stateless(url, lacking, "tools/call", {
        name: "one_probed",
        arguments: { patterns: ["x-fake:a"] },
      });
      assert.equal(answer.status, 403);
      assert.match(
        answer.headers.get("www-authenticate") ?? "",
        /scope="one:probed"/,
      );
      // The same tool of the other server needs no such scope.
      const other = await stateless(url, lacking, "tools/call", {
        name: "two_probed",
        arguments: { patterns: ["x-fake:a"] },
      });
      assert.equal(other.status, 200);
      assert.deepEqual(approvedOf(other.body.result), [
        "x-fake:a",
        "x-fake:always",
      ]);
    },
  );
});

Deno.test("gate with auth: a --url server gets its own headers, never the caller's token", async () => {
  const key = await signingKey("k1");
  const seen: { authorization: string | null; body: string }[] = [];
  const upstream = createServer({ name: "echo", version: "1.0.0" });
  upstream.tool({
    name: "echo",
    description: "Answers its _meta",
    handler: (_args, ctx) => text(JSON.stringify(ctx.meta)),
  });
  const handler = createHttpHandler(upstream);
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request, info) => {
      const body = request.method === "POST"
        ? await request.clone().text()
        : "";
      seen.push({ authorization: request.headers.get("authorization"), body });
      return await handler(request, info);
    },
  );
  try {
    await using ws = await authWorkspace(`${AUTH}unprobed: allow\n`, key);
    await using gate = await startGate([], {
      policy: ws.policy,
      url: `http://127.0.0.1:${listener.addr.port}/mcp`,
      headers: [["Authorization", "Bearer upstream-secret"]],
      listen: "127.0.0.1:0",
      log: QUIET,
    });
    const token = await signToken(key, gate.url!.href, { sub: "alice" });
    await using s = await session(gate.url!, token);
    const answer = await s.call("echo");
    assert.equal(answer.isError, undefined, textOf(answer));
    assert.ok(seen.length > 0);
    for (const request of seen) {
      assert.equal(request.authorization, "Bearer upstream-secret");
      assert.ok(!request.body.includes(token));
    }
    assert.ok(!textOf(answer).includes(token));
  } finally {
    await handler.close();
    await listener.shutdown();
  }
});

Deno.test("gate listens beyond loopback only with auth: and its resource", async (t) => {
  const key = await signingKey("k1");
  await t.step("auth: with resource: served on 0.0.0.0", async () => {
    await using ws = await authWorkspace(
      `${AUTH}  resource: https://gate.example.com/mcp\nunprobed: allow\n`,
      key,
    );
    await using gate = await startGate([...FAKE_COMMAND], {
      policy: ws.policy,
      listen: "0.0.0.0:0",
      log: QUIET,
    });
    const local = new URL(`http://127.0.0.1:${gate.url!.port}/mcp`);
    const token = await signToken(key, "https://gate.example.com/mcp", {
      sub: "alice",
    });
    const listed = await stateless(local, token, "tools/list", {});
    assert.equal(listed.status, 200);
    assert.ok(Array.isArray(listed.body.result.tools));
    const refused = await stateless(local, undefined, "tools/list", {});
    assert.equal(refused.status, 401);
  });
  await t.step("auth: without resource: refused", async () => {
    await using ws = await authWorkspace(`${AUTH}unprobed: allow\n`, key);
    await assert.rejects(
      () =>
        startGate([...FAKE_COMMAND], {
          policy: ws.policy,
          listen: "0.0.0.0:0",
          log: QUIET,
        }),
      /expected auth\.resource/,
    );
  });
});

Deno.test("gate with auth: past maxSessions, an idle caller's gate makes way", async (t) => {
  const key = await signingKey("k1");
  await using ws = await authWorkspace(AUTH + RULES, key);
  await using gate = await startGate([...FAKE_COMMAND], {
    policy: ws.policy,
    listen: "127.0.0.1:0",
    maxSessions: 1,
    log: QUIET,
  });
  const url = gate.url!;
  const admin = await signToken(key, url.href, {
    sub: "bob",
    groups: ["admins"],
  });
  const alice = await signToken(key, url.href, { sub: "alice" });
  const call = { name: "probed", arguments: { patterns: ["write:home/x"] } };

  await t.step("each caller in turn gets a gate of its own view", async () => {
    const first = await stateless(url, admin, "tools/call", call);
    assert.deepEqual(approvedOf(first.body.result), [
      "write:home/x",
      "x-fake:always",
    ]);
    const second = await stateless(url, alice, "tools/call", call);
    assert.equal(second.body.result?.isError, true);
    const again = await stateless(url, admin, "tools/call", call);
    assert.deepEqual(approvedOf(again.body.result), [
      "write:home/x",
      "x-fake:always",
    ]);
  });

  await t.step(
    "a busy caller's gate is kept, and a new caller refused",
    async () => {
      const hangUp = new AbortController();
      const waiting = await fetch(url, {
        method: "POST",
        signal: hangUp.signal,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "wait",
          authorization: `Bearer ${admin}`,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            name: "wait",
            arguments: { patterns: ["x-fake:w"], announce: true },
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": {},
            },
          },
        }),
      });
      // The server's word that the call is being probed: it is open now.
      const reader = waiting.body!.pipeThrough(new TextDecoderStream())
        .getReader();
      let seen = "";
      while (!seen.includes("probe of wait")) {
        const { value, done } = await reader.read();
        assert.equal(done, false, seen);
        seen += value;
      }
      const refused = await stateless(url, alice, "tools/list", {});
      assert.match(refused.body.error?.message ?? "", /busy/);
      hangUp.abort();
      await reader.cancel().catch(() => {});
      // Once the gate has seen the call go (the hang-up travels to it),
      // the new caller gets a gate: asked until then, a bounded number of times.
      let listed = await stateless(url, alice, "tools/list", {});
      for (let tries = 0; listed.body.error !== undefined; tries++) {
        assert.match(listed.body.error.message, /busy/);
        assert.ok(tries < 500, "the busy gate never made way");
        listed = await stateless(url, alice, "tools/list", {});
      }
      const names = listed.body.result.tools.map((t: Message) => t.name);
      assert.ok(!names.includes("crash"), names.join());
    },
  );
});
