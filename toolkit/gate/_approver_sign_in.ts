// Internal: how an approver signs in to the approval page, with the same
// OAuth issuer as the gate's callers (`auth:`). A browser cannot send a
// bearer token without JavaScript, so the page runs the authorization-code
// flow with PKCE: /approvals/sign-in sends the browser to the issuer's
// authorization endpoint, /approvals/callback trades the code for an
// access token at its token endpoint, verifies it as the gate's resource
// server does (issuer, keys, the gate as audience), and sets a session
// cookie of the token's subject and groups, signed with this process's key
// (HMAC), HttpOnly, SameSite=Lax, Secure on https, for the token's life
// and at most eight hours. The flow's state and verifier ride in a signed
// cookie of their own, so a callback with another browser's code or state
// is refused.

import { type JwksSource, jwtVerifier, TokenRejected } from "../http/_jwt.ts";
import { DEFAULT_ALGORITHMS } from "../http/_jwt.ts";
import { isRecord } from "../_util/json_type.ts";
import type { Viewer } from "./approvals/_page.ts";

/** The client the gate signs approvers in as, registered with the issuer. */
export interface ApproverClient {
  /** Its `client_id`. */
  id: string;
  /** Its secret, for a confidential client (sent with HTTP Basic). */
  secret?: string;
}

/** Options for {@linkcode ApproverSignIn}. */
export interface ApproverSignInOptions {
  /** The authorization server's issuer URL (`auth.issuer`). */
  issuer: string;
  /** Its keys, as the resource server has them. */
  jwks: JwksSource;
  /** The gate's resource URL: the audience its tokens name. */
  audience: () => string;
  client: ApproverClient;
  /** The origin browsers reach the gate at (the callback's). */
  origin: () => string;
  /** The clock, in milliseconds since the epoch. */
  now?: () => number;
  /** The cookies' HMAC key, the same on every instance. @default {a random one} */
  key?: Uint8Array;
}

/** The path of the sign-in. */
export const SIGN_IN_PATH = "/approvals/sign-in";
/** The path the issuer sends the browser back to. */
export const CALLBACK_PATH = "/approvals/callback";

/** The session cookie and the flow's cookie. */
const SESSION = "forge_gate_approver";
const FLOW = "forge_gate_sign_in";
/** The longest a sign-in lasts, whatever the token says. */
const MAX_SESSION_MS = 8 * 60 * 60_000;
/** How long a browser may take at the issuer. */
const FLOW_MS = 10 * 60_000;
/** Where a sign-in may send the browser back to: an approval's page. */
const NEXT = /^\/approvals\/[A-Za-z0-9_-]{43}$/;

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-")
    .replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const plain = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(plain, (c) => c.charCodeAt(0));
}

function random(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** The value of cookie `name` in `request`, if sent. */
function cookie(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at !== -1 && part.slice(0, at).trim() === name) {
      return part.slice(at + 1).trim();
    }
  }
  return undefined;
}

/** What the issuer's metadata must give. */
interface Endpoints {
  authorization: string;
  token: string;
}

/**
 * The approval page's sign-in, against the gate's OAuth issuer: its two
 * routes, and `identify`, which reads the session cookie they set.
 */
export class ApproverSignIn {
  readonly #options: ApproverSignInOptions;
  readonly #key: Promise<CryptoKey>;
  readonly #now: () => number;
  readonly #verify: ReturnType<typeof jwtVerifier>;
  #endpoints: Promise<Endpoints> | undefined;

  constructor(options: ApproverSignInOptions) {
    if (typeof options.client?.id !== "string" || options.client.id === "") {
      throw new TypeError(
        "Cannot sign approvers in: the client id must be a non-empty string",
      );
    }
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#verify = jwtVerifier(options.jwks, 10 * 60_000);
    this.#key = crypto.subtle.importKey(
      "raw",
      new Uint8Array(options.key ?? crypto.getRandomValues(new Uint8Array(32))),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
  }

  /** Whether `pathname` is one of the sign-in's routes. */
  handles(pathname: string): boolean {
    return pathname === SIGN_IN_PATH || pathname === CALLBACK_PATH;
  }

  /** Answers the sign-in's routes. */
  handle(request: Request): Promise<Response> {
    if (request.method !== "GET") {
      return Promise.resolve(
        plain(405, "Method not allowed", { allow: "GET" }),
      );
    }
    const url = new URL(request.url);
    return url.pathname === SIGN_IN_PATH
      ? this.#start(url)
      : this.#callback(request, url);
  }

  /** Where a viewer who is not signed in is sent, to come back to `request`'s page. */
  redirect(request: Request): Response {
    const next = new URL(request.url).pathname;
    return new Response(null, {
      status: 303,
      headers: {
        location: `${SIGN_IN_PATH}?next=${encodeURIComponent(next)}`,
        "cache-control": "no-store",
      },
    });
  }

  /** The signed-in viewer of `request`, from the session cookie; `undefined` otherwise. */
  async identify(request: Request): Promise<Viewer | undefined> {
    const payload = await this.#open(cookie(request, SESSION));
    if (
      !isRecord(payload) || typeof payload.sub !== "string" ||
      typeof payload.exp !== "number" || payload.exp <= this.#now()
    ) {
      return undefined;
    }
    const groups = Array.isArray(payload.groups)
      ? payload.groups.filter((g): g is string => typeof g === "string")
      : [];
    return {
      sub: payload.sub,
      groups,
      ...(typeof payload.name === "string" ? { name: payload.name } : {}),
    };
  }

  async #start(url: URL): Promise<Response> {
    let endpoints: Endpoints;
    try {
      endpoints = await this.#discover();
    } catch (error) {
      return plain(
        502,
        `The sign-in cannot reach the issuer: ${(error as Error).message}`,
      );
    }
    const next = url.searchParams.get("next") ?? "";
    const state = random();
    const verifier = random();
    const challenge = base64url(
      new Uint8Array(
        await crypto.subtle.digest(
          "SHA-256",
          new TextEncoder().encode(verifier),
        ),
      ),
    );
    const target = new URL(endpoints.authorization);
    for (
      const [name, value] of Object.entries({
        response_type: "code",
        client_id: this.#options.client.id,
        redirect_uri: this.#callbackUrl(),
        state,
        code_challenge: challenge,
        code_challenge_method: "S256",
        resource: this.#options.audience(),
      })
    ) target.searchParams.set(name, value);
    const flow = await this.#seal({
      state,
      verifier,
      next: NEXT.test(next) ? next : undefined,
      exp: this.#now() + FLOW_MS,
    });
    return new Response(null, {
      status: 303,
      headers: {
        location: target.href,
        "cache-control": "no-store",
        "set-cookie": this.#cookie(FLOW, flow, FLOW_MS),
      },
    });
  }

  async #callback(request: Request, url: URL): Promise<Response> {
    const flow = await this.#open(cookie(request, FLOW));
    const state = url.searchParams.get("state");
    const code = url.searchParams.get("code");
    if (
      !isRecord(flow) || typeof flow.state !== "string" ||
      typeof flow.verifier !== "string" || typeof flow.exp !== "number" ||
      flow.exp <= this.#now() || state === null || state !== flow.state
    ) {
      return plain(
        400,
        "The sign-in was not started in this browser, or took too long: sign in again.",
      );
    }
    if (code === null) {
      return plain(
        401,
        `The issuer did not sign you in: ${
          url.searchParams.get("error") ?? "no code"
        }.`,
      );
    }
    let claims: Record<string, unknown>;
    try {
      const token = await this.#exchange(code, flow.verifier);
      claims = await this.#verify(token, {
        issuers: [this.#options.issuer],
        audiences: [this.#options.audience()],
        clockToleranceS: 30,
        algorithms: DEFAULT_ALGORITHMS,
      });
    } catch (error) {
      const why = error instanceof TokenRejected
        ? error.reason
        : (error as Error).message;
      return plain(401, `The sign-in failed: ${why}`);
    }
    if (typeof claims.sub !== "string" || claims.sub === "") {
      return plain(401, "The sign-in failed: the token names no subject.");
    }
    const groups = Array.isArray(claims.groups)
      ? claims.groups.filter((g): g is string => typeof g === "string")
      : typeof claims.groups === "string"
      ? [claims.groups]
      : [];
    const now = this.#now();
    const exp = Math.min(
      typeof claims.exp === "number" ? claims.exp * 1000 : now,
      now + MAX_SESSION_MS,
    );
    const session = await this.#seal({
      sub: claims.sub,
      groups,
      ...(typeof claims.name === "string" ? { name: claims.name } : {}),
      exp,
    });
    const headers = new Headers({ "cache-control": "no-store" });
    headers.append(
      "set-cookie",
      this.#cookie(SESSION, session, Math.max(0, exp - now)),
    );
    headers.append("set-cookie", this.#cookie(FLOW, "", 0));
    if (typeof flow.next === "string" && NEXT.test(flow.next)) {
      headers.set("location", flow.next);
      return new Response(null, { status: 303, headers });
    }
    headers.set("content-type", "text/plain; charset=utf-8");
    return new Response(`Signed in as ${claims.sub}.\n`, {
      status: 200,
      headers,
    });
  }

  /** The access token the token endpoint gives for `code`. */
  async #exchange(code: string, verifier: string): Promise<string> {
    const { token } = await this.#discover();
    const { id, secret } = this.#options.client;
    const body = new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: this.#callbackUrl(),
      code_verifier: verifier,
      resource: this.#options.audience(),
    });
    const headers: Record<string, string> = {
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    };
    if (secret === undefined) body.set("client_id", id);
    else {
      headers.authorization = `Basic ${
        btoa(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`)
      }`;
    }
    const response = await fetch(token, {
      method: "POST",
      headers,
      body,
      redirect: "error",
      signal: AbortSignal.timeout(10_000),
    });
    const answer = await response.json().catch(() => undefined);
    if (!response.ok || !isRecord(answer)) {
      throw new Error(
        `the token endpoint answered ${response.status}${
          isRecord(answer) && typeof answer.error === "string"
            ? ` ${answer.error}`
            : ""
        }`,
      );
    }
    if (typeof answer.access_token !== "string") {
      throw new Error("the token endpoint gave no access token");
    }
    return answer.access_token;
  }

  /** The issuer's endpoints, from its metadata (RFC 8414, then OpenID). */
  #discover(): Promise<Endpoints> {
    const found = this.#endpoints ??= (async () => {
      const issuer = new URL(this.#options.issuer);
      const path = issuer.pathname === "/" ? "" : issuer.pathname;
      const tried: string[] = [];
      for (
        const where of [
          `${issuer.origin}/.well-known/oauth-authorization-server${path}`,
          `${
            this.#options.issuer.replace(/\/$/, "")
          }/.well-known/openid-configuration`,
        ]
      ) {
        const response = await fetch(where, {
          redirect: "error",
          signal: AbortSignal.timeout(10_000),
        }).catch(() => undefined);
        const metadata = await response?.json().catch(() => undefined);
        if (!response?.ok || !isRecord(metadata)) {
          tried.push(where);
          continue;
        }
        if (metadata.issuer !== this.#options.issuer) {
          throw new Error(`${where} names another issuer`);
        }
        const { authorization_endpoint: authorization, token_endpoint: token } =
          metadata;
        if (typeof authorization !== "string" || typeof token !== "string") {
          throw new Error(`${where} names no authorization or token endpoint`);
        }
        return { authorization, token };
      }
      throw new Error(`no metadata at ${tried.join(" or ")}`);
    })();
    // A failed discovery is tried again by the next sign-in.
    found.catch(() => {
      if (this.#endpoints === found) this.#endpoints = undefined;
    });
    return found;
  }

  #callbackUrl(): string {
    return `${this.#options.origin()}${CALLBACK_PATH}`;
  }

  #cookie(name: string, value: string, maxAgeMs: number): string {
    const secure = this.#options.origin().startsWith("https:")
      ? "; Secure"
      : "";
    return `${name}=${value}; Path=/approvals/; Max-Age=${
      Math.floor(maxAgeMs / 1000)
    }; HttpOnly; SameSite=Lax${secure}`;
  }

  /** `payload` as a cookie value: its JSON and its HMAC, base64url. */
  async #seal(payload: Record<string, unknown>): Promise<string> {
    const body = new TextEncoder().encode(JSON.stringify(payload));
    const mac = await crypto.subtle.sign("HMAC", await this.#key, body);
    return `${base64url(body)}.${base64url(new Uint8Array(mac))}`;
  }

  /** The payload of a sealed value, if its HMAC is this process's. */
  async #open(value: string | undefined): Promise<unknown> {
    if (value === undefined || value.length > 4096) return undefined;
    const [body, mac, extra] = value.split(".");
    if (body === undefined || mac === undefined || extra !== undefined) {
      return undefined;
    }
    try {
      const bytes = fromBase64url(body);
      const good = await crypto.subtle.verify(
        "HMAC",
        await this.#key,
        fromBase64url(mac),
        bytes,
      );
      return good ? JSON.parse(new TextDecoder().decode(bytes)) : undefined;
    } catch {
      return undefined;
    }
  }
}

function plain(
  status: number,
  text: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(`${text}\n`, {
    status,
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      ...headers,
    },
  });
}
