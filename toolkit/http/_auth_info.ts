// Internal: how a verified token travels from the OAuth layer to the
// sessions layer. The layers hand each other web-standard Requests only, so
// the token's AuthInfo is kept beside the Request object it belongs to; a
// WeakMap lets it go with the request, and nothing outside this package can
// set it (a header could be forged by the client).

import type { AuthInfo } from "../jsonrpc/types.ts";

const AUTH = new WeakMap<Request, AuthInfo>();

/** Records that `request` carries the verified token `auth`. */
export function setAuthInfo(request: Request, auth: AuthInfo): void {
  AUTH.set(request, auth);
}

/** The verified token `request` carries, if any. */
export function authInfoOf(request: Request): AuthInfo | undefined {
  return AUTH.get(request);
}

/**
 * Keeps the token of `from` on `to`, a request a layer made from it (the
 * body limit wraps the body in a new Request).
 */
export function carryAuthInfo(from: Request, to: Request): Request {
  if (from !== to && !AUTH.has(to)) {
    const auth = AUTH.get(from);
    if (auth !== undefined) AUTH.set(to, auth);
  }
  return to;
}

/**
 * Whom a verified token speaks for, as a session's owner: its issuer with
 * its subject (`sub`), or with its client (`client_id`) when it has no
 * subject (a client-credentials token). A token refreshed for the same user
 * has the same owner; scopes and expiry do not count.
 */
export function ownerOf(auth: AuthInfo | undefined): string | undefined {
  if (auth === undefined) return undefined;
  const issuer = typeof auth.claims.iss === "string" ? auth.claims.iss : null;
  return JSON.stringify(
    auth.subject !== undefined
      ? [issuer, "sub", auth.subject]
      : [issuer, "client", auth.clientId ?? null],
  );
}
