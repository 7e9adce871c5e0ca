// For the tests of the approvers' sign-in to the approval page: a tiny
// OAuth authorization server on 127.0.0.1 (metadata, authorization and
// token endpoints, PKCE checked) that signs in its current user at once
// and gives callers' tokens too, and a browser played with fetch and a
// cookie jar.

import assert from "node:assert/strict";
import { signingKey, signToken } from "../../http/_jwt_test_helpers.ts";

/** The OAuth client the gate's approvers sign in as. */
export const CLIENT = { id: "gate-approvals", secret: crypto.randomUUID() };

/** An authorization server on 127.0.0.1: it signs in `user` at once. */
export async function authorizationServer() {
  const key = await signingKey("k1");
  const codes = new Map<
    string,
    { challenge: string; redirect: string; resource: string; sub: string }
  >();
  const state = {
    user: "bob",
    groups: [] as string[],
    /** The audience of the tokens it gives: the resource asked for, unless set. */
    audience: undefined as string | undefined,
    tokens: 0,
  };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const url = new URL(request.url);
      const issuer = url.origin;
      if (url.pathname === "/.well-known/oauth-authorization-server") {
        return Response.json({
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          code_challenge_methods_supported: ["S256"],
        });
      }
      if (url.pathname === "/authorize") {
        const q = url.searchParams;
        assert.equal(q.get("client_id"), CLIENT.id);
        assert.equal(q.get("code_challenge_method"), "S256");
        const code = crypto.randomUUID();
        codes.set(code, {
          challenge: q.get("code_challenge")!,
          redirect: q.get("redirect_uri")!,
          resource: q.get("resource")!,
          sub: state.user,
        });
        const back = new URL(q.get("redirect_uri")!);
        back.searchParams.set("code", code);
        back.searchParams.set("state", q.get("state")!);
        return new Response(null, {
          status: 302,
          headers: { location: back.href },
        });
      }
      if (url.pathname === "/token" && request.method === "POST") {
        const form = new URLSearchParams(await request.text());
        const basic = `Basic ${btoa(`${CLIENT.id}:${CLIENT.secret}`)}`;
        const grant = codes.get(form.get("code") ?? "");
        codes.delete(form.get("code") ?? "");
        const digest = new Uint8Array(
          await crypto.subtle.digest(
            "SHA-256",
            new TextEncoder().encode(form.get("code_verifier") ?? ""),
          ),
        );
        const challenge = btoa(String.fromCharCode(...digest))
          .replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
        if (
          request.headers.get("authorization") !== basic ||
          grant === undefined || grant.challenge !== challenge ||
          grant.redirect !== form.get("redirect_uri")
        ) {
          return Response.json({ error: "invalid_grant" }, { status: 400 });
        }
        state.tokens++;
        return Response.json({
          token_type: "Bearer",
          access_token: await signToken(
            key,
            state.audience ?? grant.resource,
            { sub: grant.sub, groups: state.groups },
            { issuer },
          ),
        });
      }
      return new Response("not found", { status: 404 });
    },
  );
  const issuer = `http://127.0.0.1:${server.addr.port}`;
  return {
    issuer,
    jwks: { keys: [key.jwk] },
    /** A caller's access token for the gate at `resource`. */
    token: (sub: string, resource: string) =>
      signToken(key, resource, { sub }, { issuer }),
    state,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** A browser's cookies, by name, as the gate sets them. */
export class Jar {
  cookies = new Map<string, string>();
  /** The attributes of each cookie set last. */
  attributes = new Map<string, string>();

  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...rest] = line.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      this.attributes.set(name, rest.join(";"));
      if (value === "" || /max-age=0(;|$)/i.test(line)) {
        this.cookies.delete(name);
      } else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`)
      .join("; ");
  }
}

/** A GET as a browser sends it, without following redirects. */
export async function visit(url: string, jar: Jar): Promise<Response> {
  const response = await fetch(url, {
    redirect: "manual",
    headers: { cookie: jar.header() },
  });
  jar.take(response);
  return response;
}

/** Follows redirects from `url` until a page answers, as a browser does. */
export async function browse(url: string, jar: Jar): Promise<Response> {
  for (let hops = 0; hops < 10; hops++) {
    const response = await visit(url, jar);
    const location = response.headers.get("location");
    if (response.status < 300 || response.status >= 400 || !location) {
      return response;
    }
    await response.body?.cancel();
    url = new URL(location, url).href;
  }
  throw new Error("too many redirects");
}

/** The page's form token for the viewer in `html`. */
export function csrfOf(html: string): string {
  const csrf = html.match(/name="csrf" value="([^"]+)"/)?.[1];
  assert.ok(csrf, html);
  return csrf;
}

/**
 * Posts the form of the approval page `page` as the page itself does, in
 * the browser of `jar`: `decision` with the token `csrf`. Resolves with
 * the status (303 for a decision taken).
 */
export async function decide(
  page: string,
  jar: Jar,
  { csrf, decision = "approve" }: { csrf: string; decision?: string },
): Promise<number> {
  const response = await fetch(page, {
    method: "POST",
    redirect: "manual",
    headers: {
      cookie: jar.header(),
      origin: new URL(page).origin,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ csrf, decision }),
  });
  await response.body?.cancel();
  return response.status;
}
