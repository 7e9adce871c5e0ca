// Asked calls sent to the gate's approval page (docs/gate.md, "Approvals
// in a browser"): a gate served over HTTP in front of the fake server, MCP
// clients (the SDK's) that declare only URL-mode elicitation or none, and
// an approver who decides in the page with a plain form post, as a browser
// without JavaScript sends it.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { ISSUER, signingKey, signToken } from "../http/_jwt_test_helpers.ts";
import { startGate } from "./gate.ts";
import { FAKE_COMMAND, type Message } from "./testdata/gate_process.ts";
import { statelessResponse } from "./testdata/stateless_call.ts";

const POLICY = `
allow: ["x-fake:**"]
ask: ["write:**"]
unprobed: allow
approvers: { sub: [bob] }
`;

/** The test's sign-in: a cookie naming a session the test handed out. */
const SIGNED_IN = new Map<string, { sub: string }>([
  [crypto.randomUUID(), { sub: "bob" }],
  [crypto.randomUUID(), { sub: "sam" }],
  [crypto.randomUUID(), { sub: "mallory" }],
]);

function cookieOf(sub: string): string {
  for (const [token, viewer] of SIGNED_IN) {
    if (viewer.sub === sub) return `viewer=${token}`;
  }
  throw new Error(`no viewer ${sub}`);
}

function identifyViewer(request: Request) {
  const token = request.headers.get("cookie")?.match(/viewer=([\w-]+)/)?.[1];
  return Promise.resolve(
    token === undefined ? undefined : SIGNED_IN.get(token),
  );
}

/** A gate over HTTP in front of the fake server, with its audit log. */
async function httpGate(
  approvalTtlMs = 60_000,
  text = POLICY,
  command: readonly string[] = FAKE_COMMAND,
) {
  const dir = await Deno.makeTempDir();
  const policy = `${dir}/gate.yaml`;
  await Deno.writeTextFile(policy, text);
  const audit = `${dir}/audit.jsonl`;
  const gate = await startGate(command, {
    policy,
    audit,
    listen: "127.0.0.1:0",
    approvalTtlMs,
    identifyViewer,
    log: () => {},
  });
  return {
    url: gate.url!,
    /** The audit's call lines. */
    async lines(): Promise<Message[]> {
      const text = await Deno.readTextFile(audit);
      return text.trim().split("\n").map((line) => JSON.parse(line))
        .filter((line) => "outcome" in line);
    },
    async [Symbol.asyncDispose]() {
      await gate.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/**
 * A gate over HTTP with `auth:` (a JWKS file of a fresh key) and `policy`;
 * `sign` gives a token of `sub` for it.
 */
async function authGate(policy = POLICY) {
  const key = await signingKey("k1");
  const keys = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(keys, JSON.stringify({ keys: [key.jwk] }));
  const gate = await httpGate(
    60_000,
    `auth:\n  issuer: ${ISSUER}\n  jwks: ${keys}\n${policy}`,
  );
  const close = gate[Symbol.asyncDispose];
  return Object.assign(gate, {
    sign: (sub: string) => signToken(key, gate.url.href, { sub }),
    async [Symbol.asyncDispose]() {
      await close.call(gate);
      await Deno.remove(keys);
    },
  });
}

/** A session whose host declares `capabilities`; URL elicitations are accepted and kept. */
async function session(url: URL, capabilities: Message) {
  const client = new Client({ name: "ask-by-url-test", version: "1.0.0" }, {
    capabilities,
  });
  const asked = Promise.withResolvers<Message>();
  const completed = Promise.withResolvers<string>();
  if (capabilities.elicitation !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, (request: Message) => {
      asked.resolve(request.params);
      return { action: "accept" } as never;
    });
    client.setNotificationHandler(
      ElicitationCompleteNotificationSchema,
      (notification: Message) =>
        completed.resolve(notification.params.elicitationId),
    );
  }
  await client.connect(new StreamableHTTPClientTransport(url));
  return {
    asked: asked.promise,
    completed: completed.promise,
    /** Calls the fake's probed tool (under `name`), which reports `patterns`. */
    call(patterns: string[], name = "probed"): Promise<Message> {
      return client.callTool({ name, arguments: { patterns } });
    },
    /** Reads `uri`: the fake server has no resources, so a read it got fails with -32601. */
    read(uri: string): Promise<Message> {
      return client.readResource({ uri });
    },
    /** The calls of `probed` the fake server ran in this session. */
    async ran(): Promise<number> {
      const result = await client.callTool({ name: "seen", arguments: {} });
      // deno-lint-ignore no-explicit-any
      return JSON.parse((result as any).content[0].text).approvals.length;
    },
    async [Symbol.asyncDispose]() {
      await client.close().catch(() => {});
    },
  };
}

/** The page as `sub` sees it: status, text, and the form's token if shown. */
async function openPage(page: string, sub: string) {
  const response = await fetch(page, { headers: { cookie: cookieOf(sub) } });
  const html = await response.text();
  return {
    status: response.status,
    html,
    csrf: html.match(/name="csrf" value="([^"]+)"/)?.[1],
  };
}

/** Posts the page's form as the browser does from the page itself. */
async function decide(
  page: string,
  sub: string,
  decision: "approve" | "deny",
  headers: Record<string, string> = {},
): Promise<Response> {
  const { csrf } = await openPage(page, sub);
  assert.ok(csrf, `${sub} is shown no form`);
  const response = await fetch(page, {
    method: "POST",
    redirect: "manual",
    headers: {
      cookie: cookieOf(sub),
      origin: new URL(page).origin,
      "sec-fetch-site": "same-origin",
      "content-type": "application/x-www-form-urlencoded",
      ...headers,
    },
    body: new URLSearchParams({ csrf, decision }),
  });
  await response.body?.cancel();
  return response;
}

function textOf(result: Message): string {
  return result.content?.[0]?.text ?? "";
}

/** The URL elicitation, which must come before the call's answer. */
function askedBefore(
  asked: Promise<Message>,
  calling: Promise<Message>,
): Promise<Message> {
  return Promise.race([
    asked,
    calling.then((result) =>
      assert.fail(`the call was answered unasked: ${textOf(result)}`)
    ),
  ]);
}

Deno.test("gate holds a call of a URL-only host until it is approved in the page", async () => {
  await using gate = await httpGate();
  await using host = await session(gate.url, { elicitation: { url: {} } });
  const calling = host.call(["write:notes/a.md"]);
  const asked = await askedBefore(host.asked, calling);
  assert.equal(asked.mode, "url");
  assert.match(asked.url, /^http:\/\/127\.0\.0\.1:\d+\/approvals\/[\w-]{43}$/);
  assert.equal(new URL(asked.url).origin, gate.url.origin);
  assert.equal(asked.elicitationId, asked.url.split("/").at(-1));
  // The page shows the call, not to a viewer who is neither its asker nor
  // an approver, and not its form to anyone but an approver.
  const shown = await openPage(asked.url, "bob");
  assert.equal(shown.status, 200);
  assert.match(shown.html, /write:notes\/a\.md/);
  assert.equal((await openPage(asked.url, "mallory")).status, 404);
  assert.equal((await fetch(asked.url)).status, 401);
  const response = await decide(asked.url, "bob", "approve");
  assert.equal(response.status, 303);
  const result = await calling;
  assert.equal(result.isError, undefined, textOf(result));
  assert.deepEqual(
    JSON.parse(textOf(result))["forge.approved_patterns"],
    ["x-fake:always", "write:notes/a.md"],
  );
  assert.equal(await host.completed, asked.elicitationId);
  assert.equal(await host.ran(), 1);
  const line = (await gate.lines()).find((l) => l.tool === "probed");
  assert.equal(line?.outcome, "approved");
  assert.equal(line?.approver, "bob");
  assert.equal(line?.rule, "write:**");
});

Deno.test("gate refuses a held call that is denied in the page", async () => {
  await using gate = await httpGate();
  await using host = await session(gate.url, { elicitation: { url: {} } });
  const calling = host.call(["write:notes/b.md"]);
  const asked = await askedBefore(host.asked, calling);
  assert.equal((await decide(asked.url, "bob", "deny")).status, 303);
  const result = await calling;
  assert.equal(result.isError, true);
  assert.match(
    textOf(result),
    /An approver \(bob\) denied this call of probed/,
  );
  assert.equal(await host.completed, asked.elicitationId);
  assert.equal(await host.ran(), 0);
  const line = (await gate.lines()).find((l) => l.tool === "probed");
  assert.equal(line?.outcome, "declined");
  assert.equal(line?.approver, "bob");
});

Deno.test("gate refuses a held call nobody approves before its expiry", async () => {
  await using gate = await httpGate(1500);
  await using host = await session(gate.url, { elicitation: { url: {} } });
  const calling = host.call(["write:notes/c.md"]);
  const asked = await askedBefore(host.asked, calling);
  const result = await calling;
  assert.equal(result.isError, true);
  assert.match(textOf(result), /before its approval expired/);
  assert.equal(await host.ran(), 0);
  // Too late to approve: the page says so, and nothing runs.
  const { csrf } = await openPage(asked.url, "bob");
  assert.equal(csrf, undefined);
  const line = (await gate.lines()).find((l) => l.tool === "probed");
  assert.equal(line?.outcome, "refused");
});

Deno.test("gate sends a host without elicitation to the page and forwards its retry once", async (t) => {
  await using gate = await httpGate();
  await using host = await session(gate.url, {});
  const refusedWithUrl = async (patterns: string[]) => {
    const error = await host.call(patterns).then(
      () => assert.fail("the call ran"),
      (error) => error,
    );
    assert.equal(error.code, -32042, error.message);
    const [elicitation] = error.data.elicitations;
    assert.equal(elicitation.mode, "url");
    assert.match(elicitation.url, /\/approvals\/[\w-]{43}$/);
    assert.ok(error.message.includes(elicitation.url));
    return elicitation as Message;
  };
  const first = await refusedWithUrl(["write:notes/d.md"]);
  await t.step(
    "a retry before the approval is refused with the same page",
    async () => {
      const again = await refusedWithUrl(["write:notes/d.md"]);
      assert.equal(again.url, first.url);
    },
  );
  await t.step("a cross-site post does not decide", async () => {
    const { csrf } = await openPage(first.url, "bob");
    for (
      const headers of [
        { "sec-fetch-site": "cross-site" },
        { origin: "https://evil.example" },
      ] as Record<string, string>[]
    ) {
      const response = await fetch(first.url, {
        method: "POST",
        redirect: "manual",
        headers: {
          cookie: cookieOf("bob"),
          "content-type": "application/x-www-form-urlencoded",
          ...headers,
        },
        body: new URLSearchParams({ csrf: csrf!, decision: "approve" }),
      });
      await response.body?.cancel();
      assert.equal(response.status, 403);
    }
    assert.match(
      (await openPage(first.url, "bob")).html,
      /data-state="pending"/,
    );
  });
  await t.step(
    "a call with other targets is not the approved one",
    async () => {
      assert.equal((await decide(first.url, "bob", "approve")).status, 303);
      const other = await refusedWithUrl(["write:notes/other.md"]);
      assert.notEqual(other.url, first.url);
    },
  );
  await t.step(
    "the retry runs once, and a second retry is asked again",
    async () => {
      const result = await host.call(["write:notes/d.md"]);
      assert.equal(result.isError, undefined, textOf(result));
      assert.equal(await host.ran(), 1);
      const second = await refusedWithUrl(["write:notes/d.md"]);
      assert.notEqual(second.url, first.url);
      assert.equal(await host.ran(), 1);
    },
  );
  const lines = (await gate.lines()).filter((l) => l.tool === "probed");
  assert.deepEqual(
    lines.map((l) => [l.outcome, l.approver]),
    [
      ["refused", undefined],
      ["refused", undefined],
      ["refused", undefined],
      ["approved", "bob"],
      ["refused", undefined],
    ],
  );
});

Deno.test("gate's page is not reached through another host name", async () => {
  await using gate = await httpGate();
  // A raw request: fetch() sets Host from the URL, a rebound name would not.
  const connection = await Deno.connect({
    hostname: gate.url.hostname,
    port: Number(gate.url.port),
  });
  await connection.write(
    new TextEncoder().encode(
      "GET /approvals/x HTTP/1.1\r\nhost: evil.example\r\nconnection: close\r\n\r\n",
    ),
  );
  const answer = await new Response(connection.readable).text();
  assert.match(answer, /^HTTP\/1\.1 403/);
});

Deno.test("gate without approvers refuses at once what it cannot ask", async () => {
  await using gate = await httpGate(
    60_000,
    POLICY.replace("approvers: { sub: [bob] }", ""),
  );
  await using host = await session(gate.url, { elicitation: { url: {} } });
  const result = await host.call(["write:notes/e.md"]);
  assert.equal(result.isError, true);
  assert.match(textOf(result), /this host cannot ask for it/);
});

/**
 * One 2026-07-28 request (no session) declaring `capabilities`, with
 * `token` when given, answered as JSON or a stream.
 */
async function stateless(
  url: URL,
  id: number,
  params: Message,
  { capabilities = {}, token, method = "tools/call" }: {
    capabilities?: Message;
    token?: string;
    method?: string;
  } = {},
): Promise<Message> {
  return (await statelessResponse(url, method, params, {
    id,
    capabilities,
    ...(token === undefined ? {} : { token }),
  })).body;
}

Deno.test("gate sends a 2026-07-28 caller to the page and runs its retry once", async () => {
  await using gate = await httpGate();
  const call = {
    name: "probed",
    arguments: { patterns: ["write:notes/s.md"] },
  };
  const refused = await stateless(gate.url, 1, call);
  assert.equal(refused.error?.code, -32042, JSON.stringify(refused));
  const page = refused.error.data.elicitations[0].url;
  assert.equal((await decide(page, "bob", "approve")).status, 303);
  const ran = await stateless(gate.url, 2, call);
  assert.equal(ran.result?.isError, undefined, JSON.stringify(ran));
  assert.deepEqual(
    JSON.parse(ran.result.content[0].text)["forge.approved_patterns"],
    ["x-fake:always", "write:notes/s.md"],
  );
  const again = await stateless(gate.url, 3, call);
  assert.equal(again.error?.code, -32042);
  assert.notEqual(again.error.data.elicitations[0].url, page);
});

/** What a 2026-07-28 caller that takes URL-mode elicitation declares. */
const URLS_ONLY = { elicitation: { url: {} } };
const ROUND_KEY = "forge-gate/approval";

/** The URL round of an input-required answer: its elicitation and state. */
function urlRound(answer: Message): { asked: Message; state: string } {
  const result = answer.result;
  assert.equal(result?.resultType, "input_required", JSON.stringify(answer));
  const request = result.inputRequests[ROUND_KEY];
  assert.equal(request.method, "elicitation/create");
  assert.equal(request.params.mode, "url");
  assert.match(request.params.url, /\/approvals\/[\w-]{43}$/);
  assert.equal(
    request.params.elicitationId,
    request.params.url.split("/").at(-1),
  );
  assert.equal(typeof result.requestState, "string");
  return { asked: request.params, state: result.requestState };
}

/** The call again, answering the round whose state is `state` with `action`. */
function retried(call: Message, state: string, action = "accept"): Message {
  return {
    ...call,
    requestState: state,
    inputResponses: { [ROUND_KEY]: { action } },
  };
}

/** How many calls of `probed` the gate's fake server (shared by 2026-07-28 callers) ran. */
async function ranStateless(url: URL, token?: string): Promise<number> {
  const seen = await stateless(url, 99, { name: "seen", arguments: {} }, {
    ...(token === undefined ? {} : { token }),
  });
  return JSON.parse(seen.result.content[0].text).approvals.length;
}

Deno.test("gate sends a 2026-07-28 caller that takes URLs to the page in rounds", async (t) => {
  await using gate = await httpGate();
  const call = {
    name: "probed",
    arguments: { patterns: ["write:notes/r.md"] },
  };
  const asked = urlRound(
    await stateless(gate.url, 1, call, { capabilities: URLS_ONLY }),
  );
  assert.equal(new URL(asked.asked.url).origin, gate.url.origin);
  assert.match(asked.asked.message, /write:notes\/r\.md/);
  let state = asked.state;
  await t.step(
    "a round answered before the approval is asked again, not run",
    async () => {
      const again = urlRound(
        await stateless(gate.url, 2, retried(call, state), {
          capabilities: URLS_ONLY,
        }),
      );
      assert.equal(again.asked.url, asked.asked.url);
      assert.notEqual(again.state, state);
      assert.equal(await ranStateless(gate.url), 0);
      state = again.state;
    },
  );
  await t.step(
    "the round's answer is no form approval for a caller that now takes forms",
    async () => {
      const answer = await stateless(gate.url, 3, retried(call, state), {
        capabilities: { elicitation: { form: {} } },
      });
      assert.equal(answer.result?.resultType, "input_required");
      const form = answer.result.inputRequests[ROUND_KEY].params;
      assert.equal(form.mode, undefined);
      assert.ok(form.requestedSchema);
      assert.equal(await ranStateless(gate.url), 0);
    },
  );
  await t.step("approved in the page, the retry runs once", async () => {
    assert.equal((await decide(asked.asked.url, "bob", "approve")).status, 303);
    const ran = await stateless(gate.url, 4, retried(call, state), {
      capabilities: URLS_ONLY,
    });
    assert.equal(ran.result?.isError, undefined, JSON.stringify(ran));
    assert.deepEqual(
      JSON.parse(ran.result.content[0].text)["forge.approved_patterns"],
      ["x-fake:always", "write:notes/r.md"],
    );
    assert.equal(await ranStateless(gate.url), 1);
  });
  await t.step("a second retry is asked again on a new page", async () => {
    const again = urlRound(
      await stateless(gate.url, 5, retried(call, state), {
        capabilities: URLS_ONLY,
      }),
    );
    assert.notEqual(again.asked.url, asked.asked.url);
    const fresh = urlRound(
      await stateless(gate.url, 6, call, { capabilities: URLS_ONLY }),
    );
    assert.equal(fresh.asked.url, again.asked.url);
    assert.equal(await ranStateless(gate.url), 1);
  });
  await t.step(
    "a caller that takes no elicitation still gets -32042",
    async () => {
      const refused = await stateless(gate.url, 7, {
        name: "probed",
        arguments: { patterns: ["write:notes/q.md"] },
      });
      assert.equal(refused.error?.code, -32042, JSON.stringify(refused));
    },
  );
  const lines = (await gate.lines()).filter((l) => l.tool === "probed");
  assert.deepEqual(
    lines.map((l) => [l.outcome, l.approver]),
    [["approved", "bob"], ["refused", undefined]],
  );
});

Deno.test("gate refuses a 2026-07-28 round denied in the page or declined by the user", async () => {
  await using gate = await httpGate();
  const call = {
    name: "probed",
    arguments: { patterns: ["write:notes/t.md"] },
  };
  const { asked, state } = urlRound(
    await stateless(gate.url, 1, call, { capabilities: URLS_ONLY }),
  );
  assert.equal((await decide(asked.url, "bob", "deny")).status, 303);
  const denied = await stateless(gate.url, 2, retried(call, state), {
    capabilities: URLS_ONLY,
  });
  assert.equal(denied.result?.isError, true);
  assert.equal(denied.result.resultType, "complete");
  assert.match(
    denied.result.content[0].text,
    /An approver \(bob\) denied this call of probed on the gate's page\. Nothing was run\./,
  );
  const other = {
    name: "probed",
    arguments: { patterns: ["write:notes/u.md"] },
  };
  const round = urlRound(
    await stateless(gate.url, 3, other, { capabilities: URLS_ONLY }),
  );
  const declined = await stateless(
    gate.url,
    4,
    retried(other, round.state, "decline"),
    { capabilities: URLS_ONLY },
  );
  assert.equal(declined.result?.isError, true);
  assert.equal(await ranStateless(gate.url), 0);
  const lines = (await gate.lines()).filter((l) => l.tool === "probed");
  assert.deepEqual(
    lines.map((l) => [l.outcome, l.approver]),
    [["declined", "bob"], ["declined", undefined]],
  );
});

Deno.test("gate never runs a 2026-07-28 call on another caller's approval", async () => {
  await using gate = await authGate();
  const alice = await gate.sign("alice");
  const carol = await gate.sign("carol");
  const call = {
    name: "probed",
    arguments: { patterns: ["write:notes/v.md"] },
  };
  const { asked, state } = urlRound(
    await stateless(gate.url, 1, call, {
      capabilities: URLS_ONLY,
      token: alice,
    }),
  );
  assert.equal((await decide(asked.url, "bob", "approve")).status, 303);
  // Carol sends alice's very round back (refused: the state is not
  // hers), then calls anew, either way.
  const replayed = await stateless(gate.url, 2, retried(call, state), {
    capabilities: URLS_ONLY,
    token: carol,
  });
  assert.equal(replayed.error?.code, -32602, JSON.stringify(replayed));
  assert.match(
    replayed.error.message,
    /requestState: the gate cannot verify/,
  );
  const anew = await stateless(gate.url, 3, call, { token: carol });
  assert.equal(anew.error?.code, -32042, JSON.stringify(anew));
  assert.equal(await ranStateless(gate.url, carol), 0);
  // Alice's approval was left for alice.
  const ran = await stateless(gate.url, 4, retried(call, state), {
    capabilities: URLS_ONLY,
    token: alice,
  });
  assert.equal(ran.result?.isError, undefined, JSON.stringify(ran));
  assert.equal(await ranStateless(gate.url, alice), 1);
});

Deno.test("gate with approvers' selfApproval: false lets no approver decide a call they asked for", async () => {
  await using gate = await authGate(
    POLICY.replace(
      "approvers: { sub: [bob] }",
      "approvers: { sub: [bob, sam], selfApproval: false }",
    ),
  );
  // Bob is an approver, and the caller.
  const bob = await gate.sign("bob");
  const call = {
    name: "probed",
    arguments: { patterns: ["write:notes/own.md"] },
  };
  const { asked, state } = urlRound(
    await stateless(gate.url, 1, call, {
      capabilities: URLS_ONLY,
      token: bob,
    }),
  );
  const own = await openPage(asked.url, "bob");
  assert.equal(own.status, 200);
  assert.equal(own.csrf, undefined, own.html);
  assert.match(own.html, /another approver must decide it/);
  // (His post is refused too, token or not: approvals/_page_test.ts.)
  await stateless(gate.url, 2, retried(call, state), {
    capabilities: URLS_ONLY,
    token: bob,
  });
  assert.equal(await ranStateless(gate.url, bob), 0);
  // Another approver decides it; bob's retry runs.
  assert.equal((await decide(asked.url, "sam", "approve")).status, 303);
  const ran = await stateless(gate.url, 3, retried(call, state), {
    capabilities: URLS_ONLY,
    token: bob,
  });
  assert.equal(ran.result?.isError, undefined, JSON.stringify(ran));
  assert.equal(await ranStateless(gate.url, bob), 1);
  const [line] = (await gate.lines()).filter((l) => l.outcome === "approved");
  assert.equal(line.approver, "sam");
});

Deno.test("gate keeps each server's approvals apart in a servers: aggregate", async () => {
  const fake = FAKE_COMMAND.map((part) => JSON.stringify(part)).join(", ");
  await using gate = await httpGate(
    60_000,
    `${POLICY}
servers:
  one:
    command: [${fake}]
  two:
    command: [${fake}]
`,
    [],
  );
  await using host = await session(gate.url, {});
  const refused = (name: string) =>
    host.call(["write:notes/f.md"], name).then(
      () => assert.fail("the call ran"),
      (error) => {
        assert.equal(error.code, -32042, error.message);
        return error.data.elicitations[0].url as string;
      },
    );
  const page = await refused("one_probed");
  const shown = await openPage(page, "bob");
  assert.match(shown.html, /<dt>Server<\/dt><dd><code>one<\/code>/);
  assert.equal((await decide(page, "bob", "approve")).status, 303);
  // The same tool and targets on the other server is another call.
  assert.notEqual(await refused("two_probed"), page);
  const result = await host.call(["write:notes/f.md"], "one_probed");
  assert.equal(result.isError, undefined, textOf(result));
  const line = (await gate.lines()).find((l) =>
    l.server === "one" && l.outcome === "approved"
  );
  assert.equal(line?.approver, "bob");
  // A URL-only host's call of a member is held, and completed, alike.
  await using urls = await session(gate.url, { elicitation: { url: {} } });
  const calling = urls.call(["write:notes/h.md"], "two_probed");
  const asked = await askedBefore(urls.asked, calling);
  assert.match(asked.message, /^Server "two": /);
  assert.equal((await decide(asked.url, "bob", "approve")).status, 303);
  const held = await calling;
  assert.equal(held.isError, undefined, textOf(held));
  assert.equal(await urls.completed, asked.elicitationId);
});

/** A gate that asks about reads under `root`, and the file URI of `name` there. */
async function readingGate() {
  const root = await Deno.realPath(await Deno.makeTempDir());
  const gate = await httpGate(
    60_000,
    `${POLICY.replace('ask: ["write:**"]', 'ask: ["write:**", "read:**"]')}
roots: [${JSON.stringify(root)}]
`,
  );
  return {
    gate,
    uri: (name: string) => `file://${root}/${name}`,
    async [Symbol.asyncDispose]() {
      await gate[Symbol.asyncDispose]();
      await Deno.remove(root, { recursive: true });
    },
  };
}

/** What the server answered a read the gate forwarded: it has no resources. */
function reachedServer(error: Message): void {
  assert.equal(error.code, -32601, error.message);
  assert.match(error.message, /Method not found: resources\/read/);
}

Deno.test("gate holds a URL-only host's asked file read until the page decides", async (t) => {
  await using reading = await readingGate();
  const { gate, uri } = reading;
  await t.step("approved, the read reaches the server", async () => {
    await using host = await session(gate.url, URLS_ONLY);
    const pending = host.read(uri("notes/a.md")).then(
      () => assert.fail("the fake server has no resources"),
      (error) => error,
    );
    const asked = await askedBefore(host.asked, pending);
    assert.equal(asked.mode, "url");
    const shown = await openPage(asked.url, "bob");
    assert.match(shown.html, /resources\/read/);
    assert.match(shown.html, /read:notes\/a\.md/);
    assert.equal((await decide(asked.url, "bob", "approve")).status, 303);
    reachedServer(await pending);
    assert.equal(await host.completed, asked.elicitationId);
  });
  await t.step("denied, the read is refused with an error", async () => {
    await using host = await session(gate.url, URLS_ONLY);
    const pending = host.read(uri("notes/b.md")).then(
      () => assert.fail("the read ran"),
      (error) => error,
    );
    const asked = await askedBefore(host.asked, pending);
    assert.equal((await decide(asked.url, "bob", "deny")).status, 303);
    const error = await pending;
    assert.equal(error.code, -32600, error.message);
    assert.match(
      error.message,
      /An approver \(bob\) denied this call of resources\/read on the gate's page/,
    );
  });
  const lines = (await gate.lines()).filter((l) => l.tool === "resources/read");
  assert.deepEqual(
    lines.map((l) => [l.patterns, l.outcome, l.approver]),
    [
      [["read:notes/a.md"], "approved", "bob"],
      [["read:notes/b.md"], "declined", "bob"],
    ],
  );
});

Deno.test("gate sends a file read of a host without elicitation to the page and runs its retry once", async (t) => {
  await using reading = await readingGate();
  const { gate, uri } = reading;
  await using host = await session(gate.url, {});
  await using other = await session(gate.url, {});
  const file = uri("notes/c.md");
  const refusedWithUrl = async (from: typeof host) => {
    const error = await from.read(file).then(
      () => assert.fail("the read ran"),
      (error) => error,
    );
    assert.equal(error.code, -32042, error.message);
    const [elicitation] = error.data.elicitations;
    assert.equal(elicitation.mode, "url");
    assert.match(elicitation.url, /\/approvals\/[\w-]{43}$/);
    return elicitation.url as string;
  };
  const page = await refusedWithUrl(host);
  await t.step("a retry before the approval gets the same page", async () => {
    assert.equal(await refusedWithUrl(host), page);
  });
  assert.match((await openPage(page, "bob")).html, /read:notes\/c\.md/);
  assert.equal((await decide(page, "bob", "approve")).status, 303);
  await t.step("another caller's read is not the approved one", async () => {
    assert.notEqual(await refusedWithUrl(other), page);
  });
  await t.step(
    "the retry runs once, and a second retry is asked again",
    async () => {
      reachedServer(
        await host.read(file).then(
          () => assert.fail("the fake server has no resources"),
          (error) => error,
        ),
      );
      assert.notEqual(await refusedWithUrl(host), page);
    },
  );
  await t.step(
    "a 2026-07-28 caller's read is refused with -32042",
    async () => {
      const refused = await stateless(gate.url, 1, { uri: file }, {
        method: "resources/read",
        capabilities: URLS_ONLY,
      });
      assert.equal(refused.error?.code, -32042, JSON.stringify(refused));
      assert.notEqual(refused.error.data.elicitations[0].url, page);
    },
  );
  const lines = (await gate.lines()).filter((l) => l.tool === "resources/read");
  assert.deepEqual(
    lines.map((l) => [l.outcome, l.approver]),
    [
      ["refused", undefined],
      ["refused", undefined],
      ["refused", undefined],
      ["approved", "bob"],
      ["refused", undefined],
      ["refused", undefined],
    ],
  );
});
