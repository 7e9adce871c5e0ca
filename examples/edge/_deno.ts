// The Deno entry: Deno.serve speaks Request and Response itself. Bundled by
// serve.ts like the others, so that Deno runs the same built file; prints
// `listening on <url>` once bound.

import worker from "./server.ts";

Deno.serve({
  hostname: "127.0.0.1",
  port: Number(Deno.args[0] ?? 0),
  onListen: ({ port }) =>
    console.log(`listening on http://127.0.0.1:${port}/mcp`),
}, (request) => worker.fetch(request));
