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
