import assert from "node:assert/strict";
import { Session, SUPPORTED_PROTOCOL_VERSIONS } from "./_session.ts";
import type { RequestHandler } from "./_session_types.ts";
import type { JsonRpcMessage, McpTransport } from "../jsonrpc/types.ts";
import { until } from "../testing/_until.ts";

/** A transport that records what the session sends and lets the test speak. */
class FakeTransport implements McpTransport {
  sent: JsonRpcMessage[] = [];
  onmessage?: (message: JsonRpcMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  version: string | undefined;
  stateless?: boolean;
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
  setProtocolVersion = (version: string) => {
    this.version = version;
  };
  receive(message: Record<string, unknown>): void {
    this.onmessage?.({ jsonrpc: "2.0", ...message } as JsonRpcMessage);
  }
  async answer(id: number | string): Promise<Record<string, unknown>> {
    let found: JsonRpcMessage | undefined;
    await until(
      `the answer to ${id}`,
      () =>
        (found = this.sent.find((m) =>
          "id" in m && m.id === id && !("method" in m)
        )) !== undefined,
      { intervalMs: 1 },
    );
    return found as Record<string, unknown>;
  }
}

/** Performs the handshake, then forgets its answer. */
async function handshake(transport: FakeTransport): Promise<void> {
  transport.receive({
    id: "init",
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {} },
  });
  await transport.answer("init");
  transport.sent.length = 0;
}

async function open(handlers: Record<string, RequestHandler<undefined>> = {}) {
  const transport = new FakeTransport();
  const session = new Session(transport, {
    info: { name: "s", version: "1" },
    capabilities: { tools: {} },
    handlers: new Map(Object.entries(handlers)),
    context: undefined,
  });
  await session.start();
  return { transport, session };
}

Deno.test("Session answers initialize with the client's version when it knows it, else the latest", async (t) => {
  await t.step(
    "a known version is echoed and handed to the transport",
    async () => {
      const { transport } = await open();
      transport.receive({
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-03-26", capabilities: {} },
      });
      const answer = await transport.answer(1);
      assert.deepEqual(answer.result, {
        protocolVersion: "2025-03-26",
        capabilities: { tools: {} },
        serverInfo: { name: "s", version: "1" },
      });
      assert.equal(transport.version, "2025-03-26");
    },
  );
  await t.step("an unknown version gets the latest", async () => {
    const { transport } = await open();
    transport.receive({
      id: 1,
      method: "initialize",
      params: { protocolVersion: "1999-01-01" },
    });
    const answer = await transport.answer(1);
    assert.equal(
      (answer.result as { protocolVersion: string }).protocolVersion,
      SUPPORTED_PROTOCOL_VERSIONS[0],
    );
  });
  await t.step("a missing version is -32602", async () => {
    const { transport } = await open();
    transport.receive({ id: 1, method: "initialize", params: {} });
    assert.equal(
      ((await transport.answer(1)).error as { code: number }).code,
      -32602,
    );
  });
});

Deno.test("Session serves nothing but ping before initialize, and everything after", async () => {
  let ran = 0;
  const { transport } = await open({ count: () => ({ n: ++ran }) });
  transport.receive({ id: 1, method: "count" });
  transport.receive({ id: 2, method: "ping" });
  assert.deepEqual((await transport.answer(1)).error, {
    code: -32600,
    message:
      "Server not initialized: send initialize before count (only ping may come first), or speak 2026-07-28 with _meta.io.modelcontextprotocol/protocolVersion on every request",
  });
  assert.deepEqual((await transport.answer(2)).result, {});
  assert.equal(ran, 0);
  await handshake(transport);
  transport.receive({ id: 3, method: "count" });
  assert.deepEqual((await transport.answer(3)).result, { n: 1 });
});

Deno.test("Session serves a stateless transport's requests without initialize", async () => {
  const transport = new FakeTransport();
  transport.stateless = true;
  const session = new Session(transport, {
    info: { name: "s", version: "1" },
    capabilities: { tools: {} },
    handlers: new Map([["count", () => ({ n: 1 })]]),
    context: undefined,
  });
  await session.start();
  transport.receive({ id: 1, method: "count" });
  assert.deepEqual((await transport.answer(1)).result, { n: 1 });
});

Deno.test("Session answers ping, refuses unknown methods with -32601 and keeps error codes", async () => {
  const { transport } = await open({
    fails: () => {
      throw Object.assign(new Error("nope"), { code: -32002 });
    },
    crashes: () => {
      throw new TypeError("bug");
    },
  });
  await handshake(transport);
  transport.receive({ id: 1, method: "ping" });
  transport.receive({ id: 2, method: "no/such" });
  transport.receive({ id: 3, method: "fails", params: {} });
  transport.receive({ id: 4, method: "crashes" });
  assert.deepEqual((await transport.answer(1)).result, {});
  assert.deepEqual((await transport.answer(2)).error, {
    code: -32601,
    message: "Method not found: no/such",
  });
  assert.deepEqual((await transport.answer(3)).error, {
    code: -32002,
    message: "nope",
  });
  assert.deepEqual((await transport.answer(4)).error, {
    code: -32603,
    message: "bug",
  });
});

Deno.test("Session aborts a cancelled request and sends no answer for it", async () => {
  let reason: unknown;
  let late!: Promise<unknown>;
  const { transport } = await open({
    wait: (_params, extra) =>
      late = new Promise((resolve) => {
        extra.signal.addEventListener("abort", () => {
          reason = extra.signal.reason;
          resolve({ late: true });
        });
      }),
  });
  await handshake(transport);
  transport.receive({ id: 7, method: "wait" });
  transport.receive({
    method: "notifications/cancelled",
    params: { requestId: 7, reason: "stop" },
  });
  // The session listened to the handler's promise first, so once this await
  // resumes it has already turned the late result into no answer.
  await late;
  assert.equal(reason, "stop");
  assert.equal(transport.sent.length, 0);
});

Deno.test("Session requests to the client: answered, refused without the capability, aborted, closed", async (t) => {
  let extraOf!: Parameters<RequestHandler<undefined>>[1];
  const { transport, session } = await open({
    hold: (_params, extra) => {
      extraOf = extra;
      return new Promise(() => {});
    },
  });
  transport.receive({
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: { sampling: {} } },
  });
  await transport.answer(1);
  transport.receive({ id: 2, method: "hold" });
  await until("the handler runs", () => extraOf !== undefined);
  await t.step("an answer resolves the request", async () => {
    const pending = extraOf.sendRequest({
      method: "sampling/createMessage",
      params: { maxTokens: 1, messages: [] },
    });
    const sent = transport.sent.at(-1) as { id: string; method: string };
    assert.equal(sent.method, "sampling/createMessage");
    transport.receive({ id: sent.id, result: { model: "m" } });
    assert.deepEqual(await pending, { model: "m" });
  });
  await t.step("an error answer rejects with its code", async () => {
    const pending = extraOf.sendRequest({
      method: "sampling/createMessage",
      params: {},
    });
    const sent = transport.sent.at(-1) as { id: string };
    transport.receive({
      id: sent.id,
      error: { code: -1, message: "user declined" },
    });
    await assert.rejects(pending, { message: "user declined" });
  });
  await t.step(
    "a capability the client lacks is refused before sending",
    async () => {
      const before = transport.sent.length;
      await assert.rejects(
        extraOf.sendRequest({ method: "elicitation/create", params: {} }),
        /Client does not support elicitation/,
      );
      assert.equal(transport.sent.length, before);
    },
  );
  await t.step(
    "closing the session rejects what is pending and aborts running handlers",
    async () => {
      const pending = extraOf.sendRequest({
        method: "sampling/createMessage",
        params: {},
      });
      await session.close();
      await assert.rejects(pending, /Connection closed/);
      assert.equal(extraOf.signal.aborted, true);
    },
  );
});
