import assert from "node:assert/strict";
import { createServer } from "./server.ts";
import type { CallLayer, IncomingRequest, RequestLayer } from "./layer.ts";

type Layers = { request?: RequestLayer; call?: CallLayer };
import { error, text } from "../result/result.ts";
import { connect, RpcError } from "../testing/testing.ts";
import { connectStateless } from "./_stateless_test_helpers.ts";
import { STATELESS_PROTOCOL_VERSIONS } from "./_era.ts";

interface Seen {
  method: string;
  id: string | number;
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  name: unknown;
  outcome: string;
}

/** A request layer that writes down each request and how it ended. */
function recorder(): { seen: Seen[]; layer: RequestLayer } {
  const seen: Seen[] = [];
  const layer: RequestLayer = (request: IncomingRequest, next) => {
    const note = (outcome: string) =>
      seen.push({
        method: request.method,
        id: request.id,
        sessionId: request.sessionId,
        protocolVersion: request.protocolVersion,
        name: request.params?.name,
        outcome,
      });
    const ended = (result: unknown) =>
      note(
        (result as { isError?: boolean }).isError === true ? "isError" : "ok",
      );
    const failed = (cause: unknown) =>
      note(`error ${(cause as { code?: number }).code}`);
    let outcome: unknown;
    try {
      outcome = next();
    } catch (cause) {
      failed(cause);
      throw cause;
    }
    if (outcome instanceof Promise) {
      return outcome.then((result) => (ended(result), result), (cause) => {
        failed(cause);
        throw cause;
      });
    }
    ended(outcome);
    return outcome;
  };
  return { seen, layer };
}

function server() {
  const s = createServer({ name: "observed", version: "1" });
  s.tool({
    name: "ping",
    description: "Answers pong",
    handler: () => text("pong"),
  });
  s.tool({
    name: "fail",
    description: "Always a domain error",
    handler: () => error("no"),
  });
  s.prompt({
    name: "greet",
    description: "A greeting",
    handler: async () => {
      await Promise.resolve();
      return { messages: [] };
    },
  });
  return s;
}

Deno.test("use({ request }) sees every request of a session: method, id, revision, outcome", async () => {
  const s = server();
  const { seen, layer } = recorder();
  s.use({ request: layer });
  await using client = await connect(s);
  await client.listTools();
  await client.call("ping");
  await client.call("fail");
  await client.request("prompts/get", { name: "greet" });
  await assert.rejects(client.call("nope"), RpcError);
  await assert.rejects(client.request("no/such/method"), RpcError);
  const v = "2025-11-25";
  assert.deepEqual(
    seen.map((s) => [s.method, s.name, s.protocolVersion, s.outcome]),
    [
      // Read once answered: the revision initialize chose.
      ["initialize", undefined, v, "ok"],
      ["tools/list", undefined, v, "ok"],
      ["tools/call", "ping", v, "ok"],
      ["tools/call", "fail", v, "isError"],
      ["prompts/get", "greet", v, "ok"],
      ["tools/call", "nope", v, "error -32602"],
      ["no/such/method", undefined, v, "error -32601"],
    ],
  );
  assert.equal(new Set(seen.map((s) => s.id)).size, seen.length);
  assert.ok(seen.every((s) => s.sessionId === undefined));
});

Deno.test("use({ request }) sees a 2026-07-28 request's revision in its _meta", async () => {
  const s = server();
  const { seen, layer } = recorder();
  s.use({ request: layer });
  await using client = await connectStateless(s);
  await client.call("ping");
  assert.deepEqual(
    seen.map((s) => [s.method, s.name, s.protocolVersion, s.outcome]),
    [["tools/call", "ping", STATELESS_PROTOCOL_VERSIONS[0], "ok"]],
  );
});

Deno.test("use({ request, call }) runs request layers outside call layers, in the order added", async () => {
  const s = server();
  const order: string[] = [];
  const pair = (name: string): Layers => ({
    request: (request, next) => {
      order.push(`${name} ${request.method}`);
      return next();
    },
    call: (call, next) => {
      order.push(`${name} call ${call.name}`);
      return next();
    },
  });
  s.use(pair("a")).use(pair("b"));
  await using client = await connect(s);
  order.length = 0;
  await client.call("ping");
  assert.deepEqual(order, [
    "a tools/call",
    "b tools/call",
    "a call ping",
    "b call ping",
  ]);
});

Deno.test("a request layer added after a session started sees its later requests", async () => {
  const s = server();
  await using client = await connect(s);
  const { seen, layer } = recorder();
  s.use({ request: layer });
  await client.call("ping");
  assert.deepEqual(seen.map((s) => s.method), ["tools/call"]);
});

Deno.test("a request layer may serve after an await", async () => {
  const s = server();
  s.use({
    request: async (_request, next) => {
      await new Promise((resolve) => queueMicrotask(() => resolve(undefined)));
      return await next();
    },
  });
  await using client = await connect(s);
  assert.deepEqual(await client.call("ping"), {
    content: [{ type: "text", text: "pong" }],
  });
});

Deno.test("use() refuses layers without a function", () => {
  const s = server();
  for (const bad of [{}, { request: "log" }, { call: 1 }]) {
    assert.throws(
      () => s.use(bad as unknown as Layers),
      (e) =>
        e instanceof TypeError &&
        e.message ===
          "Cannot use layers: expected { request?, call? } with at least one function",
    );
  }
});
