// connectHttpServer() against a scripted Streamable HTTP server: what the
// gate does when a stream breaks, a session is forgotten, or a request gets
// no answer. Each test waits on the messages the connection passes on.

import assert from "node:assert/strict";
import { connectHttpServer } from "./_http_server.ts";
import type { ServerProcess } from "./_server_process.ts";
import type { JsonRpcMessage } from "../../jsonrpc/types.ts";

type Message = Record<string, unknown>;

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "host", version: "1" },
  },
};
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };
const CALL = {
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "slow", arguments: {} },
};

/** One request the scripted server received. */
interface Seen {
  method: string;
  session: string | null;
  lastEventId: string | null;
  body: Message | undefined;
}

/** An SSE body from `events` (each already `id:`/`data:` lines), then closed unless `open`. */
function sse(events: string[], open?: AbortSignal): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const event of events) controller.enqueue(encoder.encode(event));
      if (open === undefined) controller.close();
      else open.addEventListener("abort", () => controller.close());
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream" },
  });
}

function json(body: unknown, headers: Record<string, string> = {}): Response {
  return Response.json(body, { headers });
}

function data(message: unknown, id?: string): string {
  return `${id === undefined ? "" : `id: ${id}\n`}data: ${
    JSON.stringify(message)
  }\n\n`;
}

/** A scripted server: `answer` gets each request; every request is noted. */
function scripted(
  answer: (seen: Seen, all: Seen[]) => Response | Promise<Response>,
) {
  const all: Seen[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      const text = request.method === "POST" ? await request.text() : "";
      const seen: Seen = {
        method: request.method,
        session: request.headers.get("mcp-session-id"),
        lastEventId: request.headers.get("last-event-id"),
        body: text === "" ? undefined : JSON.parse(text),
      };
      all.push(seen);
      return await answer(seen, all);
    },
  );
  return { url: `http://127.0.0.1:${server.addr.port}/mcp`, all, server };
}

/** The connection, with a reader of the messages it passes to the host. */
function connect(
  url: string,
  headers?: readonly (readonly [string, string])[],
) {
  const log: string[] = [];
  const child: ServerProcess = connectHttpServer(url, {
    headers,
    log: (line) => log.push(line),
  });
  const { transport } = child;
  const received: Message[] = [];
  let ended = false;
  let wake: () => void = () => {};
  transport.onmessage = (message) => {
    received.push(message);
    wake();
  };
  transport.onend = () => {
    ended = true;
    wake();
  };
  transport.start();
  return {
    log,
    child,
    send: (message: unknown) => transport.send(message as JsonRpcMessage),
    async next(): Promise<Message> {
      for (;;) {
        const message = received.shift();
        if (message !== undefined) return message;
        if (ended) throw new Error("The connection ended");
        await new Promise<void>((resolve) => wake = resolve);
      }
    },
    async close() {
      await child.closeStdin();
      await transport.close();
    },
  };
}

/** Initializes a session `s1` and answers the host's initialize. */
async function initialized(client: ReturnType<typeof connect>) {
  await client.send(INITIALIZE);
  const answer = await client.next();
  assert.equal(answer.id, 0);
  await client.send(INITIALIZED);
}

const INIT_RESULT = {
  protocolVersion: "2025-11-25",
  capabilities: { tools: {} },
  serverInfo: { name: "scripted", version: "1" },
};

Deno.test("connectHttpServer() resumes a request's stream that ended before the answer, from its last event id", async () => {
  const progress = {
    jsonrpc: "2.0",
    method: "notifications/progress",
    params: { progressToken: "p", progress: 1 },
  };
  const hold = new AbortController();
  const { url, all, server } = scripted((seen) => {
    const method = seen.body?.method;
    if (method === "initialize") {
      return json({ jsonrpc: "2.0", id: 0, result: INIT_RESULT }, {
        "mcp-session-id": "s1",
      });
    }
    if (method === "tools/call") {
      // One event, then the stream is cut: no answer yet.
      return sse([data(progress, "c-1")]);
    }
    if (seen.method === "GET" && seen.lastEventId === "c-1") {
      return sse([
        data({ jsonrpc: "2.0", id: 1, result: { content: [] } }, "c-2"),
      ]);
    }
    if (seen.method === "GET") return sse([], hold.signal);
    return new Response(null, { status: 202 });
  });
  const client = connect(url);
  try {
    await initialized(client);
    await client.send(CALL);
    assert.deepEqual(await client.next(), progress);
    assert.deepEqual(await client.next(), {
      jsonrpc: "2.0",
      id: 1,
      result: { content: [] },
    });
    const resumed = all.filter((s) => s.lastEventId === "c-1");
    assert.equal(resumed.length, 1);
    assert.equal(resumed[0].session, "s1");
  } finally {
    hold.abort();
    await client.close();
    await server.shutdown();
  }
});

Deno.test("connectHttpServer() fails a request with -32000, never leaves it hanging, when its answer cannot come", async (t) => {
  const { url, server } = scripted((seen) => {
    const name = (seen.body?.params as Message | undefined)?.name;
    if (seen.body?.method === "initialize") {
      return json({ jsonrpc: "2.0", id: 0, result: INIT_RESULT });
    }
    // A stream with no event id: there is nothing to resume it from.
    if (name === "no_ids") {
      return sse([data({ jsonrpc: "2.0", method: "notifications/message" })]);
    }
    // An id, but the server will not resume it.
    if (name === "not_resumable") {
      return sse([
        data({ jsonrpc: "2.0", method: "notifications/message" }, "x-1"),
      ]);
    }
    if (seen.method === "GET") return new Response(null, { status: 405 });
    // Accepted, as if it were a notification.
    return new Response(null, { status: 202 });
  });
  const client = connect(url);
  try {
    await client.send(INITIALIZE);
    await client.next();
    for (
      const [id, name, expected] of [
        [
          11,
          "no_ids",
          /ended before it answered, and it gave no event id to resume from/,
        ],
        [
          12,
          "not_resumable",
          /ended before it answered, and resuming it brought no answer/,
        ],
        [13, "accepted", /answered HTTP 202 with no answer to the request/],
      ] as const
    ) {
      await t.step(name, async () => {
        await client.send({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name, arguments: {} },
        });
        let answer = await client.next();
        // The stream's own notification comes first.
        if (answer.method !== undefined) answer = await client.next();
        assert.equal(answer.id, id);
        const error = answer.error as { code: number; message: string };
        assert.equal(error.code, -32000);
        assert.match(error.message, expected);
      });
    }
  } finally {
    await client.close();
    await server.shutdown();
  }
});

Deno.test("connectHttpServer() replaces a session the server forgot (404) and sends the call again", async () => {
  let sessions = 0;
  const known = new Set<string>();
  const hold = new AbortController();
  const { url, all, server } = scripted((seen) => {
    const method = seen.body?.method;
    if (method === "initialize") {
      const id = `s${++sessions}`;
      known.add(id);
      return json({ jsonrpc: "2.0", id: seen.body!.id, result: INIT_RESULT }, {
        "mcp-session-id": id,
      });
    }
    if (seen.session === null || !known.has(seen.session)) {
      return new Response("Session not found", { status: 404 });
    }
    if (seen.method === "GET") return sse([], hold.signal);
    if (method === "tools/call") {
      return json({
        jsonrpc: "2.0",
        id: seen.body!.id,
        result: { content: [{ type: "text", text: `on ${seen.session}` }] },
      });
    }
    return new Response(null, { status: 202 });
  });
  const client = connect(url);
  try {
    await initialized(client);
    // The server restarts and forgets every session.
    known.clear();
    await client.send(CALL);
    const answer = await client.next();
    assert.deepEqual(answer, {
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text: "on s2" }] },
    });
    const posts = all.filter((s) => s.method === "POST").map((s) =>
      `${s.body?.method}@${s.session}`
    );
    assert.deepEqual(posts, [
      "initialize@null",
      "notifications/initialized@s1",
      "tools/call@s1",
      "initialize@null",
      "notifications/initialized@s2",
      "tools/call@s2",
    ]);
    // The host's own initialize, sent again as it was.
    const inits = all.filter((s) => s.body?.method === "initialize");
    assert.deepEqual(inits[1].body, inits[0].body);
    assert.ok(
      client.log.some((line) => /HTTP 404\): starting a new one/.test(line)),
    );
  } finally {
    hold.abort();
    await client.close();
    await server.shutdown();
  }
});

Deno.test("connectHttpServer() opens the GET stream again after the server's retry, from its last event id", async () => {
  const first = { jsonrpc: "2.0", method: "notifications/tools/list_changed" };
  const second = {
    jsonrpc: "2.0",
    method: "notifications/resources/list_changed",
  };
  const hold = new AbortController();
  const { url, all, server } = scripted((seen) => {
    if (seen.body?.method === "initialize") {
      return json({ jsonrpc: "2.0", id: 0, result: INIT_RESULT }, {
        "mcp-session-id": "s1",
      });
    }
    if (seen.method === "GET" && seen.lastEventId === null) {
      return sse([`retry: 5\n${data(first, "g-1")}`]);
    }
    if (seen.method === "GET") return sse([data(second, "g-2")], hold.signal);
    return new Response(null, { status: 202 });
  });
  const client = connect(url);
  try {
    await initialized(client);
    assert.deepEqual(await client.next(), first);
    assert.deepEqual(await client.next(), second);
    const gets = all.filter((s) => s.method === "GET");
    assert.deepEqual(gets.map((s) => s.lastEventId), [null, "g-1"]);
  } finally {
    hold.abort();
    await client.close();
    await server.shutdown();
  }
});

/** Rejects when `promise` has not settled within `ms`: a guard against a hang, not a wait. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Not within ${ms} ms: ${what}`)),
        ms,
      );
    }),
  ]).finally(() => clearTimeout(timer));
}

/** A call of tool `name` under `id`. */
function call(id: number, name: string): Message {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: {} },
  };
}

const SIXTEEN_MIB = 16 * 1024 * 1024;

Deno.test("connectHttpServer() answers -32000 for a body or SSE event over 16 MiB, reading little more, and serves the next call", async (t) => {
  const encoder = new TextEncoder();
  const letters = encoder.encode("x".repeat(64 * 1024));
  const lines = encoder.encode(`data: ${"x".repeat(1018)}\n`.repeat(64));
  const stop = new AbortController();
  /** Bytes the server has handed to the connection, by tool. */
  const sent = new Map<string, number>();
  /** Rejects once the connection has read twice the bound of the step's body. */
  let overread = Promise.withResolvers<never>();
  /** A body that starts with `head` and then never ends. */
  const endless = (
    name: string,
    head: string,
    type: string,
    filler = letters,
  ) => {
    sent.set(name, 0);
    const tooMuch = overread;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(head));
      },
      pull(controller) {
        if (stop.signal.aborted) return controller.close();
        controller.enqueue(filler);
        const total = sent.get(name)! + filler.byteLength;
        sent.set(name, total);
        // Twice the bound: the connection reads without one.
        if (total > 2 * SIXTEEN_MIB) {
          const error = new Error(`The connection read ${total} bytes`);
          tooMuch.reject(error);
          controller.error(error);
        }
      },
    });
    return new Response(body, { headers: { "content-type": type } });
  };
  const { url, server } = scripted((seen) => {
    const id = seen.body?.id;
    const name = (seen.body?.params as Message | undefined)?.name;
    if (seen.body?.method === "initialize") {
      return json({ jsonrpc: "2.0", id, result: INIT_RESULT });
    }
    if (name === "json_body") {
      return endless(
        "json_body",
        `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"`,
        "application/json",
      );
    }
    if (name === "sse_line") {
      return endless(
        "sse_line",
        `id: e-1\ndata: {"jsonrpc":"2.0","id":${id},"result":"`,
        "text/event-stream",
      );
    }
    if (name === "sse_lines") {
      // Many short data lines, never the blank line that ends the event.
      return endless(
        "sse_lines",
        `id: e-1\ndata: {"jsonrpc":"2.0","id":${id},\n`,
        "text/event-stream",
        lines,
      );
    }
    if (name === "small") {
      return json({ jsonrpc: "2.0", id, result: { content: [] } });
    }
    if (seen.method === "GET") return new Response(null, { status: 405 });
    return new Response(null, { status: 202 });
  });
  const client = connect(url);
  try {
    await client.send(INITIALIZE);
    await client.next();
    let id = 20;
    for (
      const [name, expected] of [
        ["json_body", /^The server's answer is too large/],
        ["sse_line", /^An SSE event from the server is too large/],
        ["sse_lines", /^An SSE event from the server is too large/],
      ] as const
    ) {
      await t.step(name, async () => {
        const callId = ++id;
        await client.send(call(callId, name));
        overread = Promise.withResolvers<never>();
        const answer = await within(
          Promise.race([client.next(), overread.promise]),
          30_000,
          `an answer to ${name}`,
        );
        assert.equal(answer.id, callId);
        const error = answer.error as { code: number; message: string };
        assert.equal(error.code, -32000);
        assert.match(error.message, expected);
        assert.match(error.message, /at most 16777216 bytes \(16 MiB\)/);
        // The bound, and what the sockets between hold, and no more.
        assert.ok(
          sent.get(name)! < 2 * SIXTEEN_MIB,
          `${sent.get(name)} bytes sent`,
        );
        // The same connection serves the next call.
        await client.send(call(++id, "small"));
        assert.deepEqual(await client.next(), {
          jsonrpc: "2.0",
          id,
          result: { content: [] },
        });
      });
    }
  } finally {
    stop.abort();
    await client.close();
    await server.shutdown();
  }
});

Deno.test("connectHttpServer() follows no redirect, and its headers never reach where one points", async (t) => {
  /** The other origin: it notes whatever reaches it. */
  const other = scripted(() => json({ jsonrpc: "2.0", id: 0, result: {} }));
  const { url, all, server } = scripted((seen) => {
    if (seen.method === "GET") return new Response(null, { status: 405 });
    const status = Number(
      (seen.body?.params as Message | undefined)?.name ?? 307,
    );
    const location = status === 303 ? "/elsewhere" : other.url;
    return new Response(null, { status, headers: { location } });
  });
  const client = connect(url, [["Authorization", "Bearer top-secret"]]);
  try {
    for (const status of [301, 302, 303, 307, 308]) {
      await t.step(`HTTP ${status}`, async () => {
        await client.send(call(status, String(status)));
        const answer = await client.next();
        assert.equal(answer.id, status);
        const error = answer.error as { code: number; message: string };
        assert.equal(error.code, -32000);
        assert.match(
          error.message,
          new RegExp(
            `^Cannot reach the server: it answered HTTP ${status}, a redirect to \\S+, which the gate does not follow: give --url the server's own URL$`,
          ),
        );
      });
    }
    // Not another origin, not another path of the same one.
    assert.deepEqual(other.all, []);
    assert.equal(all.length, 5);
  } finally {
    await client.close();
    await server.shutdown();
    await other.server.shutdown();
  }
});

Deno.test("connectHttpServer() skips an event with empty data (a priming event) and resumes from its id", async () => {
  const { url, all, server } = scripted((seen) => {
    const id = seen.body?.id;
    if (seen.body?.method === "initialize") {
      // What a 2025-11-25 server with resumability sends: a priming event
      // (an id and empty data), then the answer.
      return sse([
        "id: i-0\ndata: \n\n",
        data({ jsonrpc: "2.0", id, result: INIT_RESULT }, "i-1"),
      ]);
    }
    if (seen.body?.method === "tools/call") {
      // Only the priming event, then the stream is cut.
      return sse(["id: c-0\ndata:\n\n"]);
    }
    if (seen.method === "GET" && seen.lastEventId === "c-0") {
      return sse([data({ jsonrpc: "2.0", id: 1, result: {} }, "c-1")]);
    }
    if (seen.method === "GET") return new Response(null, { status: 405 });
    return new Response(null, { status: 202 });
  });
  const client = connect(url);
  try {
    await client.send(INITIALIZE);
    assert.deepEqual(await client.next(), {
      jsonrpc: "2.0",
      id: 0,
      result: INIT_RESULT,
    });
    await client.send(CALL);
    assert.deepEqual(await client.next(), {
      jsonrpc: "2.0",
      id: 1,
      result: {},
    });
    assert.equal(all.filter((s) => s.lastEventId === "c-0").length, 1);
    assert.deepEqual(client.log, []);
  } finally {
    await client.close();
    await server.shutdown();
  }
});

Deno.test("connectHttpServer() closes a call's stream when the host cancels the call, and answers nothing for it", async () => {
  let closed!: () => void;
  const streamClosed = new Promise<void>((resolve) => closed = resolve);
  let cancelled!: (seen: Seen) => void;
  const cancelSeen = new Promise<Seen>((resolve) => cancelled = resolve);
  const { url, server } = scripted((seen) => {
    const method = seen.body?.method;
    if (method === "initialize") {
      return json({ jsonrpc: "2.0", id: 0, result: INIT_RESULT });
    }
    if (method === "tools/call" && seen.body?.id === 1) {
      // A stream that stays open until the gate closes it.
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(": working\n\n"));
        },
        cancel: () => closed(),
      });
      return new Response(body, {
        headers: { "content-type": "text/event-stream" },
      });
    }
    if (method === "tools/call") {
      return json({ jsonrpc: "2.0", id: seen.body!.id, result: {} });
    }
    if (method === "notifications/cancelled") cancelled(seen);
    if (seen.method === "GET") return new Response(null, { status: 405 });
    return new Response(null, { status: 202 });
  });
  const client = connect(url);
  try {
    await client.send(INITIALIZE);
    await client.next();
    await client.send(CALL);
    await client.send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 1, reason: "the user stopped it" },
    });
    // The server is told, and the stream is closed.
    assert.deepEqual((await cancelSeen).body?.params, {
      requestId: 1,
      reason: "the user stopped it",
    });
    await within(streamClosed, 5000, "the cancelled call's stream is closed");
    // No answer for the cancelled call: the next message is the next call's.
    await client.send(call(2, "next"));
    assert.deepEqual(await client.next(), {
      jsonrpc: "2.0",
      id: 2,
      result: {},
    });
  } finally {
    // A stream left open must not hold the end of the test.
    client.child.kill("SIGTERM");
    await client.close();
    await server.shutdown();
  }
});

Deno.test("connectHttpServer()'s transport passes on parsed messages, refuses one of the wrong shape, and ends only after what was sent", async () => {
  const order: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  let slowArrived!: () => void;
  const slow = new Promise<void>((resolve) => slowArrived = resolve);
  let refusalArrived!: (body: Message) => void;
  const refusal = new Promise<Message>((resolve) => refusalArrived = resolve);
  const { url, server } = scripted(async (seen) => {
    const body = seen.body;
    if (seen.method === "DELETE") {
      order.push("DELETE");
      return new Response(null, { status: 200 });
    }
    if (seen.method === "GET") return new Response(null, { status: 405 });
    if (body?.method === "initialize") {
      return json({ jsonrpc: "2.0", id: 0, result: INIT_RESULT }, {
        "mcp-session-id": "s1",
      });
    }
    if (body?.method === "tools/call" && body.id === 1) {
      // A message of the wrong shape first, then the answer.
      return sse([
        data({ jsonrpc: "1.0", id: 5, result: {} }),
        data({ jsonrpc: "2.0", id: 1, result: { content: [] } }),
      ]);
    }
    if (body?.method === "tools/call" && body.id === 2) {
      slowArrived();
      await held;
      order.push("answered 2");
      return json({ jsonrpc: "2.0", id: 2, result: { content: [] } });
    }
    if (body !== undefined && "error" in body) refusalArrived(body);
    return new Response(null, { status: 202 });
  });
  const client = connect(url);
  try {
    await initialized(client);
    await client.send(CALL);
    // The wrong one is not passed on: the next message is the answer.
    assert.deepEqual(await client.next(), {
      jsonrpc: "2.0",
      id: 1,
      result: { content: [] },
    });
    assert.deepEqual(await refusal, {
      jsonrpc: "2.0",
      id: 5,
      error: {
        code: -32600,
        message: 'Invalid Request: expected "jsonrpc": "2.0", got "1.0"',
      },
    });

    await client.send({ ...CALL, id: 2 });
    await slow;
    const ended = new Promise<void>((resolve) =>
      client.child.transport.onend = () => {
        order.push("end");
        resolve();
      }
    );
    await client.child.closeStdin();
    release();
    assert.equal((await client.next()).id, 2);
    await ended;
    assert.deepEqual(await client.child.status, {
      success: true,
      code: 0,
      signal: null,
    });
    assert.deepEqual(order, ["answered 2", "DELETE", "end"]);
    await assert.rejects(
      () => client.send({ ...CALL, id: 3 }),
      /The server's session has ended/,
    );
  } finally {
    release();
    await client.close();
    await server.shutdown();
  }
});

Deno.test("connectHttpServer()'s kill() stops every call under way at once: one not yet answered, one whose stream stays open", async () => {
  const arrived = Promise.withResolvers<void>();
  let calls = 0;
  const streamClosed = Promise.withResolvers<void>();
  // Ends what the server holds, so that a failing test ends too.
  const over = Promise.withResolvers<void>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      const body = JSON.parse(await request.text());
      if (++calls === 2) arrived.resolve();
      if (body.id === 1) {
        // No answer, not even its headers, while the test runs.
        await over.promise;
        return new Response(null, { status: 500 });
      }
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(": working\n\n"));
          over.promise.then(() => {
            try {
              controller.close();
            } catch {
              // Cancelled by the gate already.
            }
          });
        },
        cancel: () => streamClosed.resolve(),
      });
      return new Response(stream, {
        headers: { "content-type": "text/event-stream" },
      });
    },
  );
  const client = connect(`http://127.0.0.1:${server.addr.port}/mcp`);
  try {
    await client.send(call(1, "never"));
    await client.send(call(2, "endless"));
    await arrived.promise;
    client.child.kill("SIGTERM");
    // The connection ends once every call under way has: the unanswered
    // one's request is aborted, the open stream closed.
    await within(client.child.status, 5000, "the connection ends");
    await within(streamClosed.promise, 5000, "the open stream is closed");
  } finally {
    over.resolve();
    await client.close();
    await server.shutdown();
  }
});
