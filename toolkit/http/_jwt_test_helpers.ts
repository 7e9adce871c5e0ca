// Test-only: an authorization server's keys made in the test, a JWKS
// endpoint on a free port that counts its fetches, and tokens signed with
// them.

import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { createServer, text, type ToolServer } from "../../mod.ts";

export const ISSUER = "https://auth.example.com";

/** A signing key with its public JWK, as an authorization server has them. */
export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JsonWebKey & { kid: string; alg: string };
}

export async function signingKey(kid: string): Promise<SigningKey> {
  const { publicKey, privateKey } = await generateKeyPair("ES256");
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: "ES256" };
  return { kid, privateKey, jwk: jwk as SigningKey["jwk"] };
}

/** A JWKS endpoint on 127.0.0.1 that serves `keys` and counts its fetches. */
export interface JwksServer extends AsyncDisposable {
  readonly url: string;
  readonly fetches: number;
  keys: JsonWebKey[];
  /** Answer 500 from now on, as an authorization server that is down. */
  failing: boolean;
}

export function serveJwks(keys: JsonWebKey[]): JwksServer {
  let fetches = 0;
  const state = { keys, failing: false };
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => {
      fetches++;
      return state.failing
        ? new Response("down", { status: 500 })
        : Response.json({ keys: state.keys });
    },
  );
  return {
    url: `http://127.0.0.1:${listener.addr.port}/jwks`,
    get fetches() {
      return fetches;
    },
    get keys() {
      return state.keys;
    },
    set keys(value) {
      state.keys = value;
    },
    get failing() {
      return state.failing;
    },
    set failing(value) {
      state.failing = value;
    },
    [Symbol.asyncDispose]: () => listener.shutdown(),
  };
}

/** What a token should say; the defaults make a good one for `audience`. */
export interface TokenClaims extends JWTPayload {
  scope?: string;
  client_id?: string;
}

export async function signToken(
  key: SigningKey,
  audience: string,
  claims: TokenClaims = {},
  options: { issuer?: string; expiresIn?: string | number } = {},
): Promise<string> {
  return await new SignJWT({
    scope: "mcp:tools",
    client_id: "test-client",
    sub: "ada",
    ...claims,
  })
    .setProtectedHeader({ alg: "ES256", kid: key.kid, typ: "at+jwt" })
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? "5m")
    .sign(key.privateKey);
}

/** A server with a tool that answers what it knows of the caller's token. */
export function authServer(): ToolServer {
  const server = createServer({ name: "oauth-test", version: "1.0.0" });
  server.tool({
    name: "whoami",
    description: "Answers ctx.auth, and the token it carries",
    input: {
      type: "object",
      properties: { waitMs: { type: "number" } },
    },
    handler: async (args, ctx) => {
      const { waitMs } = args as { waitMs?: number };
      // Read before and after a wait: a later request's token must not leak
      // in. The client, since a session serves only one subject.
      const before = ctx.auth?.clientId;
      if (waitMs !== undefined) {
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
      return text(JSON.stringify({
        auth: ctx.auth ?? null,
        token: ctx.auth?.token ?? null,
        before,
      }));
    },
  });
  return server;
}
