import assert from "node:assert/strict";
import { request } from "node:http";
import { until } from "../../toolkit/testing/_until.ts";
import { roundRobin } from "./_round_robin.ts";

interface Upstream {
  origin: string;
  seen: { host: string | null; origin: string | null; path: string }[];
  /** Resolves when a streamed answer's body is cancelled by the proxy. */
  streamCancelled: Promise<void>;
  shutdown(): Promise<void>;
}

function upstream(name: string): Upstream {
  const seen: Upstream["seen"] = [];
  const cancelled = Promise.withResolvers<void>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      const url = new URL(request.url);
      seen.push({
        host: request.headers.get("host"),
        origin: request.headers.get("origin"),
        path: url.pathname + url.search,
      });
      if (url.pathname === "/sse") {
        // One event now, the rest never: the client must see the first
        // before the stream ends, and its leaving must cancel this.
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(`data: ${name}\n\n`));
          },
          cancel() {
            cancelled.resolve();
          },
        });
        return new Response(body, {
          headers: { "content-type": "text/event-stream" },
        });
      }
      const text = await request.text();
      return new Response(`${name}:${request.method}:${text}`, {
        status: 201,
        headers: { "x-upstream": name },
      });
    },
  );
  return {
    origin: `http://127.0.0.1:${server.addr.port}`,
    seen,
    streamCancelled: cancelled.promise,
    shutdown: () => server.shutdown(),
  };
}

Deno.test("roundRobin() deals requests to its upstreams in turn, streaming both ways", async (t) => {
  const a = upstream("a");
  const b = upstream("b");
  const proxy = roundRobin([a.origin, b.origin]);
  try {
    await t.step(
      "alternates, keeping path, status, headers and body",
      async () => {
        const answers: string[] = [];
        for (let i = 0; i < 4; i++) {
          const response = await fetch(`${proxy.url}/mcp?n=${i}`, {
            method: "POST",
            body: `call ${i}`,
          });
          assert.equal(response.status, 201);
          answers.push(
            `${response.headers.get("x-upstream")} ${await response.text()}`,
          );
        }
        assert.deepEqual(answers, [
          "a a:POST:call 0",
          "b b:POST:call 1",
          "a a:POST:call 2",
          "b b:POST:call 3",
        ]);
        assert.deepEqual(proxy.counts, [2, 2]);
        assert.deepEqual(a.seen.map((s) => s.path), ["/mcp?n=0", "/mcp?n=2"]);
      },
    );

    await t.step("streams a request body as it is sent", async () => {
      const chunks = ["one ", "two ", "three"];
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const chunk = chunks.shift();
          if (chunk === undefined) return controller.close();
          if (chunks.length < 2) {
            // The rest waits until the upstream has the request: a proxy
            // that held the body back until its end would never pass this.
            await until(
              "the upstream to get the request",
              () => a.seen.some((s) => s.path === "/upload"),
            );
          }
          controller.enqueue(new TextEncoder().encode(chunk));
        },
      });
      const response = await fetch(`${proxy.url}/upload`, {
        method: "PUT",
        body,
      });
      assert.equal(await response.text(), "a:PUT:one two three");
    });

    await t.step("keeps the client's Host and Origin", async () => {
      // node:http, since fetch would set Host itself.
      const port = Number(new URL(proxy.url).port);
      const status = await new Promise<number>((resolve, reject) => {
        const req = request({
          hostname: "127.0.0.1",
          port,
          path: "/mcp",
          method: "GET",
          headers: { host: "evil.example:1", origin: "http://evil.example" },
        }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        });
        req.on("error", reject);
        req.end();
      });
      assert.equal(status, 201);
      assert.deepEqual(b.seen.at(-1), {
        host: "evil.example:1",
        origin: "http://evil.example",
        path: "/mcp",
      });
    });

    await t.step(
      "delivers an SSE event before the stream ends, and ends the upstream's when the client leaves",
      async () => {
        const response = await fetch(`${proxy.url}/sse`);
        assert.equal(response.headers.get("content-type"), "text/event-stream");
        const reader = response.body!.getReader();
        const { value } = await reader.read();
        assert.equal(new TextDecoder().decode(value), "data: a\n\n");
        await reader.cancel();
        await a.streamCancelled;
      },
    );
  } finally {
    await proxy.close();
    await a.shutdown();
    await b.shutdown();
  }
});

Deno.test("roundRobin() answers 502 for an upstream that is down, and serves on", async () => {
  const a = upstream("a");
  // A port that was free a moment ago: nothing listens there now.
  const gone = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const deadPort = (gone.addr as Deno.NetAddr).port;
  gone.close();
  const proxy = roundRobin([`http://127.0.0.1:${deadPort}`, a.origin]);
  try {
    const down = await fetch(`${proxy.url}/mcp`, { method: "POST", body: "x" });
    assert.equal(down.status, 502);
    assert.match(
      await down.text(),
      /^Bad gateway: http:\/\/127\.0\.0\.1:\d+: /,
    );
    const up = await fetch(`${proxy.url}/mcp`, { method: "POST", body: "y" });
    assert.equal(await up.text(), "a:POST:y");
  } finally {
    await proxy.close();
    await a.shutdown();
  }
});

Deno.test("roundRobin() refuses no upstreams and ones that are not http:// origins", () => {
  assert.throws(() => roundRobin([]), {
    name: "RangeError",
    message: /expected at least one upstream, got none/,
  });
  assert.throws(() => roundRobin(["127.0.0.1:80"]), {
    name: "TypeError",
    message: /expected an http:\/\/ origin, got "127\.0\.0\.1:80"/,
  });
  assert.throws(() => roundRobin(["https://example.com"]), {
    name: "TypeError",
    message: /expected an http:\/\/ origin, got "https:\/\/example\.com"/,
  });
});
