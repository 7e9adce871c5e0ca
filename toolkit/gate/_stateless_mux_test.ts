import assert from "node:assert/strict";
import type { JsonRpcMessage, McpTransport } from "../jsonrpc/types.ts";
import { StatelessMux } from "./_stateless_mux.ts";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** One caller's request transport, as the HTTP layer hands it over. */
class Caller implements McpTransport {
  onmessage?: (message: JsonRpcMessage) => void;
  onclose?: () => void;
  readonly sent: JsonRpcMessage[] = [];
  start(): Promise<void> {
    return Promise.resolve();
  }
  send(message: JsonRpcMessage): Promise<void> {
    this.sent.push(message);
    return Promise.resolve();
  }
  close(): Promise<void> {
    this.onclose?.();
    return Promise.resolve();
  }
  request(id: number, method: string, params: Record<string, unknown> = {}) {
    this.onmessage?.(
      {
        jsonrpc: "2.0",
        id,
        method,
        params: { ...params, _meta: { ...META, ...params._meta as object } },
      } as JsonRpcMessage,
    );
  }
}

/** The mux with its gate side started; what the gate received. */
async function started() {
  const mux = new StatelessMux();
  const received: JsonRpcMessage[] = [];
  let ended = false;
  mux.host.onmessage = (message) => received.push(message);
  mux.host.onend = () => ended = true;
  await mux.host.start();
  // Messages reach the gate synchronously once it has started.
  return { mux, received, ended: () => ended };
}

Deno.test("StatelessMux keeps two callers' requests under one id apart", async () => {
  const { mux, received } = await started();
  const one = new Caller();
  const two = new Caller();
  await mux.attach(one);
  await mux.attach(two);
  one.request(1, "tools/list");
  two.request(1, "tools/list");
  assert.equal(received.length, 2);
  const [a, b] = received as unknown as { id: string }[];
  assert.notEqual(a.id, b.id);
  // Answered in the other order: each caller gets its own, under its id.
  await mux.host.send({ jsonrpc: "2.0", id: b.id, result: { who: "two" } });
  await mux.host.send({ jsonrpc: "2.0", id: a.id, result: { who: "one" } });
  assert.deepEqual(one.sent, [{
    jsonrpc: "2.0",
    id: 1,
    result: { who: "one" },
  }]);
  assert.deepEqual(two.sent, [{
    jsonrpc: "2.0",
    id: 1,
    result: { who: "two" },
  }]);
});

Deno.test("StatelessMux routes progress by the caller's token, remapped", async () => {
  const { mux, received } = await started();
  const one = new Caller();
  const two = new Caller();
  await mux.attach(one);
  await mux.attach(two);
  one.request(1, "tools/call", { name: "t", _meta: { progressToken: "p" } });
  two.request(1, "tools/call", { name: "t", _meta: { progressToken: "p" } });
  const [a, b] = received as unknown as {
    params: { _meta: { progressToken: string } };
  }[];
  assert.notEqual(a.params._meta.progressToken, b.params._meta.progressToken);
  await mux.host.send({
    jsonrpc: "2.0",
    method: "notifications/progress",
    params: { progressToken: b.params._meta.progressToken, progress: 1 },
  });
  assert.deepEqual(one.sent, []);
  assert.deepEqual(two.sent, [{
    jsonrpc: "2.0",
    method: "notifications/progress",
    params: { progressToken: "p", progress: 1 },
  }]);
});

Deno.test("StatelessMux tells the gate of a caller gone before its answer", async () => {
  const { mux, received } = await started();
  const one = new Caller();
  await mux.attach(one);
  one.request(3, "subscriptions/listen");
  const [listen] = received as unknown as { id: string }[];
  await one.close();
  assert.deepEqual(received[1], {
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: listen.id, reason: "the caller went away" },
  });
});

Deno.test("StatelessMux refuses a request without its _meta, before the gate", async () => {
  const { mux, received } = await started();
  const one = new Caller();
  await mux.attach(one);
  one.onmessage?.({ jsonrpc: "2.0", id: 9, method: "tools/list" });
  assert.deepEqual(received, []);
  const [answer] = one.sent as unknown as {
    id: number;
    error: { code: number };
  }[];
  assert.equal(answer.id, 9);
  assert.equal(answer.error.code, -32602);
});

Deno.test("StatelessMux answers the gate's own requests: a stateless caller takes none", async () => {
  const { mux, received } = await started();
  const one = new Caller();
  await mux.attach(one);
  one.request(1, "tools/call", { name: "t" });
  await mux.host.send({
    jsonrpc: "2.0",
    id: "gate-1",
    method: "elicitation/create",
    params: {},
  });
  assert.deepEqual(one.sent, []);
  const answer = received.at(-1) as unknown as {
    id: string;
    error: { code: number };
  };
  assert.equal(answer.id, "gate-1");
  assert.equal(answer.error.code, -32601);
});

Deno.test("StatelessMux.close() ends the open requests and the gate's host side", async () => {
  const { mux, ended } = await started();
  const one = new Caller();
  let closed = false;
  await mux.attach(one);
  const onclose = one.onclose;
  one.onclose = () => {
    closed = true;
    onclose?.();
  };
  one.request(1, "tools/list");
  await mux.close();
  assert.equal(closed, true);
  assert.equal(ended(), true);
  await assert.rejects(mux.attach(new Caller()), /shutting down/);
});
