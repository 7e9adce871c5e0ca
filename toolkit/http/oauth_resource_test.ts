import assert from "node:assert/strict";
import { SignJWT, UnsecuredJWT } from "jose";
import { createServer, text } from "../../mod.ts";
import { connect } from "../testing/testing.ts";
import { createHttpHandler } from "./handler.ts";
import { oauthResource, type OAuthResourceOptions } from "./oauth_resource.ts";
import { authInfoOf } from "./_auth_info.ts";
import {
  authServer,
  ISSUER,
  serveJwks,
  signingKey,
  signToken,
} from "./_jwt_test_helpers.ts";
import {
  connectClient,
  errorOf,
  INITIALIZE,
  initialize,
  messages,
  post,
  PROTOCOL,
  rawRequest,
  start,
} from "./_test_helpers.ts";
import type { AuthInfo } from "../jsonrpc/types.ts";

const RESOURCE = "https://mcp.example.com/mcp";
const METADATA_URL =
  "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";

/** What a tool answered, parsed from its text. */
function answerOf(
  result: unknown,
): { auth: AuthInfo | null; token: string | null; before?: string } {
  const content = (result as { content: { text: string }[] }).content;
  return JSON.parse(content[0].text);
}

/** A layer under test, with the AuthInfo its `next` saw. */
function harness(options: OAuthResourceOptions) {
  const layer = oauthResource(options);
  const seen: (AuthInfo | undefined)[] = [];
  const headers: (string | null)[] = [];
  const send = (token?: string, url = RESOURCE): Promise<Response> =>
    layer(
      new Request(url, {
        method: "POST",
        headers: token === undefined
          ? {}
          : { authorization: `Bearer ${token}` },
        body: "{}",
      }),
      (request) => {
        seen.push(authInfoOf(request));
        headers.push(request.headers.get("authorization"));
        return Promise.resolve(new Response("passed"));
      },
    );
  return { layer, send, seen, headers };
}

Deno.test("oauthResource() hands the tool each request's verified token as ctx.auth through a real client", async (t) => {
  const key = await signingKey("key-1");
  await using jwks = serveJwks([key.jwk]);
  await using http = start(
    {
      oauth: {
        authorizationServers: [ISSUER],
        jwks: jwks.url,
        scopes: ["mcp:tools"],
      },
    },
    authServer(),
  );
  const resource = http.url.href;
  const first = await signToken(key, resource, {
    sub: "ada",
    scope: "mcp:tools notes:read",
  });
  const headers: Record<string, string> = { authorization: `Bearer ${first}` };
  const { client } = await connectClient(http.url, headers);
  try {
    await t.step(
      "the token's claims reach the tool, the token not enumerable",
      async () => {
        const answer = answerOf(
          await client.callTool({ name: "whoami", arguments: {} }),
        );
        const auth = answer.auth!;
        assert.equal(auth.subject, "ada");
        assert.equal(auth.clientId, "test-client");
        assert.deepEqual(auth.scopes, ["mcp:tools", "notes:read"]);
        assert.equal(auth.claims.iss, ISSUER);
        assert.equal(auth.claims.aud, resource);
        assert.equal(typeof auth.expiresAt, "number");
        assert.equal(auth.expiresAt, auth.claims.exp);
        // Serialised without it; still there for a tool that needs it.
        assert.equal("token" in auth, false);
        assert.equal(answer.token, first);
      },
    );

    await t.step(
      "a new token of the same user on the same session gives the new claims",
      async () => {
        // The session is the user's (issue 22): a refreshed token of hers
        // may change the client and scopes, not the subject.
        const second = await signToken(key, resource, {
          sub: "ada",
          client_id: "other-client",
          scope: "mcp:tools",
        });
        // The SDK reads requestInit.headers on every request.
        headers.authorization = `Bearer ${second}`;
        const answer = answerOf(
          await client.callTool({ name: "whoami", arguments: {} }),
        );
        assert.equal(answer.auth?.subject, "ada");
        assert.equal(answer.auth?.clientId, "other-client");
        assert.deepEqual(answer.auth?.scopes, ["mcp:tools"]);
        assert.equal(answer.token, second);
      },
    );

    await t.step(
      "a bad token mid-session is refused, and the session goes on",
      async () => {
        headers.authorization = `Bearer ${await signToken(
          key,
          "https://other.example/mcp",
        )}`;
        await assert.rejects(
          client.callTool({ name: "whoami", arguments: {} }),
          /401|Unauthorized/,
        );
        headers.authorization = `Bearer ${first}`;
        const answer = answerOf(
          await client.callTool({ name: "whoami", arguments: {} }),
        );
        assert.equal(answer.auth?.subject, "ada");
      },
    );

    await t.step("the JWKS was fetched once for all of these tokens", () => {
      assert.equal(jwks.fetches, 1);
    });
  } finally {
    await client.close();
  }
});

Deno.test("oauthResource() hands a 2026-07-28 request's token to the tool as ctx.auth, without a session", async () => {
  const key = await signingKey("key-1");
  await using jwks = serveJwks([key.jwk]);
  await using http = start(
    { oauth: { authorizationServers: [ISSUER], jwks: jwks.url } },
    authServer(),
  );
  const call = async (sub: string) => {
    const response = await post(
      http.url,
      {
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: {
          name: "whoami",
          arguments: {},
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
          },
        },
      },
      {
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "whoami",
        authorization: `Bearer ${await signToken(key, http.url.href, { sub })}`,
      },
    );
    assert.equal(response.status, 200);
    const [message] = await messages(response) as { result: unknown }[];
    return answerOf(message.result);
  };
  assert.equal((await call("ada")).auth?.subject, "ada");
  assert.equal((await call("grace")).auth?.subject, "grace");
});

Deno.test("oauthResource() keeps each concurrent request's own token within one session", async () => {
  const key = await signingKey("key-1");
  await using jwks = serveJwks([key.jwk]);
  await using http = start(
    { oauth: { authorizationServers: [ISSUER], jwks: jwks.url } },
    authServer(),
  );
  // One user, a token per request told apart by its client: a session
  // serves only the subject that opened it (issue 22).
  const tokenOf = (client_id: string) =>
    signToken(key, http.url.href, { sub: "ada", client_id });
  const opener = `Bearer ${await tokenOf("opener")}`;
  const session = await initialize(http.url, { authorization: opener });
  const clients = Array.from({ length: 24 }, (_, i) => `client-${i}`);
  const answers = await Promise.all(clients.map(async (client, i) => {
    const response = await post(
      http.url,
      {
        jsonrpc: "2.0",
        id: i + 10,
        method: "tools/call",
        // Later requests arrive while earlier ones still wait.
        params: { name: "whoami", arguments: { waitMs: (i * 7) % 30 } },
      },
      {
        "mcp-session-id": session,
        "mcp-protocol-version": PROTOCOL,
        authorization: `Bearer ${await tokenOf(client)}`,
      },
    );
    assert.equal(response.status, 200);
    const [message] = await messages(response) as { result: unknown }[];
    return answerOf(message.result);
  }));
  for (const [i, answer] of answers.entries()) {
    assert.equal(answer.before, clients[i]);
    assert.equal(answer.auth?.clientId, clients[i]);
  }
});

Deno.test("oauthResource() refuses a missing or bad token with 401 and a challenge that says why", async (t) => {
  const key = await signingKey("key-1");
  const impostor = await signingKey("key-1"); // same kid, other key
  const stranger = await signingKey("key-9");
  await using jwks = serveJwks([key.jwk]);
  const { send, seen } = harness({
    resource: RESOURCE,
    authorizationServers: [ISSUER],
    jwks: jwks.url,
    scopes: ["mcp:tools"],
  });
  const refusal = async (
    response: Response,
    description: string | undefined,
  ): Promise<void> => {
    assert.equal(response.status, 401);
    const challenge = response.headers.get("www-authenticate");
    assert.equal(
      challenge,
      description === undefined
        ? `Bearer resource_metadata="${METADATA_URL}", scope="mcp:tools"`
        : `Bearer error="invalid_token", error_description="${description}", resource_metadata="${METADATA_URL}", scope="mcp:tools"`,
    );
    const error = await errorOf(response);
    assert.equal(error.code, -32000);
    assert.match(error.message, /^Unauthorized: /);
  };

  await t.step("no Authorization header", async () => {
    await refusal(await send(), undefined);
  });
  await t.step("another scheme", async () => {
    const layer = oauthResource({
      resource: RESOURCE,
      authorizationServers: [ISSUER],
      jwks: jwks.url,
      scopes: ["mcp:tools"],
    });
    const response = await layer(
      new Request(RESOURCE, { headers: { authorization: "Basic YTpi" } }),
      () => Promise.resolve(new Response("passed")),
    );
    await refusal(response, undefined);
  });
  await t.step("a token in the query string is not looked at", async () => {
    const token = await signToken(key, RESOURCE);
    await refusal(
      await send(undefined, `${RESOURCE}?access_token=${token}`),
      undefined,
    );
  });
  await t.step("not a JWT", async () => {
    await refusal(
      await send("opaque-token"),
      "the token is not a valid signed JWT",
    );
  });
  await t.step("a signature by another key", async () => {
    await refusal(
      await send(await signToken(impostor, RESOURCE)),
      "the token's signature is not valid",
    );
  });
  await t.step("a key the authorization server does not have", async () => {
    await refusal(
      await send(await signToken(stranger, RESOURCE)),
      "no key of the authorization server matches the token",
    );
  });
  await t.step("the wrong audience", async () => {
    await refusal(
      await send(await signToken(key, "https://other.example.com/mcp")),
      "the token was not issued for this resource (aud)",
    );
  });
  await t.step("expired beyond the clock skew", async () => {
    const now = Math.floor(Date.now() / 1000);
    await refusal(
      await send(await signToken(key, RESOURCE, {}, { expiresIn: now - 60 })),
      "the token has expired",
    );
  });
  await t.step("expired within the clock skew is still good", async () => {
    const now = Math.floor(Date.now() / 1000);
    const response = await send(
      await signToken(key, RESOURCE, {}, { expiresIn: now - 5 }),
    );
    assert.equal(response.status, 200);
  });
  await t.step("not valid yet", async () => {
    const now = Math.floor(Date.now() / 1000);
    await refusal(
      await send(await signToken(key, RESOURCE, { nbf: now + 300 })),
      "the token is not valid yet (nbf)",
    );
  });
  await t.step("the wrong issuer", async () => {
    await refusal(
      await send(
        await signToken(key, RESOURCE, {}, { issuer: "https://evil.example" }),
      ),
      "the token was not issued by a trusted authorization server (iss)",
    );
  });
  await t.step("no exp at all", async () => {
    const token = await new SignJWT({ scope: "mcp:tools" })
      .setProtectedHeader({ alg: "ES256", kid: key.kid })
      .setIssuer(ISSUER)
      .setAudience(RESOURCE)
      .sign(key.privateKey);
    await refusal(await send(token), "the token's exp claim is missing");
  });
  await t.step("HS256 signed with the public key as the secret", async () => {
    const secret = new TextEncoder().encode(JSON.stringify(key.jwk));
    const token = await new SignJWT({ scope: "mcp:tools" })
      .setProtectedHeader({ alg: "HS256", kid: key.kid })
      .setIssuer(ISSUER)
      .setAudience(RESOURCE)
      .setExpirationTime("5m")
      .sign(secret);
    await refusal(
      await send(token),
      "the token's signature algorithm is not allowed",
    );
  });
  await t.step("an unsigned token (alg none)", async () => {
    const token = new UnsecuredJWT({ scope: "mcp:tools" })
      .setIssuer(ISSUER)
      .setAudience(RESOURCE)
      .setExpirationTime("5m")
      .encode();
    await refusal(
      await send(token),
      "the token's signature algorithm is not allowed",
    );
  });
  await t.step("no refused request reached the next layer", () => {
    // Only the token within the clock skew passed.
    assert.equal(seen.length, 1);
  });
});

Deno.test("oauthResource() answers 403 insufficient_scope naming every scope needed", async () => {
  const key = await signingKey("key-1");
  await using jwks = serveJwks([key.jwk]);
  const { send, seen, headers } = harness({
    resource: RESOURCE,
    authorizationServers: [ISSUER],
    jwks: jwks.url,
    scopes: ["mcp:tools", "notes:read"],
  });
  const partial = await send(
    await signToken(key, RESOURCE, { scope: "mcp:tools" }),
  );
  assert.equal(partial.status, 403);
  assert.equal(
    partial.headers.get("www-authenticate"),
    `Bearer error="insufficient_scope", scope="mcp:tools notes:read", resource_metadata="${METADATA_URL}", error_description="the token lacks the scope notes:read"`,
  );
  assert.match((await errorOf(partial)).message, /^Forbidden: .*notes:read/);

  // scp as an array (some authorization servers) counts as well.
  const full = await send(
    await signToken(key, RESOURCE, {
      scope: undefined,
      scp: ["notes:read", "mcp:tools"],
    }),
  );
  assert.equal(full.status, 200);
  assert.deepEqual(seen[0]?.scopes, ["notes:read", "mcp:tools"]);
  // The token goes no further than the layer.
  assert.deepEqual(headers, [null]);
});

Deno.test("oauthResource() serves the protected resource metadata at both well-known paths, without a token, behind the host guard", async (t) => {
  const key = await signingKey("key-1");
  await using jwks = serveJwks([key.jwk]);
  const server = authServer();
  await using http = start(
    {
      oauth: {
        authorizationServers: [ISSUER, "https://backup-auth.example.com"],
        jwks: jwks.url,
        scopes: ["mcp:tools"],
        scopesSupported: ["mcp:tools", "notes:read"],
        resourceName: "Notes",
      },
    },
    server,
  );
  const origin = http.url.origin;
  const expected = {
    resource: `${origin}/mcp`,
    authorization_servers: [ISSUER, "https://backup-auth.example.com"],
    scopes_supported: ["mcp:tools", "notes:read"],
    bearer_methods_supported: ["header"],
    resource_name: "Notes",
  };

  for (const path of ["/mcp", ""]) {
    await t.step(
      `GET /.well-known/oauth-protected-resource${path}`,
      async () => {
        const response = await fetch(
          `${origin}/.well-known/oauth-protected-resource${path}`,
        );
        assert.equal(response.status, 200);
        assert.equal(response.headers.get("content-type"), "application/json");
        assert.deepEqual(await response.json(), expected);
      },
    );
  }
  await t.step("the 401 points at the path-suffixed document", async () => {
    const response = await post(http.url, INITIALIZE);
    assert.equal(
      response.headers.get("www-authenticate"),
      `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"`,
    );
    await response.body?.cancel();
  });
  await t.step("a foreign Host gets 403 there too", async () => {
    const { status } = await rawRequest(http.addr.port, [
      "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1",
      "host: evil.example.com",
    ]);
    assert.equal(status, 403);
  });
  await t.step("POST gets 405, another well-known path 404", async () => {
    const posted = await fetch(
      `${origin}/.well-known/oauth-protected-resource`,
      {
        method: "POST",
        body: "{}",
      },
    );
    assert.equal(posted.status, 405);
    assert.equal(posted.headers.get("allow"), "GET, HEAD");
    await posted.body?.cancel();
    const other = await fetch(
      `${origin}/.well-known/oauth-protected-resource/other`,
    );
    assert.equal(other.status, 404);
    await other.body?.cancel();
  });
  await t.step(
    "a resource set explicitly is what the document and challenge name",
    async () => {
      const handler = createHttpHandler(server, {
        dnsRebindingProtection: false,
        oauth: {
          resource: "https://public.example.com/tools/mcp",
          authorizationServers: [ISSUER],
          jwks: jwks.url,
        },
      });
      try {
        // Behind a proxy that strips /tools: the local and the public path both answer.
        for (
          const path of [
            "/.well-known/oauth-protected-resource/mcp",
            "/.well-known/oauth-protected-resource/tools/mcp",
          ]
        ) {
          const response = await handler(
            new Request(`http://10.0.0.5:8000${path}`),
          );
          assert.equal(response.status, 200, path);
          assert.deepEqual(await response.json(), {
            resource: "https://public.example.com/tools/mcp",
            authorization_servers: [ISSUER],
            bearer_methods_supported: ["header"],
          });
        }
        const refused = await handler(
          new Request("http://10.0.0.5:8000/mcp", { method: "POST" }),
        );
        // No scopes required: no scope in the challenge.
        assert.equal(
          refused.headers.get("www-authenticate"),
          'Bearer resource_metadata="https://public.example.com/.well-known/oauth-protected-resource/tools/mcp"',
        );
        await refused.body?.cancel();
      } finally {
        await handler.close();
      }
    },
  );
});

Deno.test("oauthResource() for an endpoint at / serves its document at the root well-known path", async () => {
  const layer = oauthResource({
    path: "/",
    resource: "http://localhost:8000/",
    authorizationServers: [ISSUER],
    jwks: { keys: [] },
  });
  const next = () => Promise.resolve(new Response("passed"));
  const document = await layer(
    new Request("http://localhost:8000/.well-known/oauth-protected-resource"),
    next,
  );
  assert.equal(document.status, 200);
  assert.equal((await document.json()).resource, "http://localhost:8000/");
  const refused = await layer(
    new Request("http://localhost:8000/", { method: "POST" }),
    next,
  );
  assert.equal(
    refused.headers.get("www-authenticate"),
    'Bearer resource_metadata="http://localhost:8000/.well-known/oauth-protected-resource"',
  );
  await refused.body?.cancel();
});

Deno.test("oauthResource() fetches the JWKS once under concurrency, at most once more for a flood of unknown keys, and a rotated key after the cache time", async (t) => {
  const key = await signingKey("key-1");
  await using jwks = serveJwks([key.jwk]);
  const { send, seen } = harness({
    resource: RESOURCE,
    authorizationServers: [ISSUER],
    jwks: jwks.url,
    jwksCacheMs: 300,
  });

  await t.step("20 concurrent requests, one fetch", async () => {
    const tokens = await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) => signToken(key, RESOURCE, { sub: `u${i}` }),
      ),
    );
    const responses = await Promise.all(tokens.map((token) => send(token)));
    assert.deepEqual(responses.map((r) => r.status), Array(20).fill(200));
    assert.equal(jwks.fetches, 1);
    assert.deepEqual(
      seen.map((auth) => auth?.subject).sort(),
      tokens.map((_, i) => `u${i}`).sort(),
    );
  });

  await t.step(
    "50 tokens naming unknown keys do not hammer the authorization server",
    async () => {
      const strangers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => signingKey(`made-up-${i}`)),
      );
      const responses = await Promise.all(
        strangers.map(async (k) => send(await signToken(k, RESOURCE))),
      );
      assert.deepEqual(responses.map((r) => r.status), Array(50).fill(401));
      assert.ok(jwks.fetches <= 2, `fetched ${jwks.fetches} times`);
    },
  );

  await t.step(
    "a key added by rotation is used once the cache time has passed",
    async () => {
      const next = await signingKey("key-2");
      jwks.keys = [key.jwk, next.jwk];
      // Time itself: jose's remote JWKS cache ages on the wall clock (300 ms).
      await new Promise((resolve) => setTimeout(resolve, 350));
      const before = jwks.fetches;
      const response = await send(await signToken(next, RESOURCE));
      assert.equal(response.status, 200);
      assert.equal(jwks.fetches, before + 1);
    },
  );
});

Deno.test("oauthResource() checks a token's signature once for many requests, and still refuses it once it expires", async (t) => {
  const key = await signingKey("key-1");
  const { send, seen } = harness({
    resource: RESOURCE,
    authorizationServers: [ISSUER],
    jwks: { keys: [key.jwk] },
    clockSkewMs: 0,
  });
  const verify = crypto.subtle.verify;
  let checks = 0;
  crypto.subtle.verify = function (...args: Parameters<typeof verify>) {
    checks++;
    return verify.apply(this, args);
  };
  try {
    const soon = Math.floor(Date.now() / 1000) + 1;
    const token = await signToken(key, RESOURCE, {}, { expiresIn: soon });
    await t.step(
      "five requests with one token, one signature check",
      async () => {
        for (let i = 0; i < 5; i++) {
          assert.equal((await send(token)).status, 200);
        }
        assert.equal(checks, 1);
        assert.equal(seen.length, 5);
      },
    );
    await t.step(
      "the same token for another resource is checked anew",
      async () => {
        const other = oauthResource({
          resource: "https://other.example.com/mcp",
          authorizationServers: [ISSUER],
          jwks: { keys: [key.jwk] },
        });
        const response = await other(
          new Request("https://other.example.com/mcp", {
            headers: { authorization: `Bearer ${token}` },
          }),
          () => Promise.resolve(new Response("passed")),
        );
        assert.equal(response.status, 401);
        assert.equal(checks, 2);
      },
    );
    await t.step(
      "once exp has passed the remembered token is refused",
      async () => {
        await new Promise((resolve) =>
          setTimeout(resolve, soon * 1000 - Date.now() + 50)
        );
        const response = await send(token);
        assert.equal(response.status, 401);
        assert.match(
          response.headers.get("www-authenticate") ?? "",
          /the token has expired/,
        );
      },
    );
  } finally {
    crypto.subtle.verify = verify;
  }
});

Deno.test("oauthResource() answers 503 when the JWKS cannot be fetched, and logs no token", async () => {
  const key = await signingKey("key-1");
  await using jwks = serveJwks([key.jwk]);
  jwks.failing = true;
  const { send } = harness({
    resource: RESOURCE,
    authorizationServers: [ISSUER],
    jwks: jwks.url,
  });
  const token = await signToken(key, RESOURCE);
  const logged: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => logged.push(args.join(" "));
  let response: Response;
  try {
    response = await send(token);
  } finally {
    console.error = original;
  }
  assert.equal(response.status, 503);
  assert.match(
    (await errorOf(response)).message,
    /keys could not be fetched/,
  );
  assert.equal(logged.length, 1);
  assert.match(logged[0], /Cannot fetch the JWKS at http:\/\/127\.0\.0\.1/);
  assert.ok(!logged[0].includes(token));
});

Deno.test("oauthResource() with local keys verifies without fetching anything", async () => {
  const key = await signingKey("key-1");
  const { send, seen } = harness({
    resource: RESOURCE,
    authorizationServers: [ISSUER],
    jwks: { keys: [key.jwk] },
  });
  assert.equal((await send(await signToken(key, RESOURCE))).status, 200);
  assert.equal(seen[0]?.subject, "ada");
  const other = await signingKey("key-1");
  assert.equal((await send(await signToken(other, RESOURCE))).status, 401);
});

Deno.test("oauthResource() with verify checks opaque tokens by the hook, holding its claims to active, exp, aud and iss", async (t) => {
  const now = Math.floor(Date.now() / 1000);
  const introspected: Record<string, Record<string, unknown>> = {
    good: {
      active: true,
      sub: "ada",
      scope: "mcp:tools",
      client_id: "c1",
      exp: now + 60,
      aud: RESOURCE,
      iss: ISSUER,
    },
    bare: { sub: "bob", scope: "mcp:tools" },
    inactive: { active: false },
    expired: { sub: "ada", scope: "mcp:tools", exp: now - 120 },
    foreign: { sub: "ada", scope: "mcp:tools", aud: ["https://other.example"] },
    untrusted: { sub: "ada", scope: "mcp:tools", iss: "https://evil.example" },
    narrow: { sub: "ada", scope: "notes:read" },
  };
  const { send, seen } = harness({
    resource: RESOURCE,
    authorizationServers: [ISSUER],
    scopes: ["mcp:tools"],
    verify: (token) => {
      if (token === "broken") throw new Error("introspection endpoint down");
      return introspected[token];
    },
  });
  await t.step(
    "a good token and a bare one pass, with their claims",
    async () => {
      assert.equal((await send("good")).status, 200);
      assert.equal((await send("bare")).status, 200);
      assert.deepEqual(seen.map((a) => [a?.subject, a?.clientId, a?.token]), [
        ["ada", "c1", "good"],
        ["bob", undefined, "bare"],
      ]);
    },
  );
  const cases: [string, number, RegExp][] = [
    ["unknown", 401, /error_description="the token is not valid"/],
    ["inactive", 401, /the token is not active/],
    ["expired", 401, /the token has expired/],
    ["foreign", 401, /not issued for this resource/],
    ["untrusted", 401, /not issued by a trusted authorization server/],
    ["narrow", 403, /insufficient_scope/],
  ];
  for (const [token, status, challenge] of cases) {
    await t.step(`${token}: ${status}`, async () => {
      const response = await send(token);
      assert.equal(response.status, status);
      assert.match(response.headers.get("www-authenticate") ?? "", challenge);
      await response.body?.cancel();
    });
  }
  await t.step(
    "a hook that throws: 500, logged without the token",
    async () => {
      const logged: string[] = [];
      const original = console.error;
      console.error = (...args: unknown[]) => logged.push(args.join(" "));
      try {
        const response = await send("broken");
        assert.equal(response.status, 500);
        await response.body?.cancel();
      } finally {
        console.error = original;
      }
      assert.equal(logged.length, 1);
      assert.match(logged[0], /introspection endpoint down/);
      assert.ok(!logged[0].includes("broken"));
    },
  );
});

Deno.test("oauthResource() rejects bad options with the reason", async (t) => {
  const base: OAuthResourceOptions = {
    authorizationServers: [ISSUER],
    jwks: "https://auth.example.com/jwks",
  };
  const cases: [string, OAuthResourceOptions, ErrorConstructor, RegExp][] = [
    [
      "no authorization servers",
      { ...base, authorizationServers: [] },
      TypeError,
      /authorizationServers must be a non-empty array/,
    ],
    [
      "an http issuer off loopback",
      { ...base, authorizationServers: ["http://auth.example.com"] },
      TypeError,
      /authorizationServers must be an absolute https: URL/,
    ],
    [
      "neither jwks nor verify",
      { authorizationServers: [ISSUER] },
      TypeError,
      /exactly one of jwks .* and verify/,
    ],
    [
      "both jwks and verify",
      { ...base, verify: () => undefined },
      TypeError,
      /exactly one of jwks .* and verify/,
    ],
    [
      "an http JWKS off loopback",
      { ...base, jwks: "http://auth.example.com/jwks" },
      TypeError,
      /jwks must be an absolute https: URL/,
    ],
    [
      "a JWKS without keys",
      { ...base, jwks: {} as { keys: JsonWebKey[] } },
      TypeError,
      /jwks must be a JWKS URL or \{ keys/,
    ],
    [
      "a resource with a fragment",
      { ...base, resource: "https://mcp.example.com/mcp#x" },
      TypeError,
      /must not have a fragment/,
    ],
    [
      "a scope with a space",
      { ...base, scopes: ["a b"] },
      TypeError,
      /scopes must be an array of scope names/,
    ],
    [
      "a symmetric algorithm",
      { ...base, algorithms: ["HS256"] },
      TypeError,
      /algorithms must be asymmetric/,
    ],
    [
      "a negative clock skew",
      { ...base, clockSkewMs: -1 },
      RangeError,
      /clockSkewMs must be a whole number of milliseconds >= 0, got -1/,
    ],
    [
      "a zero cache time",
      { ...base, jwksCacheMs: 0 },
      RangeError,
      /jwksCacheMs must be a whole number of milliseconds >= 1, got 0/,
    ],
  ];
  for (const [name, options, type, message] of cases) {
    await t.step(name, () => {
      assert.throws(
        () => oauthResource(options),
        (error: Error) =>
          error instanceof type &&
          error.message.startsWith("Cannot create OAuth resource server: ") &&
          message.test(error.message),
      );
    });
  }
  await t.step("createHttpHandler() refuses auth and oauth together", () => {
    assert.throws(
      () =>
        createHttpHandler(authServer(), {
          auth: { token: "abc" },
          oauth: base,
        }),
      (error: Error) =>
        error instanceof TypeError &&
        /auth and oauth exclude each other/.test(error.message),
    );
  });
});

Deno.test("ctx.auth is undefined without OAuth, over HTTP and in memory", async () => {
  const server = createServer({ name: "plain", version: "1" });
  server.tool({
    name: "auth",
    description: "Answers whether ctx.auth is set",
    handler: (_args, ctx) => text(String(ctx.auth)),
  });
  await using http = start({}, server);
  const { client } = await connectClient(http.url);
  try {
    const result = await client.callTool({ name: "auth", arguments: {} });
    assert.deepEqual(result.content, [{ type: "text", text: "undefined" }]);
  } finally {
    await client.close();
  }
  await using local = await connect(server);
  const result = await local.call("auth", {});
  assert.deepEqual(result.content, [{ type: "text", text: "undefined" }]);
});
