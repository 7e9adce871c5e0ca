// Internal: a request rebuilt for the next layer without reading the
// original's `signal`. `new Request(request, init)` copies the signal, and
// under Deno.serve reading it prints a warning about its legacy abort on
// successful responses; no layer here relies on that signal.

/** What a copy changes; everything else (url, method, body) is kept. */
export interface RequestChanges {
  headers?: HeadersInit;
  body?: BodyInit | null;
}

export function copyRequest(
  request: Request,
  changes: RequestChanges = {},
): Request {
  const body = "body" in changes ? changes.body : request.body;
  const init: RequestInit & { duplex?: "half" } = {
    method: request.method,
    headers: changes.headers ?? request.headers,
    body,
    redirect: request.redirect,
  };
  // A stream body must say it is sent as it arrives.
  if (body instanceof ReadableStream) init.duplex = "half";
  return new Request(request.url, init);
}

/** The same request without its `Authorization` header, body and all. */
export function withoutAuthorization(request: Request): Request {
  // Incoming headers are immutable; filtering into a list is the cheapest copy.
  const headers: [string, string][] = [];
  for (const entry of request.headers) {
    if (entry[0] !== "authorization") headers.push(entry);
  }
  return copyRequest(request, { headers });
}
