// The SDK's own OAuth client against the resource server: it must find the
// authorization server through the 401's resource_metadata, get a token for
// this resource (RFC 8707) from a real token endpoint, and reach the tool.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { SignJWT } from "jose";
import {
  authServer,
  type SigningKey,
  signingKey,
} from "./_jwt_test_helpers.ts";
import { start } from "./_test_helpers.ts";

interface TokenRequest {
  grantType: string | null;
  resource: string | null;
  scope: string | null;
  client: string | null;
}

/** A small authorization server: metadata, JWKS and a client_credentials token endpoint. */
function authorizationServer(key: SigningKey) {
  const requests: TokenRequest[] = [];
  let issuer = "";
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const { pathname } = new URL(request.url);
      if (pathname === "/.well-known/oauth-authorization-server") {
        return Response.json({
          issuer,
          // Required by RFC 8414 parsers, unused by client_credentials.
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ["code"],
          grant_types_supported: ["client_credentials"],
          token_endpoint_auth_methods_supported: ["client_secret_basic"],
        });
      }
      if (pathname === "/jwks") return Response.json({ keys: [key.jwk] });
      if (pathname === "/token" && request.method === "POST") {
        const form = new URLSearchParams(await request.text());
        const basic = request.headers.get("authorization") ?? "";
        const client = basic.startsWith("Basic ")
          ? atob(basic.slice(6)).split(":")[0]
          : null;
        const asked: TokenRequest = {
          grantType: form.get("grant_type"),
          resource: form.get("resource"),
          scope: form.get("scope"),
          client,
        };
        requests.push(asked);
        if (basic !== `Basic ${btoa("robot:s3cret")}`) {
          return Response.json({ error: "invalid_client" }, { status: 401 });
        }
        const token = await new SignJWT({
          scope: asked.scope ?? "",
          client_id: client,
        })
          .setProtectedHeader({ alg: "ES256", kid: key.kid, typ: "at+jwt" })
          .setIssuer(issuer)
          .setSubject(client!)
          // Bound to the resource the client named, as RFC 8707 says.
          .setAudience(asked.resource ?? "")
          .setIssuedAt()
          .setExpirationTime("5m")
          .sign(key.privateKey);
        return Response.json({
          access_token: token,
          token_type: "Bearer",
          expires_in: 300,
          scope: asked.scope ?? "",
        });
      }
      return new Response("not found", { status: 404 });
    },
  );
  issuer = `http://127.0.0.1:${listener.addr.port}`;
  return {
    issuer,
    requests,
    [Symbol.asyncDispose]: () => listener.shutdown(),
  };
}

Deno.test("the SDK's OAuth client discovers the authorization server from the 401, gets a token for this resource and reaches the tool", async (t) => {
  const key = await signingKey("as-key");
  await using as = authorizationServer(key);
  await using http = start(
    {
      oauth: {
        authorizationServers: [as.issuer],
        jwks: `${as.issuer}/jwks`,
        scopes: ["mcp:tools"],
      },
    },
    authServer(),
  );
  const connect = async (scope?: string) => {
    const provider = new ClientCredentialsProvider({
      clientId: "robot",
      clientSecret: "s3cret",
      scope,
    });
    const client = new Client({ name: "oauth-flow-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(http.url, { authProvider: provider }),
    );
    return client;
  };

  await t.step(
    "with the scope: a token bound to this resource, claims in ctx.auth",
    async () => {
      const client = await connect("mcp:tools");
      try {
        const result = await client.callTool({ name: "whoami", arguments: {} });
        const content = (result as { content: { text: string }[] }).content;
        const { auth } = JSON.parse(content[0].text);
        assert.equal(auth.subject, "robot");
        assert.equal(auth.clientId, "robot");
        assert.deepEqual(auth.scopes, ["mcp:tools"]);
        assert.equal(auth.claims.aud, http.url.href);
        assert.equal(auth.claims.iss, as.issuer);
        // One token, asked for the resource the metadata named.
        assert.deepEqual(as.requests, [{
          grantType: "client_credentials",
          resource: http.url.href,
          scope: "mcp:tools",
          client: "robot",
        }]);
      } finally {
        await client.close();
      }
    },
  );

  await t.step(
    "without it: the SDK reads the 403 as insufficient_scope",
    async () => {
      as.requests.length = 0;
      await assert.rejects(connect(), /403 after trying upscoping/);
      assert.ok(as.requests.length >= 1);
      assert.ok(as.requests.every((r) => r.resource === http.url.href));
    },
  );
});
