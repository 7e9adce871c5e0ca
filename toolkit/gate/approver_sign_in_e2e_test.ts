// The approvers' sign-in to the approval page (_approver_sign_in.ts): a
// gate served over HTTP whose policy's `auth:` names a tiny authorization
// server made in the test (metadata, authorization and token endpoints,
// PKCE checked), a browser played with fetch and a cookie jar, and a call
// of a URL-only host held until the signed-in approver approves it.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  authorizationServer,
  browse,
  CLIENT,
  csrfOf,
  decide,
  Jar,
  visit,
} from "./testdata/authorization_server.ts";
import { startGate } from "./gate.ts";
import { FAKE_COMMAND, type Message } from "./testdata/gate_process.ts";

async function gateWithSignIn(
  issuer: string,
  jwks: unknown,
  resource?: string,
) {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/jwks.json`, JSON.stringify(jwks));
  await Deno.writeTextFile(
    `${dir}/gate.yaml`,
    `
allow: ["x-fake:**"]
ask: ["write:**"]
unprobed: allow
auth: { issuer: "${issuer}", jwks: jwks.json${
      resource === undefined ? "" : `, resource: "${resource}"`
    } }
approvers: { groups: [security] }
`,
  );
  const gate = await startGate(FAKE_COMMAND, {
    policy: `${dir}/gate.yaml`,
    listen: "127.0.0.1:0",
    approverClient: CLIENT,
    log: () => {},
  });
  return {
    url: gate.url!,
    async [Symbol.asyncDispose]() {
      await gate.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** A session of `token`'s caller whose host takes only URL elicitations; the first is kept. */
async function urlHost(
  url: URL,
  token: Promise<string>,
  capabilities: Message = { elicitation: { url: {} } },
) {
  const client = new Client({ name: "sign-in-test", version: "1.0.0" }, {
    capabilities,
  });
  const asked = Promise.withResolvers<Message>();
  if (capabilities.elicitation !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, (request: Message) => {
      asked.resolve(request.params);
      return { action: "accept" } as never;
    });
  }
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${await token}` } },
    }),
  );
  return {
    client,
    asked: asked.promise,
    async [Symbol.asyncDispose]() {
      await client.close().catch(() => {});
    },
  };
}

Deno.test("an approver signs in with the gate's issuer and approves a held call", async (t) => {
  await using as = await authorizationServer();
  as.state.groups = ["security"];
  await using gate = await gateWithSignIn(as.issuer, as.jwks);
  await using host = await urlHost(
    gate.url,
    as.token("alice", new URL("/mcp", gate.url).href),
  );
  const calling = host.client.callTool({
    name: "probed",
    arguments: { patterns: ["write:notes/a.md"] },
  });
  const asked = await Promise.race([
    host.asked,
    calling.then((r: unknown) =>
      assert.fail(`answered unasked: ${JSON.stringify(r)}`)
    ),
  ]);
  const page = asked.url as string;

  await t.step(
    "a viewer who is not signed in is sent to the sign-in",
    async () => {
      const response = await visit(page, new Jar());
      await response.body?.cancel();
      assert.equal(response.status, 303);
      assert.equal(
        response.headers.get("location"),
        `/approvals/sign-in?next=${encodeURIComponent(new URL(page).pathname)}`,
      );
    },
  );

  await t.step(
    "a callback with another browser's state is refused",
    async () => {
      const victim = new Jar();
      const start = await visit(
        new URL(`/approvals/sign-in?next=${new URL(page).pathname}`, page).href,
        victim,
      );
      await start.body?.cancel();
      // The attacker's own code and state, in the victim's browser.
      const attacker = new Jar();
      const theirs = await visit(
        new URL("/approvals/sign-in", page).href,
        attacker,
      );
      await theirs.body?.cancel();
      const authorize = await visit(theirs.headers.get("location")!, attacker);
      await authorize.body?.cancel();
      const planted = await visit(authorize.headers.get("location")!, victim);
      assert.equal(planted.status, 400);
      await planted.body?.cancel();
      assert.equal(victim.cookies.has("forge_gate_approver"), false);
    },
  );

  await t.step("a forged session cookie is nobody", async () => {
    const jar = new Jar();
    const body = btoa(
      JSON.stringify({ sub: "bob", groups: ["security"], exp: 9e15 }),
    ).replace(/=+$/, "");
    jar.cookies.set("forge_gate_approver", `${body}.${"A".repeat(43)}`);
    const response = await visit(page, jar);
    await response.body?.cancel();
    assert.equal(response.status, 303);
  });

  await t.step(
    "the signed-in approver approves, and the call runs",
    async () => {
      const jar = new Jar();
      const shown = await browse(page, jar);
      assert.equal(shown.status, 200);
      const html = await shown.text();
      // Who asked: the subject of the host's token.
      assert.match(html, /<dt>Asked by<\/dt><dd>alice<\/dd>/);
      const attributes = jar.attributes.get("forge_gate_approver") ?? "";
      assert.match(attributes, /HttpOnly/);
      assert.match(attributes, /SameSite=Lax/);
      assert.match(attributes, /Path=\/approvals\//);
      assert.equal(await decide(page, jar, { csrf: csrfOf(html) }), 303);
      const result = await calling as Message;
      assert.equal(result.isError, undefined, JSON.stringify(result));
    },
  );
});

Deno.test("the sign-in refuses a token for another audience and a non-approver's form", async (t) => {
  await using as = await authorizationServer();
  await using gate = await gateWithSignIn(as.issuer, as.jwks);
  await using host = await urlHost(
    gate.url,
    as.token("alice", new URL("/mcp", gate.url).href),
  );
  const calling = host.client.callTool({
    name: "probed",
    arguments: { patterns: ["write:notes/b.md"] },
  }).catch(() => {});
  const asked = await host.asked;
  const page = asked.url as string;

  await t.step("a token for another resource does not sign in", async () => {
    as.state.audience = "https://other.example/mcp";
    const response = await browse(page, new Jar());
    assert.equal(response.status, 401);
    assert.match(await response.text(), /aud/);
    as.state.audience = undefined;
  });

  await t.step(
    "a signed-in caller outside approvers: sees no form",
    async () => {
      as.state.groups = [];
      const jar = new Jar();
      const response = await browse(page, jar);
      // Neither the asker nor an approver: the page says nothing of it.
      assert.equal(response.status, 404);
      await response.body?.cancel();
      assert.equal(jar.cookies.has("forge_gate_approver"), true);
    },
  );
  await host.client.close();
  await calling;
});

Deno.test("a gate with a public resource URL sends hosts and approvers there", async () => {
  await using as = await authorizationServer();
  await using gate = await gateWithSignIn(
    as.issuer,
    as.jwks,
    "https://gate.example/mcp",
  );
  await using host = await urlHost(
    gate.url,
    as.token("alice", "https://gate.example/mcp"),
  );
  const calling = host.client.callTool({
    name: "probed",
    arguments: { patterns: ["write:notes/c.md"] },
  }).catch(() => {});
  const asked = await host.asked;
  assert.match(asked.url, /^https:\/\/gate\.example\/approvals\/[\w-]{43}$/);
  // The sign-in asks the issuer for a token for the public resource, and
  // sends the browser back to the public callback.
  const start = await visit(
    new URL("/approvals/sign-in", gate.url).href,
    new Jar(),
  );
  await start.body?.cancel();
  const authorize = new URL(start.headers.get("location")!);
  assert.equal(
    authorize.searchParams.get("resource"),
    "https://gate.example/mcp",
  );
  assert.equal(
    authorize.searchParams.get("redirect_uri"),
    "https://gate.example/approvals/callback",
  );
  assert.match(start.headers.get("set-cookie") ?? "", /; Secure/);
  await host.client.close();
  await calling;
});

Deno.test("an approval for one caller's call does not let another caller's retry run", async () => {
  await using as = await authorizationServer();
  as.state.groups = ["security"];
  await using gate = await gateWithSignIn(as.issuer, as.jwks);
  const resource = new URL("/mcp", gate.url).href;
  const call = {
    name: "probed",
    arguments: { patterns: ["write:notes/g.md"] },
  };
  const refused = async (sub: string) => {
    await using host = await urlHost(gate.url, as.token(sub, resource), {});
    const error = await host.client.callTool(call).then(
      () => assert.fail(`${sub}'s call ran`),
      (error: Message) => error,
    );
    assert.equal(error.code, -32042, error.message);
    return error.data.elicitations[0].url as string;
  };
  const page = await refused("alice");
  const jar = new Jar();
  const html = await (await browse(page, jar)).text();
  assert.equal(await decide(page, jar, { csrf: csrfOf(html) }), 303);
  // Mallory's same call is hers, not alice's: asked on a page of its own.
  assert.notEqual(await refused("mallory"), page);
  // Alice's retry, in a new session, runs on her approval.
  await using alice = await urlHost(gate.url, as.token("alice", resource), {});
  const result = await alice.client.callTool(call) as Message;
  assert.equal(result.isError, undefined, JSON.stringify(result));
});
