// Issue 22: a 2025 Streamable HTTP session opened with Alice's token must
// not serve Bob, whose token is valid but whose subject is another. Raw
// fetch, two real tokens, a real server.

import assert from "node:assert/strict";
import {
  authServer,
  ISSUER,
  serveJwks,
  signingKey,
  signToken,
} from "./_jwt_test_helpers.ts";
import {
  ACCEPT,
  errorOf,
  initialize,
  messages,
  post,
  PROTOCOL,
  start,
} from "./_test_helpers.ts";

const OTHER_ISSUER = "https://login.example.org";

const WHOAMI = {
  jsonrpc: "2.0",
  id: 5,
  method: "tools/call",
  params: { name: "whoami", arguments: {} },
};

Deno.test("an OAuth session answers only tokens of the subject and issuer that opened it", async (t) => {
  const key = await signingKey("key-1");
  await using jwks = serveJwks([key.jwk]);
  await using http = start(
    {
      oauth: { authorizationServers: [ISSUER, OTHER_ISSUER], jwks: jwks.url },
    },
    authServer(),
  );
  const aud = http.url.href;
  const bearer = async (sub: string, issuer = ISSUER, scope = "mcp:tools") =>
    `Bearer ${await signToken(key, aud, { sub, scope }, { issuer })}`;
  const alice = await bearer("alice");
  const bob = await bearer("bob");
  const session = await initialize(http.url, { authorization: alice });
  const call = (authorization: string, id = session) =>
    post(http.url, WHOAMI, {
      "mcp-session-id": id,
      "mcp-protocol-version": PROTOCOL,
      authorization,
    });

  const unknown = await call(bob, crypto.randomUUID());
  assert.equal(unknown.status, 404);
  const notFound = await errorOf(unknown);

  await t.step(
    "Bob's valid token with Alice's session id gets 404, as an unknown session",
    async () => {
      const response = await call(bob);
      assert.equal(response.status, 404);
      // Indistinguishable from an id that does not exist: nothing to probe.
      assert.deepEqual(await errorOf(response), notFound);
    },
  );

  await t.step(
    "the same subject from another authorization server gets 404",
    async () => {
      const response = await call(await bearer("alice", OTHER_ISSUER));
      assert.equal(response.status, 404);
      await response.body?.cancel();
    },
  );

  await t.step("Bob can neither open its stream nor end it", async () => {
    const stream = await fetch(http.url, {
      headers: {
        accept: "text/event-stream",
        "mcp-session-id": session,
        "mcp-protocol-version": PROTOCOL,
        authorization: bob,
      },
    });
    assert.equal(stream.status, 404);
    await stream.body?.cancel();
    const ended = await fetch(http.url, {
      method: "DELETE",
      headers: {
        accept: ACCEPT,
        "mcp-session-id": session,
        "mcp-protocol-version": PROTOCOL,
        authorization: bob,
      },
    });
    assert.equal(ended.status, 404);
    await ended.body?.cancel();
  });

  await t.step(
    "Alice, with a refreshed token of other scopes, still reaches her session",
    async () => {
      const response = await call(
        await bearer("alice", ISSUER, "mcp:tools notes:read"),
      );
      assert.equal(response.status, 200);
      const [message] = await messages(response) as {
        result: { content: { text: string }[] };
      }[];
      const answer = JSON.parse(message.result.content[0].text);
      assert.equal(answer.auth.subject, "alice");
      assert.deepEqual(answer.auth.scopes, ["mcp:tools", "notes:read"]);
    },
  );

  await t.step("Bob's own session serves Bob", async () => {
    const own = await initialize(http.url, { authorization: bob });
    const response = await call(bob, own);
    assert.equal(response.status, 200);
    await response.body?.cancel();
  });
});

Deno.test("a session opened without auth is not bound to anyone", async () => {
  await using http = start({}, authServer());
  const session = await initialize(http.url);
  const response = await post(http.url, WHOAMI, {
    "mcp-session-id": session,
    "mcp-protocol-version": PROTOCOL,
  });
  assert.equal(response.status, 200);
  await response.body?.cancel();
});
