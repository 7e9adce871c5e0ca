// The Node entry: `node:http` in front of the edge server's `fetch`. Node
// (20 and later) has Request and Response but no server that speaks them,
// so this adapter turns each IncomingMessage into a Request and writes the
// Response back, streaming its body (SSE reaches the client as it is
// written). Bundled by serve.ts; prints `listening on <url>` once bound.
// A module of this example, not of the toolkit: it imports nothing but
// node:http and the server.

import { createServer, type IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import worker from "./server.ts";

declare const process: {
  argv: string[];
};

function toRequest(message: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (let i = 0; i < message.rawHeaders.length; i += 2) {
    headers.append(message.rawHeaders[i], message.rawHeaders[i + 1]);
  }
  const method = message.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(
    `http://${headers.get("host") ?? "localhost"}${message.url}`,
    {
      method,
      headers,
      signal,
      body: hasBody
        ? Readable.toWeb(message) as unknown as ReadableStream<Uint8Array>
        : undefined,
      // Node's fetch needs this to take a streamed body.
      ...(hasBody ? { duplex: "half" } : {}),
    } as RequestInit,
  );
}

const port = Number(process.argv[2] ?? 0);

const server = createServer(async (message, reply) => {
  const abort = new AbortController();
  reply.on("close", () => abort.abort());
  let response: Response;
  try {
    response = await worker.fetch(toRequest(message, abort.signal));
  } catch (error) {
    console.error(error);
    reply.writeHead(500).end();
    return;
  }
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = name === "set-cookie"
      ? response.headers.getSetCookie()
      : value;
  });
  reply.writeHead(response.status, headers);
  reply.flushHeaders();
  if (response.body === null) {
    reply.end();
    return;
  }
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      reply.write(value);
    }
    reply.end();
  } catch {
    reply.destroy();
  }
  abort.signal.addEventListener("abort", () => reader.cancel());
});

server.listen(port, "127.0.0.1", () => {
  const address = server.address() as { port: number };
  console.log(`listening on http://127.0.0.1:${address.port}/mcp`);
});
