// Issue 22: without `resource`, the audience a token must name was built
// from `request.url`, which Deno takes from an absolute-form request line or
// the raw Host; issue 27: then from the Host, which named another port.
// These tests speak raw HTTP/1.1 over TCP, so that the request line and
// Host are exactly what a hostile client writes.

import assert from "node:assert/strict";
import { oauthResource } from "./oauth_resource.ts";
import { createHttpHandler } from "./handler.ts";
import {
  authServer,
  ISSUER,
  serveJwks,
  signingKey,
  signToken,
} from "./_jwt_test_helpers.ts";
import { INITIALIZE, post, rawRequest, start } from "./_test_helpers.ts";

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

Deno.test("oauth without resource never takes the audience from the request line", async (t) => {
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
    "the metadata document names this server, not the request line",
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

Deno.test("oauth without resource takes the audience from the address it listens on, never from Host", async (t) => {
  const key = await signingKey("key-1");
  await using jwks = serveJwks([key.jwk]);
  await using http = start(
    { oauth: { authorizationServers: [ISSUER], jwks: jwks.url } },
    authServer(),
  );
  const port = http.addr.port;
  // Another server on this machine, whose tokens a client holds.
  const elsewhere = port === 4000 ? 4001 : 4000;
  const metadataOf = async (host: string) => {
    const reply = await rawRequest(port, [
      "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1",
      `host: ${host}`,
    ]);
    assert.equal(reply.status, 200);
    return JSON.parse(reply.text.split("\r\n\r\n")[1]);
  };

  await t.step(
    `a token for http://localhost:${elsewhere}/mcp sent with Host localhost:${elsewhere} is refused 401`,
    async () => {
      const reply = await initializeRaw(
        port,
        "POST /mcp HTTP/1.1",
        `localhost:${elsewhere}`,
        await signToken(key, `http://localhost:${elsewhere}/mcp`),
      );
      assert.equal(reply.status, 401);
      const challenge = headerOf(reply.text, "www-authenticate") ?? "";
      assert.match(challenge, /error="invalid_token"/);
      assert.match(challenge, /\(aud\)/);
      // The challenge names this server's port, not the one Host gave.
      assert.match(
        challenge,
        new RegExp(
          `resource_metadata="http://localhost:${port}/\\.well-known/oauth-protected-resource/mcp"`,
        ),
      );
    },
  );

  await t.step(
    "a token for [::1] on this port is refused: the server does not listen there",
    async () => {
      const reply = await initializeRaw(
        port,
        "POST /mcp HTTP/1.1",
        `127.0.0.1:${port}`,
        await signToken(key, `http://[::1]:${port}/mcp`),
      );
      assert.equal(reply.status, 401);
    },
  );

  for (const name of ["127.0.0.1", "localhost"]) {
    await t.step(
      `a token for http://${name}:${port}/mcp is served`,
      async () => {
        for (const host of [`${name}:${port}`, `127.0.0.1:${port}`]) {
          const reply = await initializeRaw(
            port,
            "POST /mcp HTTP/1.1",
            host,
            await signToken(key, `http://${name}:${port}/mcp`),
          );
          assert.equal(reply.status, 200, host);
        }
      },
    );
  }

  await t.step(
    "the metadata document names this server's port whatever Host says",
    async () => {
      assert.equal(
        (await metadataOf(`localhost:${elsewhere}`)).resource,
        `http://localhost:${port}/mcp`,
      );
      assert.equal(
        (await metadataOf(`127.0.0.1:${port}`)).resource,
        `http://127.0.0.1:${port}/mcp`,
      );
      assert.equal(
        (await metadataOf("localhost")).resource,
        `http://localhost:${port}/mcp`,
      );
    },
  );

  await t.step(
    "Host [::1], a loopback name that does not reach this server, gets 403",
    async () => {
      const reply = await initializeRaw(
        port,
        "POST /mcp HTTP/1.1",
        `[::1]:${port}`,
        await signToken(key, `http://[::1]:${port}/mcp`),
      );
      assert.equal(reply.status, 403);
      assert.match(reply.text, /set oauth\.resource/);
    },
  );
});

Deno.test("oauth without resource on [::1] takes [::1] and localhost on its port as the audience, not 127.0.0.1", async () => {
  const key = await signingKey("key-1");
  await using jwks = serveJwks([key.jwk]);
  await using http = start(
    {
      hostname: "::1",
      oauth: { authorizationServers: [ISSUER], jwks: jwks.url },
    },
    authServer(),
  );
  const port = http.addr.port;
  const statusFor = async (audience: string) => {
    const response = await post(http.url, INITIALIZE, {
      authorization: `Bearer ${await signToken(key, audience)}`,
    });
    await response.body?.cancel();
    return response.status;
  };
  assert.equal(await statusFor(`http://[::1]:${port}/mcp`), 200);
  assert.equal(await statusFor(`http://localhost:${port}/mcp`), 200);
  // Another server may listen on 127.0.0.1 at this port.
  assert.equal(await statusFor(`http://127.0.0.1:${port}/mcp`), 401);
});

Deno.test("oauth without resource refuses to start where the address it listens on is unknown", async (t) => {
  const key = await signingKey("key-1");
  const oauth = { authorizationServers: [ISSUER], jwks: { keys: [key.jwk] } };

  await t.step("oauthResource() alone", () => {
    assert.throws(
      () => oauthResource(oauth),
      (error) =>
        error instanceof TypeError &&
        /resource is required: set it to the public URL of the endpoint/
          .test(error.message),
    );
  });
  await t.step("createHttpHandler(), for Deno.serve or Hono", () => {
    assert.throws(
      () => createHttpHandler(authServer(), { oauth }),
      (error) =>
        error instanceof TypeError &&
        /resource is required.*"http:\/\/127\.0\.0\.1:8080\/mcp"/.test(
          error.message,
        ),
    );
  });
  await t.step("with resource, both start", async () => {
    const resource = "http://localhost:8080/mcp";
    assert.equal(typeof oauthResource({ ...oauth, resource }), "function");
    const handler = createHttpHandler(authServer(), {
      oauth: { ...oauth, resource },
    });
    await handler.close();
  });
});
