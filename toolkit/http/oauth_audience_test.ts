// Issue 22: without `resource`, the audience a token must name was built
// from `request.url`, which Deno takes from an absolute-form request line or
// the raw Host. These tests speak raw HTTP/1.1 over TCP, so that the request
// line and Host are exactly what a hostile client writes.

import assert from "node:assert/strict";
import { oauthResource } from "./oauth_resource.ts";
import {
  authServer,
  ISSUER,
  serveJwks,
  signingKey,
  signToken,
} from "./_jwt_test_helpers.ts";
import { INITIALIZE, rawRequest, start } from "./_test_helpers.ts";

const OTHER = "https://mcp.other.example/mcp";

/** An initialize over raw TCP with the given request line and Host. */
function initializeRaw(
  port: number,
  line: string,
  host: string,
  token: string,
): Promise<{ status: number; text: string }> {
  return rawRequest(port, [
    line,
    `host: ${host}`,
    `authorization: Bearer ${token}`,
    "content-type: application/json",
    "accept: application/json, text/event-stream",
  ], JSON.stringify(INITIALIZE));
}

/** A header of a raw reply, by lower-cased name. */
function headerOf(reply: string, name: string): string | undefined {
  const head = reply.split("\r\n\r\n")[0].split("\r\n");
  const line = head.find((l) => l.toLowerCase().startsWith(`${name}:`));
  return line?.slice(name.length + 1).trim();
}

Deno.test("oauth without resource takes the audience from the guarded Host, never from the request line", async (t) => {
  const key = await signingKey("key-1");
  await using jwks = serveJwks([key.jwk]);
  await using http = start(
    { oauth: { authorizationServers: [ISSUER], jwks: jwks.url } },
    authServer(),
  );
  const port = http.addr.port;
  const own = `http://127.0.0.1:${port}/mcp`;

  await t.step(
    "a token for another server, sent in an absolute-form request line, is refused 401 invalid_token",
    async () => {
      const reply = await initializeRaw(
        port,
        `POST ${OTHER} HTTP/1.1`,
        `127.0.0.1:${port}`,
        await signToken(key, OTHER),
      );
      assert.equal(reply.status, 401);
      const challenge = headerOf(reply.text, "www-authenticate") ?? "";
      assert.match(challenge, /error="invalid_token"/);
      assert.match(challenge, /\(aud\)/);
      // The challenge points at this server's document, not the other's.
      assert.match(
        challenge,
        new RegExp(
          `resource_metadata="http://127\\.0\\.0\\.1:${port}/\\.well-known/oauth-protected-resource/mcp"`,
        ),
      );
    },
  );

  await t.step(
    "the same request line with a token for this server is served",
    async () => {
      const reply = await initializeRaw(
        port,
        `POST ${OTHER} HTTP/1.1`,
        `127.0.0.1:${port}`,
        await signToken(key, own),
      );
      assert.equal(reply.status, 200);
    },
  );

  await t.step(
    "Host localhost:1@evil.example is refused before any token is looked at",
    async () => {
      const reply = await initializeRaw(
        port,
        "POST /mcp HTTP/1.1",
        "localhost:1@evil.example",
        await signToken(key, "http://evil.example/mcp"),
      );
      assert.equal(reply.status, 400);
      assert.match(reply.text, /Host/);
    },
  );

  await t.step(
    "the metadata document names the guarded Host, not the request line",
    async () => {
      const reply = await rawRequest(port, [
        "GET https://mcp.other.example/.well-known/oauth-protected-resource/mcp HTTP/1.1",
        `host: 127.0.0.1:${port}`,
      ]);
      assert.equal(reply.status, 200);
      const body = JSON.parse(reply.text.split("\r\n\r\n")[1]);
      assert.equal(body.resource, own);
    },
  );
});

Deno.test("the host guard refuses a Host that is not exactly host[:port] with 400", async () => {
  await using http = start();
  const port = http.addr.port;
  const bad = [
    "localhost:1@evil.example",
    "user@localhost",
    "localhost:",
    "localhost:0",
    "localhost:65536",
    "localhost:80x",
    "localhost:1:2",
    "local host",
    "localhost\\evil.example",
    "[::1",
    "[::1]x",
    "[::1]:",
    "[::1%25eth0]",
    "",
  ];
  for (const host of bad) {
    const reply = await rawRequest(port, [
      "POST /mcp HTTP/1.1",
      `host: ${host}`,
      "content-type: application/json",
      "accept: application/json, text/event-stream",
    ], JSON.stringify(INITIALIZE));
    assert.equal(reply.status, 400, JSON.stringify(host));
    assert.match(reply.text, /Bad Request: Host/, JSON.stringify(host));
  }
  for (const host of [`localhost:${port}`, "LOCALHOST", `[::1]:${port}`]) {
    const reply = await rawRequest(port, [
      "POST /mcp HTTP/1.1",
      `host: ${host}`,
      "content-type: application/json",
      "accept: application/json, text/event-stream",
    ], JSON.stringify(INITIALIZE));
    assert.equal(reply.status, 200, host);
  }
});

Deno.test("oauthResource() alone without resource derives an audience only for a loopback Host", async () => {
  const key = await signingKey("key-1");
  const layer = oauthResource({
    authorizationServers: [ISSUER],
    jwks: { keys: [key.jwk] },
  });
  const next = () => Promise.resolve(new Response("passed"));
  const send = async (url: string, host: string | undefined, aud: string) =>
    await layer(
      new Request(url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${await signToken(key, aud)}`,
          ...(host === undefined ? {} : { host }),
        },
        body: "{}",
      }),
      next,
    );

  // No guard in front: a foreign Host must not choose the audience.
  const foreign = await send(
    "http://127.0.0.1:8000/mcp",
    "mcp.other.example",
    OTHER,
  );
  assert.equal(foreign.status, 403);
  assert.match(await foreign.text(), /resource/);
  const bad = await send(
    "http://127.0.0.1:8000/mcp",
    "localhost:1@evil.example",
    "http://evil.example/mcp",
  );
  assert.equal(bad.status, 400);
  await bad.body?.cancel();
  // The scheme is http on loopback whatever the request URL says.
  const https = await send(
    "https://localhost:8000/mcp",
    undefined,
    "https://localhost:8000/mcp",
  );
  assert.equal(https.status, 401);
  await https.body?.cancel();
  const good = await send(
    "https://mcp.other.example/mcp",
    "localhost:8000",
    "http://localhost:8000/mcp",
  );
  assert.equal(good.status, 200);
  await good.body?.cancel();
});
