// Session exhaustion without auth (issue 13, item 4): floods of initializes,
// the per-address limit on session creation, and a truthful Retry-After.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createHttpHandler, type HttpHandler } from "./handler.ts";
import {
  connectClient,
  errorOf,
  FakeClock,
  INITIALIZE,
  initialize,
  makeServer,
  post,
  PROTOCOL,
  start,
  withClock,
} from "./_test_helpers.ts";
import { until } from "../testing/_until.ts";

/** An initialize and nothing after it, as a flood sends: answers the status and id. */
async function bareInitialize(
  send: (body: unknown) => Promise<Response>,
): Promise<{ status: number; id: string | null; retryAfter: string | null }> {
  const response = await send(INITIALIZE);
  const result = {
    status: response.status,
    id: response.headers.get("mcp-session-id"),
    retryAfter: response.headers.get("retry-after"),
  };
  await response.body?.cancel();
  return result;
}

function ping(url: URL, id: string): Promise<Response> {
  return post(url, { jsonrpc: "2.0", id: 9, method: "ping" }, {
    "mcp-session-id": id,
    "mcp-protocol-version": PROTOCOL,
  });
}

/** Reads the answer to its end, so that the request has ended on the server too. */
async function statusOf(response: Promise<Response>): Promise<number> {
  const answered = await response;
  await answered.text();
  return answered.status;
}

/** What `Deno.serve` would pass for a client at `hostname`. */
function from(hostname: string) {
  return { remoteAddr: { transport: "tcp" as const, hostname, port: 50000 } };
}

/** An SDK client whose requests go straight to `handler` as from `hostname`. */
async function clientFrom(
  handler: HttpHandler,
  hostname: string,
): Promise<Client> {
  const client = new Client({ name: "real-client", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
      fetch: (url: string | URL, init?: RequestInit) =>
        handler(new Request(url, init), from(hostname)),
    }),
  );
  return client;
}

Deno.test("a flood of bare initializes cannot lock a real client out", async () => {
  // The flood alone fills the table many times over; the unused timeout is
  // long, so only the eviction on a full table can make room.
  await using http = start({
    maxSessions: 100,
    unusedSessionMs: 60_000,
    sessionsPerMinute: Infinity,
  });
  const send = (body: unknown) => post(http.url, body);
  let stop = false;
  const statuses: number[] = [];
  const flooder = async () => {
    while (!stop) statuses.push((await bareInitialize(send)).status);
  };
  const flood = Array.from({ length: 8 }, flooder);
  try {
    await until("300 answers to the flood", () => statuses.length >= 300, {
      timeoutMs: 10_000,
    });
    // The flood is still running: the client gets its session at once.
    const { client } = await connectClient(http.url);
    for (let i = 0; i < 20; i++) {
      const result = await client.callTool({
        name: "echo",
        arguments: { text: `call ${i}` },
      });
      assert.deepEqual(result.content, [{ type: "text", text: `call ${i}` }]);
    }
    stop = true;
    await Promise.all(flood);
    // The session outlived the whole flood.
    await client.ping();
    await client.close();
  } finally {
    stop = true;
    await Promise.allSettled(flood);
  }
  assert.ok(statuses.length > 300);
  assert.deepEqual(
    [...new Set(statuses)],
    [200],
    "a full table of unused sessions never answers 503",
  );
});

Deno.test("session creation is limited per client address with a truthful 429", async (t) => {
  await t.step(
    "over the network: 429 with Retry-After, then room once it has passed",
    async () => {
      // 60 a minute: one more every second after a burst of 5.
      const clock = new FakeClock();
      await using http = start(
        withClock(clock, { sessionsPerMinute: 60, sessionBurst: 5 }),
      );
      const send = (body: unknown) => post(http.url, body);
      for (let i = 0; i < 5; i++) {
        assert.equal((await bareInitialize(send)).status, 200);
      }
      const refused = await send(INITIALIZE);
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get("retry-after"), "1");
      const error = await errorOf(refused);
      assert.equal(error.code, -32000);
      assert.match(
        error.message,
        /^Too Many Requests: this client may create 60 sessions a minute, 5 at once; retry in 1 s$/,
      );
      clock.advance(1000);
      assert.equal((await bareInitialize(send)).status, 200);
      const again = await bareInitialize(send);
      assert.equal(again.status, 429, "the token was spent");
      assert.equal(again.retryAfter, "1");
    },
  );

  await t.step(
    "a flood from one address leaves another address untouched",
    async () => {
      const handler = createHttpHandler(makeServer(), {
        dnsRebindingProtection: false,
        sessionsPerMinute: 6,
        sessionBurst: 10,
      });
      const flooder = (body: unknown) =>
        handler(
          new Request("http://localhost/mcp", {
            method: "POST",
            headers: {
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
            },
            body: JSON.stringify(body),
          }),
          from("198.51.100.7"),
        );
      const results = await Promise.all(
        Array.from({ length: 300 }, () => bareInitialize(flooder)),
      );
      const count = (status: number) =>
        results.filter((r) => r.status === status).length;
      assert.equal(count(200), 10);
      assert.equal(count(429), 290);
      // Six a minute: the next token is 10 s away.
      assert.deepEqual(
        [
          ...new Set(
            results.filter((r) => r.status === 429).map((r) => r.retryAfter),
          ),
        ],
        ["10"],
      );
      // Another address in the flooder's IPv6 /64 would share its limit; this one does not.
      const client = await clientFrom(handler, "203.0.113.20");
      const result = await client.callTool({
        name: "echo",
        arguments: { text: "still served" },
      });
      assert.deepEqual(result.content, [{
        type: "text",
        text: "still served",
      }]);
      await client.close();
      await handler.close();
    },
  );

  await t.step(
    "without a connection address there is no per-address limit",
    async () => {
      const handler = createHttpHandler(makeServer(), {
        dnsRebindingProtection: false,
        sessionsPerMinute: 1,
        sessionBurst: 1,
      });
      const send = (body: unknown) =>
        handler(
          new Request("http://localhost/mcp", {
            method: "POST",
            headers: {
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
            },
            body: JSON.stringify(body),
          }),
        );
      for (let i = 0; i < 5; i++) {
        assert.equal((await bareInitialize(send)).status, 200);
      }
      await handler.close();
    },
  );
});

Deno.test("the 503 for a full table says when its first session can expire", async (t) => {
  await t.step(
    "idle sessions: the seconds until the first is idle long enough, and then it is",
    async () => {
      const clock = new FakeClock();
      await using http = start(
        withClock(clock, { maxSessions: 2, sessionIdleMs: 2500 }),
      );
      const ids = [await initialize(http.url), await initialize(http.url)];
      // Used again between two ticks of the sweeper (every 1.25 s from the
      // first initialize), so that only the check on initialize can find
      // them expired at the moment Retry-After names.
      clock.advance(600);
      for (const id of ids) {
        assert.equal(await statusOf(ping(http.url, id)), 200);
      }
      const send = (body: unknown) => post(http.url, body);

      const full = await send(INITIALIZE);
      assert.equal(full.status, 503);
      // Both were used a moment ago: the first is idle long enough in 2.5 s.
      assert.equal(full.headers.get("retry-after"), "3");
      assert.match(
        (await errorOf(full)).message,
        /2 sessions are open, the most allowed; the first can end in 3 s$/,
      );
      clock.advance(2000);
      const later = await bareInitialize(send);
      assert.equal(later.status, 503, "not before its time");
      assert.equal(later.retryAfter, "1");
      clock.advance(1000);
      assert.equal((await bareInitialize(send)).status, 200);
    },
  );

  await t.step(
    "a session with an open stream: at least sessionIdleMs",
    async () => {
      await using busy = start({ maxSessions: 1, sessionIdleMs: 60_000 });
      const id = await initialize(busy.url);
      const stream = await fetch(busy.url, {
        headers: {
          accept: "text/event-stream",
          "mcp-session-id": id,
          "mcp-protocol-version": PROTOCOL,
        },
      });
      assert.equal(stream.status, 200);
      const refused = await bareInitialize((body) => post(busy.url, body));
      assert.equal(refused.status, 503);
      assert.equal(refused.retryAfter, "60");
      await stream.body?.cancel();
    },
  );
});

Deno.test("an unused session is closed after unusedSessionMs, a used one is not", async (t) => {
  await t.step("the timeout", async () => {
    const clock = new FakeClock();
    await using http = start(
      withClock(clock, { unusedSessionMs: 200, sessionIdleMs: 60_000 }),
    );
    const unused = await bareInitialize((body) => post(http.url, body));
    assert.equal(unused.status, 200);
    const used = await initialize(http.url);
    clock.advance(600);
    assert.equal(await statusOf(ping(http.url, unused.id!)), 404);
    assert.equal(await statusOf(ping(http.url, used)), 200);
  });

  await t.step(
    "a full table closes the oldest unused session first",
    async () => {
      await using http = start({ maxSessions: 3, unusedSessionMs: 60_000 });
      const send = (body: unknown) => post(http.url, body);
      const oldest = await bareInitialize(send);
      const newer = await bareInitialize(send);
      const used = await initialize(http.url);
      assert.equal((await bareInitialize(send)).status, 200);
      assert.equal(await statusOf(ping(http.url, oldest.id!)), 404);
      assert.equal(await statusOf(ping(http.url, newer.id!)), 200);
      assert.equal(await statusOf(ping(http.url, used)), 200);
    },
  );
});

Deno.test("sessions() refuses out-of-range flood options with a RangeError", async (t) => {
  const server = makeServer();
  for (
    const [name, value, expected] of [
      ["unusedSessionMs", 0, "a whole number >= 1, got 0"],
      ["sessionsPerMinute", -1, "a whole number >= 1 or Infinity, got -1"],
      ["sessionBurst", 1.5, "a whole number >= 1, got 1.5"],
    ] as const
  ) {
    await t.step(name, () => {
      assert.throws(
        () => createHttpHandler(server, { [name]: value }),
        (error: Error) =>
          error instanceof RangeError &&
          error.message ===
            `Cannot create HTTP handler: ${name} must be ${expected}`,
      );
    });
  }
  await t.step("sessionsPerMinute: Infinity turns the limit off", async () => {
    const handler = createHttpHandler(server, { sessionsPerMinute: Infinity });
    await handler.close();
  });
});
