// Internal: a request URL's path without parsing the whole URL. Every
// request crosses this twice (the handler and the sessions layer), and
// `new URL()` costs a few microseconds each time; a Request's `url` is
// already serialised, so for http(s) the path is a plain slice of it.

/** `new URL(url).pathname`, for the serialised URL of a Request. */
export function pathnameOf(url: string): string {
  const after = url.startsWith("http://")
    ? 7
    : url.startsWith("https://")
    ? 8
    : -1;
  // A serialised authority percent-encodes "/", "?" and "#", and an http(s)
  // URL always has a path, so the first "/" after the scheme starts it.
  const start = after === -1 ? -1 : url.indexOf("/", after);
  if (start === -1) return new URL(url).pathname;
  const query = url.indexOf("?", start);
  const fragment = url.indexOf("#", start);
  const end = query === -1
    ? fragment
    : fragment === -1
    ? query
    : Math.min(query, fragment);
  return end === -1 ? url.slice(start) : url.slice(start, end);
}
