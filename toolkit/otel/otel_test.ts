// The layer against the official OpenTelemetry SDK: a tracer provider with
// an in-memory exporter, registered as the API's global one (as Deno
// registers its own under OTEL_DENO=true), for the exact spans.

import assert from "node:assert/strict";
import { trace } from "@opentelemetry/api";
import {
  CALLER_SPAN,
  installInMemoryTracing,
  TRACE_ID,
  TRACEPARENT,
} from "./testdata/in_memory_tracing.ts";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { z } from "zod";
import { createServer, type ToolServer } from "../server/server.ts";
import { error, text } from "../result/result.ts";
import { registerPatternTool } from "../probe.ts";
import { connect, RpcError } from "../testing/testing.ts";
import { until } from "../testing/_until.ts";
import { connectStateless } from "../server/_stateless_test_helpers.ts";
import { otel } from "./otel.ts";

const exporter = installInMemoryTracing();
const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };
/** An argument value no span may show. */
const SECRET = "s3cret-argument-value";

function traced(): ToolServer {
  const server = createServer({ name: "traced", version: "1" });
  server.use(otel({ networkTransport: "pipe" }));
  const inner = trace.getTracer("handler");
  server.tool({
    name: "write_file",
    description: "Writes a file",
    input: z.object({ path: z.string(), content: z.string() }),
    handler: ({ path }) =>
      inner.startActiveSpan("inner", (span) => {
        span.end();
        return text(`wrote ${path}`);
      }),
  });
  server.tool({
    name: "fail",
    description: "Always a domain error that quotes its argument",
    input: z.object({ path: z.string() }),
    handler: ({ path }) => error(`cannot write ${path}`),
  });
  registerPatternTool(server, {
    name: "clean",
    description: "Deletes a folder",
    input: z.object({ dir: z.string() }),
    patterns: ({ dir }) => [`delete:${dir}`],
    handler: () => text("cleaned"),
  });
  server.prompt({
    name: "review",
    description: "Reviews code",
    arguments: [{ name: "code", required: true }],
    handler: ({ code }) => ({
      messages: [{ role: "user", content: { type: "text", text: code } }],
    }),
  });
  server.resource({
    uri: "notes://index",
    name: "index",
    read: (uri) => ({ uri: uri.href, text: "todo" }),
  });
  return server;
}

function spanNamed(name: string): ReadableSpan {
  const found = exporter.getFinishedSpans().filter((s) => s.name === name);
  assert.equal(found.length, 1, `one span ${name}, got ${found.length}`);
  return found[0];
}

function noSecretIn(span: ReadableSpan): void {
  const seen = JSON.stringify({
    name: span.name,
    attributes: span.attributes,
    status: span.status,
    events: span.events,
  });
  assert.ok(!seen.includes(SECRET), `no argument value in ${seen}`);
}

Deno.test("otel() gives each request a SERVER span named and attributed as the MCP conventions say", async () => {
  exporter.reset();
  await using client = await connect(traced());
  await client.listTools();
  await client.call("write_file", { path: SECRET, content: SECRET }, {
    meta: { traceparent: TRACEPARENT, tracestate: "vendor=1" },
  });
  await client.request("prompts/get", {
    name: "review",
    arguments: { code: SECRET },
  });
  await client.request("resources/read", { uri: "notes://index" });

  const init = spanNamed("initialize");
  assert.equal(init.kind, 1); // SpanKind.SERVER
  assert.equal(init.attributes["mcp.protocol.version"], "2025-11-25");

  const list = spanNamed("tools/list");
  assert.deepEqual(list.attributes, {
    "mcp.method.name": "tools/list",
    "jsonrpc.request.id": list.attributes["jsonrpc.request.id"],
    "network.transport": "pipe",
    "mcp.protocol.version": "2025-11-25",
  });
  assert.equal(typeof list.attributes["jsonrpc.request.id"], "string");

  const call = spanNamed("tools/call write_file");
  assert.deepEqual(call.attributes, {
    "mcp.method.name": "tools/call",
    "jsonrpc.request.id": call.attributes["jsonrpc.request.id"],
    "gen_ai.tool.name": "write_file",
    "gen_ai.operation.name": "execute_tool",
    "network.transport": "pipe",
    "mcp.protocol.version": "2025-11-25",
  });
  assert.equal(call.status.code, 0); // UNSET: answered
  // Carried in from _meta.traceparent, with its tracestate.
  assert.equal(call.spanContext().traceId, TRACE_ID);
  assert.equal(call.parentSpanContext?.spanId, CALLER_SPAN);
  assert.equal(call.spanContext().traceState?.get("vendor"), "1");
  // The handler's own span nests in the call's.
  const inner = spanNamed("inner");
  assert.equal(inner.parentSpanContext?.spanId, call.spanContext().spanId);
  assert.equal(inner.spanContext().traceId, TRACE_ID);
  // Without a traceparent, a span starts a trace of its own.
  assert.notEqual(list.spanContext().traceId, TRACE_ID);

  const prompt = spanNamed("prompts/get review");
  assert.equal(prompt.attributes["gen_ai.prompt.name"], "review");
  // The URI is an attribute, never the name: it may be unbounded.
  const read = spanNamed("resources/read");
  assert.equal(read.attributes["mcp.resource.uri"], "notes://index");

  for (const span of exporter.getFinishedSpans()) noSecretIn(span);
});

Deno.test("otel() marks an isError result tool_error and a JSON-RPC error with its code, and never records their text", async () => {
  exporter.reset();
  await using client = await connect(traced());
  const failed = await client.call("fail", { path: SECRET });
  assert.equal(failed.isError, true);
  await assert.rejects(
    client.call("wirte_file", { path: SECRET }),
    (e) => e instanceof RpcError && e.code === -32602,
  );
  // Arguments that do not decode: a domain error that names the mismatch.
  const mismatch = await client.call("write_file", {
    path: 1,
    content: SECRET,
  });
  assert.equal(mismatch.isError, true);

  const fail = spanNamed("tools/call fail");
  assert.equal(fail.attributes["error.type"], "tool_error");
  assert.equal(fail.attributes["rpc.response.status_code"], undefined);
  assert.equal(fail.status.code, 2); // ERROR
  assert.equal(fail.status.message, undefined);

  const unknown = spanNamed("tools/call wirte_file");
  assert.equal(unknown.attributes["error.type"], "-32602");
  assert.equal(unknown.attributes["rpc.response.status_code"], "-32602");
  assert.equal(unknown.status.code, 2);
  assert.equal(unknown.status.message, undefined);

  const decoding = spanNamed("tools/call write_file");
  assert.equal(decoding.attributes["error.type"], "tool_error");

  for (const span of exporter.getFinishedSpans()) noSecretIn(span);
});

Deno.test("otel() traces a probe as a tools/call marked forge.probe, in the client's trace", async () => {
  exporter.reset();
  await using client = await connect(traced());
  await client.request("tools/call", {
    name: "clean",
    arguments: { dir: SECRET },
    _meta: { "forge.permission_patterns": true, traceparent: TRACEPARENT },
  });
  const probe = spanNamed("tools/call clean");
  assert.equal(probe.attributes["forge.probe"], true);
  assert.equal(probe.attributes["gen_ai.tool.name"], "clean");
  assert.equal(probe.spanContext().traceId, TRACE_ID);
  assert.equal(probe.parentSpanContext?.spanId, CALLER_SPAN);
  noSecretIn(probe);
});

Deno.test("otel() carries the context into a task's detached run, and spans that run once it ends", async () => {
  exporter.reset();
  const server = traced();
  const release = Promise.withResolvers<void>();
  const inner = trace.getTracer("handler");
  server.tool({
    name: "slow",
    description: "Finishes when let go",
    task: true,
    handler: async () => {
      await release.promise;
      inner.startSpan("after detach").end();
      return text("done");
    },
  });
  await using client = await connectStateless(server, { capabilities: TASKS });
  const created = await client.call("slow", {}, {
    traceparent: TRACEPARENT,
  }) as unknown as Record<string, unknown>;
  assert.equal(created.resultType, "task");
  const request = spanNamed("tools/call slow");
  assert.equal(request.attributes["mcp.protocol.version"], "2026-07-28");
  assert.equal(request.spanContext().traceId, TRACE_ID);
  release.resolve();
  await until(
    "the task's span",
    () => exporter.getFinishedSpans().some((s) => s.name === "task slow"),
  );
  const task = spanNamed("task slow");
  assert.equal(task.attributes["mcp.task.id"], created.taskId);
  assert.equal(task.attributes["gen_ai.tool.name"], "slow");
  assert.equal(task.parentSpanContext?.spanId, request.spanContext().spanId);
  const after = spanNamed("after detach");
  assert.equal(after.spanContext().traceId, TRACE_ID);
  assert.equal(after.parentSpanContext?.spanId, request.spanContext().spanId);
});
