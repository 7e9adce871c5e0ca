// The Bun entry: Bun.serve speaks Request and Response itself. Bundled by
// serve.ts; prints `listening on <url>` once bound.

import worker from "./server.ts";

declare const Bun: {
  argv: string[];
  serve(options: {
    hostname: string;
    port: number;
    idleTimeout: number;
    fetch(request: Request): Promise<Response>;
  }): { port: number };
};

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(Bun.argv[2] ?? 0),
  // Seconds; SSE streams (progress, multi-round) outlive the 10 s default.
  idleTimeout: 255,
  fetch: (request) => worker.fetch(request),
});
console.log(`listening on http://127.0.0.1:${server.port}/mcp`);
