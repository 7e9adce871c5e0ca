import assert from "node:assert/strict";
import { Session } from "./_session.ts";
import type { RequestHandler } from "./_session_types.ts";
import {
  checkCacheHints,
  isStatelessRequest,
  META,
  RequestStateSigner,
  SESSION_PROTOCOL_VERSIONS,
  STATELESS_PROTOCOL_VERSIONS,
} from "./_era.ts";
import { ProtocolError, RPC_ERROR } from "../jsonrpc/errors.ts";
import type {
  JsonRpcMessage,
  McpTransport,
  TransportSendOptions,
} from "../jsonrpc/types.ts";
import { until } from "../testing/_until.ts";

type Sent = { message: Record<string, unknown>; related: unknown };

/** Records what the session sends, with the request each message belongs to. */
class Wire implements McpTransport {
  sent: Sent[] = [];
  onmessage?: (message: JsonRpcMessage) => void;
  onclose?: () => void;
  perRequestMeta?: boolean;
  version: string | undefined;
  start(): Promise<void> {
    return Promise.resolve();
  }
  send(message: JsonRpcMessage, options?: TransportSendOptions): Promise<void> {
    this.sent.push({
      message: message as Record<string, unknown>,
      related: options?.relatedRequestId,
    });
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
    let found: Sent | undefined;
    await until(
      `the answer to ${id}`,
      () =>
        (found = this.sent.find(({ message }) =>
          message.id === id && !("method" in message)
        )) !== undefined,
      { intervalMs: 1 },
    );
    return found!.message;
  }
  notifications(method: string): Sent[] {
    return this.sent.filter(({ message }) => message.method === method);
  }
}

const NOW = STATELESS_PROTOCOL_VERSIONS[0];

function meta(
  capabilities: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    [META.PROTOCOL_VERSION]: NOW,
    [META.CLIENT_CAPABILITIES]: capabilities,
    ...extra,
  };
}

async function open(
  handlers: Record<string, RequestHandler<undefined>> = {},
  options: { cache?: { ttlMs: number; cacheScope: "public" | "private" } } = {},
) {
  const wire = new Wire();
  const session = new Session(wire, {
    info: { name: "s", version: "1" },
    capabilities: { tools: { listChanged: true } },
    handlers: new Map(Object.entries(handlers)),
    context: undefined,
    ...options,
  });
  await session.start();
  return { wire, session };
}

function code(answer: Record<string, unknown>): number {
  return (answer.error as { code: number }).code;
}

Deno.test("isStatelessRequest() tells a 2026-07-28 request by its _meta version, its method or its transport", () => {
  assert.equal(
    isStatelessRequest("tools/list", { _meta: meta() }, false),
    true,
  );
  assert.equal(isStatelessRequest("server/discover", {}, false), true);
  assert.equal(
    isStatelessRequest("subscriptions/listen", undefined, false),
    true,
  );
  assert.equal(isStatelessRequest("tools/list", {}, true), true);
  assert.equal(isStatelessRequest("tools/list", {}, false), false);
  assert.equal(
    isStatelessRequest("initialize", { protocolVersion: "2025-11-25" }, false),
    false,
  );
  assert.equal(
    isStatelessRequest("tools/call", { _meta: { progressToken: 1 } }, false),
    false,
  );
});

Deno.test("Session negotiates every supported revision: initialize for the session era, per-request _meta for 2026-07-28", async (t) => {
  for (const version of SESSION_PROTOCOL_VERSIONS) {
    await t.step(
      `${version}: initialize echoes it and the session keeps 2025 answers`,
      async () => {
        const { wire } = await open({ "tools/list": () => ({ tools: [] }) });
        wire.receive({
          id: 1,
          method: "initialize",
          params: { protocolVersion: version, capabilities: {} },
        });
        const answer = await wire.answer(1);
        assert.equal(
          (answer.result as Record<string, unknown>).protocolVersion,
          version,
        );
        assert.equal(wire.version, version);
        // A session-era request carries no resultType and no caching hints.
        wire.receive({
          id: 2,
          method: "tools/list",
          params: { _meta: meta() },
        });
        assert.deepEqual((await wire.answer(2)).result, { tools: [] });
      },
    );
  }
  for (const version of STATELESS_PROTOCOL_VERSIONS) {
    await t.step(
      `${version}: served per request, listed by server/discover`,
      async () => {
        const { wire } = await open({ "tools/list": () => ({ tools: [] }) });
        wire.receive({
          id: 1,
          method: "server/discover",
          params: { _meta: meta() },
        });
        const discovered = (await wire.answer(1)).result as Record<
          string,
          unknown
        >;
        assert.deepEqual(discovered.supportedVersions, [
          ...STATELESS_PROTOCOL_VERSIONS,
        ]);
        assert.deepEqual(discovered.capabilities, {
          tools: { listChanged: true },
        });
        assert.deepEqual(discovered._meta, {
          [META.SERVER_INFO]: { name: "s", version: "1" },
        });
        assert.equal(discovered.resultType, "complete");
        wire.receive({
          id: 2,
          method: "tools/list",
          params: { _meta: meta() },
        });
        assert.deepEqual((await wire.answer(2)).result, {
          tools: [],
          resultType: "complete",
          ttlMs: 0,
          cacheScope: "private",
        });
      },
    );
    await t.step(
      `${version} asked of initialize falls back to ${
        SESSION_PROTOCOL_VERSIONS[0]
      }`,
      async () => {
        const { wire } = await open();
        wire.receive({
          id: 1,
          method: "initialize",
          params: { protocolVersion: version, capabilities: {} },
        });
        const answer = await wire.answer(1);
        assert.equal(
          (answer.result as Record<string, unknown>).protocolVersion,
          SESSION_PROTOCOL_VERSIONS[0],
        );
      },
    );
  }
  await t.step(
    "an unknown _meta version is -32022 with what is supported and what was asked",
    async () => {
      const { wire } = await open();
      wire.receive({
        id: 7,
        method: "server/discover",
        params: { _meta: { ...meta(), [META.PROTOCOL_VERSION]: "v999" } },
      });
      const answer = await wire.answer(7);
      assert.equal(answer.id, 7);
      assert.equal(code(answer), RPC_ERROR.UNSUPPORTED_PROTOCOL_VERSION);
      assert.deepEqual((answer.error as { data: unknown }).data, {
        supported: [...STATELESS_PROTOCOL_VERSIONS],
        requested: "v999",
      });
    },
  );
  await t.step(
    "a session-era version in _meta without initialize is -32022 too",
    async () => {
      const { wire } = await open({ "tools/list": () => ({ tools: [] }) });
      wire.receive({
        id: 1,
        method: "tools/list",
        params: { _meta: { ...meta(), [META.PROTOCOL_VERSION]: "2025-11-25" } },
      });
      assert.equal(
        code(await wire.answer(1)),
        RPC_ERROR.UNSUPPORTED_PROTOCOL_VERSION,
      );
    },
  );
});

Deno.test("Session refuses a 2026-07-28 request whose _meta lacks what the revision requires, with the request's id", async (t) => {
  const cases: [string, unknown][] = [
    ["no _meta", {}],
    ["no protocol version", { _meta: { [META.CLIENT_CAPABILITIES]: {} } }],
    ["no client capabilities", { _meta: { [META.PROTOCOL_VERSION]: NOW } }],
    ["capabilities not an object", {
      _meta: meta(undefined, { [META.CLIENT_CAPABILITIES]: [] }),
    }],
    ["an unknown log level", { _meta: meta({}, { [META.LOG_LEVEL]: "loud" }) }],
  ];
  for (const [name, params] of cases) {
    await t.step(`${name}: -32602`, async () => {
      const { wire } = await open();
      wire.receive({ id: "r-1", method: "server/discover", params });
      const answer = await wire.answer("r-1");
      assert.equal(answer.id, "r-1");
      assert.equal(code(answer), RPC_ERROR.INVALID_PARAMS);
      assert.match((answer.error as { message: string }).message, /_meta/);
    });
  }
  await t.step("clientInfo is optional", async () => {
    const { wire } = await open();
    wire.receive({
      id: 1,
      method: "server/discover",
      params: { _meta: meta() },
    });
    assert.ok((await wire.answer(1)).result);
  });
});

Deno.test("Session answers -32601 for the methods 2026-07-28 removed and for unknown ones", async () => {
  const { wire } = await open({
    "logging/setLevel": () => ({}),
    "resources/subscribe": () => ({}),
    "resources/unsubscribe": () => ({}),
  });
  const removed = [
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    "unknown/method",
  ];
  removed.forEach((method, id) =>
    wire.receive({ id, method, params: { _meta: meta() } })
  );
  for (const [id, method] of removed.entries()) {
    const answer = await wire.answer(id);
    assert.equal(code(answer), RPC_ERROR.METHOD_NOT_FOUND, method);
  }
});

Deno.test("Session puts the server's cache hints on list and read results only", async () => {
  const { wire } = await open({
    "resources/read": () => ({ contents: [] }),
    "tools/call": () => ({ content: [] }),
  }, { cache: { ttlMs: 60_000, cacheScope: "public" } });
  wire.receive({
    id: 1,
    method: "resources/read",
    params: { uri: "a://b", _meta: meta() },
  });
  wire.receive({
    id: 2,
    method: "tools/call",
    params: { name: "t", _meta: meta() },
  });
  assert.deepEqual((await wire.answer(1)).result, {
    contents: [],
    resultType: "complete",
    ttlMs: 60_000,
    cacheScope: "public",
  });
  assert.deepEqual((await wire.answer(2)).result, {
    content: [],
    resultType: "complete",
  });
});

Deno.test("checkCacheHints() refuses a negative ttl and an unknown scope", () => {
  assert.deepEqual(checkCacheHints(undefined), {
    ttlMs: 0,
    cacheScope: "private",
  });
  assert.deepEqual(checkCacheHints({ ttlMs: 5 }), {
    ttlMs: 5,
    cacheScope: "private",
  });
  assert.throws(() => checkCacheHints({ ttlMs: -1 }), RangeError);
  assert.throws(() => checkCacheHints({ ttlMs: 1.5 }), RangeError);
  assert.throws(
    () => checkCacheHints({ cacheScope: "shared" as "public" }),
    TypeError,
  );
});

Deno.test("Session turns an unknown resource into -32602 with its uri for 2026-07-28 and keeps -32002 for a session", async () => {
  const missing = () => {
    throw new ProtocolError(
      RPC_ERROR.RESOURCE_NOT_FOUND,
      "Resource not found: a://x",
    );
  };
  const { wire } = await open({ "resources/read": missing });
  wire.receive({
    id: 1,
    method: "resources/read",
    params: { uri: "a://x", _meta: meta() },
  });
  const answer = await wire.answer(1);
  assert.deepEqual(answer.error, {
    code: RPC_ERROR.INVALID_PARAMS,
    message: "Resource not found: a://x",
    data: { uri: "a://x" },
  });
  const legacy = await open({ "resources/read": missing });
  legacy.wire.receive({
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {} },
  });
  legacy.wire.receive({
    id: 1,
    method: "resources/read",
    params: { uri: "a://x" },
  });
  assert.equal(code(await legacy.wire.answer(1)), RPC_ERROR.RESOURCE_NOT_FOUND);
});

Deno.test("Session sends a 2026-07-28 request's log messages only at the level its _meta asked for", async () => {
  const handler: RequestHandler<undefined> = async (_params, extra) => {
    for (const level of ["info", "warning", "error"]) {
      await extra.sendNotification({
        method: "notifications/message",
        params: { level, data: level },
      });
    }
    await extra.sendNotification({
      method: "notifications/progress",
      params: { progressToken: 1, progress: 1 },
    });
    return { content: [] };
  };
  const { wire } = await open({ "tools/call": handler });
  wire.receive({
    id: 1,
    method: "tools/call",
    params: { name: "t", _meta: meta() },
  });
  await wire.answer(1);
  assert.equal(wire.notifications("notifications/message").length, 0);
  assert.equal(wire.notifications("notifications/progress").length, 1);
  wire.receive({
    id: 2,
    method: "tools/call",
    params: { name: "t", _meta: meta({}, { [META.LOG_LEVEL]: "warning" }) },
  });
  await wire.answer(2);
  const levels = wire.notifications("notifications/message").map((
    { message },
  ) => (message.params as { level: string }).level);
  assert.deepEqual(levels, ["warning", "error"]);
});

Deno.test("Session answers a 2026-07-28 request that needs the client's input with an input-required result, and resumes it", async (t) => {
  const asks: RequestHandler<undefined> = async (_params, extra) => {
    const name = await extra.sendRequest({
      method: "elicitation/create",
      params: {
        message: "Name?",
        requestedSchema: { type: "object", properties: {} },
        _meta: { "forge.input_key": "user_name" },
      },
    });
    const [model, roots] = await Promise.all([
      extra.sendRequest({
        method: "sampling/createMessage",
        params: { messages: [], maxTokens: 5 },
      }),
      extra.sendRequest({ method: "roots/list", params: {} }),
    ]);
    return {
      content: [{
        type: "text",
        text: JSON.stringify([name.content, model.model, roots.roots]),
      }],
    };
  };
  const all = { elicitation: {}, sampling: {}, roots: {} };
  const signer = new RequestStateSigner();
  const wire = new Wire();
  const session = new Session(wire, {
    info: { name: "s", version: "1" },
    capabilities: {},
    handlers: new Map([["tools/call", asks]]),
    context: undefined,
    signer,
  });
  await session.start();

  let state: string;
  await t.step("round 1 asks for the named elicitation", async () => {
    wire.receive({
      id: 1,
      method: "tools/call",
      params: { name: "t", _meta: meta(all) },
    });
    const result = (await wire.answer(1)).result as Record<string, unknown>;
    assert.equal(result.resultType, "input_required");
    assert.deepEqual(result.inputRequests, {
      user_name: {
        method: "elicitation/create",
        params: {
          message: "Name?",
          requestedSchema: { type: "object", properties: {} },
        },
      },
    });
    assert.equal(typeof result.requestState, "string");
    state = result.requestState as string;
    assert.equal(
      wire.sent.filter(({ message }) => "method" in message && "id" in message)
        .length,
      0,
    );
  });
  await t.step(
    "round 2 asks for both requests made together, by their default keys",
    async () => {
      wire.receive({
        id: 2,
        method: "tools/call",
        params: {
          name: "t",
          requestState: state,
          inputResponses: {
            user_name: { action: "accept", content: { name: "Ada" } },
            unrelated: { ignored: true },
          },
          _meta: meta(all),
        },
      });
      const result = (await wire.answer(2)).result as Record<string, unknown>;
      assert.equal(result.resultType, "input_required");
      assert.deepEqual(Object.keys(result.inputRequests as object).sort(), [
        "roots",
        "sampling",
      ]);
      state = result.requestState as string;
    },
  );
  await t.step(
    "round 3 completes with every answer, the first carried by requestState",
    async () => {
      wire.receive({
        id: 3,
        method: "tools/call",
        params: {
          name: "t",
          requestState: state,
          inputResponses: {
            sampling: {
              role: "assistant",
              model: "m",
              content: { type: "text", text: "" },
            },
            roots: { roots: [{ uri: "file:///r" }] },
          },
          _meta: meta(all),
        },
      });
      const result = (await wire.answer(3)).result as Record<string, unknown>;
      assert.equal(result.resultType, "complete");
      assert.deepEqual(result.content, [{
        type: "text",
        text: JSON.stringify([{ name: "Ada" }, "m", [{ uri: "file:///r" }]]),
      }]);
    },
  );
  await t.step("a tampered requestState is -32602", async () => {
    const tampered = state.replace(/.$/, (c) => (c === "A" ? "B" : "A"));
    wire.receive({
      id: 4,
      method: "tools/call",
      params: { name: "t", requestState: tampered, _meta: meta(all) },
    });
    const answer = await wire.answer(4);
    assert.equal(code(answer), RPC_ERROR.INVALID_PARAMS);
    assert.match((answer.error as { message: string }).message, /integrity/);
  });
  await t.step("a requestState of another tool is -32602", async () => {
    wire.receive({
      id: 5,
      method: "tools/call",
      params: { name: "other", requestState: state, _meta: meta(all) },
    });
    assert.equal(code(await wire.answer(5)), RPC_ERROR.INVALID_PARAMS);
  });
  await t.step("an answer that is not an object is -32602", async () => {
    wire.receive({
      id: 6,
      method: "tools/call",
      params: {
        name: "t",
        inputResponses: { user_name: 12345 },
        _meta: meta(all),
      },
    });
    const answer = await wire.answer(6);
    assert.equal(code(answer), RPC_ERROR.INVALID_PARAMS);
    assert.match(
      (answer.error as { message: string }).message,
      /inputResponses\.user_name/,
    );
  });
  await t.step(
    "a capability the request did not declare is -32021 naming it",
    async () => {
      wire.receive({
        id: 7,
        method: "tools/call",
        params: { name: "t", _meta: meta({}) },
      });
      const answer = await wire.answer(7);
      assert.equal(code(answer), RPC_ERROR.MISSING_CLIENT_CAPABILITY);
      assert.deepEqual((answer.error as { data: unknown }).data, {
        requiredCapabilities: { elicitation: {} },
      });
    },
  );
});

Deno.test("Session serves subscriptions/listen: acknowledged first, then only the notifications asked for, tagged with the listen id", async () => {
  const subscribed: string[] = [];
  const { wire, session } = await open({
    "resources/subscribe": (params) => {
      subscribed.push(params.uri as string);
      return {};
    },
  });
  wire.receive({
    id: "listen-1",
    method: "subscriptions/listen",
    params: {
      _meta: meta(),
      notifications: {
        toolsListChanged: true,
        resourceSubscriptions: ["a://x"],
      },
    },
  });
  await until("the acknowledgement", () => wire.sent.length > 0);
  assert.deepEqual(subscribed, ["a://x"]);
  const [ack] = wire.sent;
  assert.equal(ack.message.method, "notifications/subscriptions/acknowledged");
  assert.equal(ack.related, "listen-1");
  assert.deepEqual(ack.message.params, {
    notifications: { toolsListChanged: true, resourceSubscriptions: ["a://x"] },
    _meta: { [META.SUBSCRIPTION_ID]: "listen-1" },
  });
  await session.notify("notifications/tools/list_changed");
  await session.notify("notifications/prompts/list_changed");
  await session.notify("notifications/resources/updated", { uri: "a://x" });
  await session.notify("notifications/resources/updated", { uri: "a://y" });
  const methods = wire.sent.slice(1).map(({ message, related }) => [
    message.method,
    related,
    (message.params as Record<string, Record<string, unknown>>)._meta[
      META.SUBSCRIPTION_ID
    ],
  ]);
  assert.deepEqual(methods, [
    ["notifications/tools/list_changed", "listen-1", "listen-1"],
    ["notifications/resources/updated", "listen-1", "listen-1"],
  ]);
  // Cancelled: the stream ends without an answer, and nothing more is sent to it.
  wire.receive({
    method: "notifications/cancelled",
    params: { requestId: "listen-1" },
  });
  const before = wire.sent.length;
  // The cancel ended the stream synchronously and queued its (suppressed)
  // answer before this notify's awaits, so both have run when it returns.
  await session.notify("notifications/tools/list_changed");
  assert.equal(wire.sent.length, before);
});

Deno.test("Session refuses a subscriptions/listen filter of the wrong shape", async () => {
  const { wire } = await open();
  wire.receive({
    id: 1,
    method: "subscriptions/listen",
    params: { _meta: meta() },
  });
  wire.receive({
    id: 2,
    method: "subscriptions/listen",
    params: { _meta: meta(), notifications: { toolsListChanged: "yes" } },
  });
  wire.receive({
    id: 3,
    method: "subscriptions/listen",
    params: { _meta: meta(), notifications: { resourceSubscriptions: [1] } },
  });
  for (const id of [1, 2, 3]) {
    assert.equal(code(await wire.answer(id)), RPC_ERROR.INVALID_PARAMS);
  }
});

Deno.test("Session gives a client that discovered first and then sent initialize a session's notifications", async () => {
  const { wire, session } = await open();
  wire.receive({ id: 1, method: "server/discover", params: { _meta: meta() } });
  await wire.answer(1);
  wire.receive({
    id: 2,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {} },
  });
  await wire.answer(2);
  await session.notify("notifications/tools/list_changed");
  assert.equal(
    wire.notifications("notifications/tools/list_changed").length,
    1,
  );
});

Deno.test("Session.clientCapabilities inside a 2026-07-28 handler are its own request's, across awaits, while other requests run", async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const seen: Record<string, unknown>[] = [];
  const box: { session?: Session<undefined> } = {};
  const handler: RequestHandler<undefined> = async (params) => {
    if (params.name === "slow") await gate;
    seen.push({ [String(params.name)]: box.session!.clientCapabilities });
    return { content: [] };
  };
  const { wire, session } = await open({ "tools/call": handler });
  box.session = session;
  wire.receive({
    id: 1,
    method: "tools/call",
    params: { name: "slow", _meta: meta({ roots: {} }) },
  });
  wire.receive({
    id: 2,
    method: "tools/call",
    params: { name: "fast", _meta: meta({ sampling: {} }) },
  });
  await wire.answer(2);
  release();
  await wire.answer(1);
  assert.deepEqual(seen, [
    { fast: { sampling: {} } },
    { slow: { roots: {} } },
  ]);
  // Outside any handler: nothing was inherited from the requests.
  assert.deepEqual(session.clientCapabilities, {});
});
