// The gate's telemetry against the official OpenTelemetry SDK, registered
// as the API's global provider (as Deno registers its own under
// OTEL_DENO=true), with startGate() over a pair of streams in front of the
// fake server: the exact spans of the calls it decides.

import assert from "node:assert/strict";
import {
  CALLER_SPAN,
  installInMemoryTracing,
  TRACE_ID,
  TRACEPARENT,
} from "../otel/testdata/in_memory_tracing.ts";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { Policy } from "../policy/mod.ts";
import { startGate } from "./gate.ts";
import { FAKE_COMMAND } from "./testdata/gate_process.ts";
import { hostStreams } from "./testdata/host_streams.ts";

const exporter = installInMemoryTracing();

/**
 * A span time ([seconds, nanoseconds]) as one number (arrays compared with
 * `<=` compare as strings, so "1,5" would come after "1,10").
 */
function nanos([seconds, nanoseconds]: readonly [number, number]): bigint {
  return BigInt(seconds) * 1_000_000_000n + BigInt(nanoseconds);
}

/**
 * Whether span `a` ended before span `b` started. The SDK takes a start
 * time from the wall clock in whole milliseconds and an end time to the
 * nanosecond, so `b` may start in the millisecond `a` ended in.
 */
function endedBefore(
  a: { endTime: readonly [number, number] },
  b: { startTime: readonly [number, number] },
): boolean {
  return nanos(a.endTime) < nanos(b.startTime) + 1_000_000n;
}
/** An argument value no span may show. */
const SECRET = "s3cret-argument-value";
const SERVER = 1;
const CLIENT = 2;

// deno-lint-ignore no-explicit-any
type Message = Record<string, any>;

/** A host on a pair of streams, and a gate in front of the fake server. */
async function gateWithHost(
  policy: Policy,
  options: { telemetry?: boolean; capabilities?: Message } = {},
) {
  const host = hostStreams();
  const gate = await startGate(FAKE_COMMAND, {
    policy,
    unprobed: "allow",
    readable: host.readable,
    writable: host.writable,
    log: () => {},
    telemetry: options.telemetry ?? true,
  });
  await host.send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: options.capabilities ?? {},
      clientInfo: { name: "t", version: "1" },
    },
  });
  await host.next();
  return {
    send: host.send,
    next: host.next,
    /** Sends a `tools/call` and resolves with the next message. */
    async call(id: number, name: string, args: Message, meta?: Message) {
      await host.call(id, name, args, meta);
      return await host.next();
    },
    async [Symbol.asyncDispose]() {
      await host.end();
      assert.equal(await gate.finished, 0);
      await host.drain();
    },
  };
}

const POLICY = new Policy({
  allow: ["write:notes/**", "x-fake:**"],
  ask: ["write:drafts/**"],
  deny: ["write:secrets/**"],
});

function spans(name: string, kind: number): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((s) =>
    s.name === name && s.kind === kind
  );
}

function spanOf(name: string, kind: number): ReadableSpan {
  const found = spans(name, kind);
  assert.equal(found.length, 1, `one span ${name}, got ${found.length}`);
  return found[0];
}

function childOf(child: ReadableSpan, parent: ReadableSpan): void {
  assert.equal(child.spanContext().traceId, parent.spanContext().traceId);
  assert.equal(child.parentSpanContext?.spanId, parent.spanContext().spanId);
}

function noSecretIn(): void {
  for (const span of exporter.getFinishedSpans()) {
    const seen = JSON.stringify([span.name, span.attributes, span.events]);
    assert.ok(!seen.includes(SECRET), `no argument value in ${seen}`);
  }
}

/** The `_meta` the fake server received with a call: its answer. */
function metaReceived(answer: Message): Message {
  return JSON.parse(answer.result.content[0].text);
}

Deno.test("the gate traces an allowed probed call: its decision, the probe, and the forwarded call in the host's trace", async () => {
  exporter.reset();
  await using host = await gateWithHost(POLICY);
  const answer = await host.call(
    2,
    "probed",
    { patterns: ["write:notes/a.txt"], content: SECRET },
    { traceparent: TRACEPARENT, tracestate: "vendor=1" },
  );

  const call = spanOf("tools/call probed", SERVER);
  assert.equal(call.spanContext().traceId, TRACE_ID);
  assert.equal(call.parentSpanContext?.spanId, CALLER_SPAN);
  assert.deepEqual(call.attributes, {
    "mcp.method.name": "tools/call",
    "jsonrpc.request.id": "2",
    "gen_ai.tool.name": "probed",
    "gen_ai.operation.name": "execute_tool",
    "network.transport": "pipe",
    "mcp.protocol.version": "2025-06-18",
    "forge.gate.decision": "allow",
    "forge.gate.outcome": "forwarded",
    "forge.gate.rule": "x-fake:**",
    // A custom pattern is recorded as its digest (_redact.ts).
    "forge.gate.patterns": [
      "x-fake:[redacted sha256:75c088572910bf9d]",
      "write:notes/a.txt",
    ],
  });
  assert.equal(call.status.code, 0); // UNSET: answered

  // The gate's own requests for the call: the tool list it had not seen,
  // the probe, then the call itself.
  childOf(spanOf("tools/list", CLIENT), call);
  const probe = spanOf("forge.gate.probe", CLIENT);
  childOf(probe, call);
  assert.equal(probe.attributes["gen_ai.tool.name"], "probed");
  assert.equal(probe.attributes["forge.probe"], true);
  const forward = spanOf("tools/call probed", CLIENT);
  childOf(forward, call);
  assert.ok(endedBefore(probe, forward), "the probe, then the call");

  // The server received the forwarded call's trace context, to carry on.
  const meta = metaReceived(answer);
  assert.equal(
    meta.traceparent,
    `00-${TRACE_ID}-${forward.spanContext().spanId}-01`,
  );
  assert.equal(meta.tracestate, "vendor=1");
  assert.deepEqual(meta["forge.approved_patterns"], [
    "x-fake:always",
    "write:notes/a.txt",
  ]);
  const initialize = spanOf("initialize", SERVER);
  assert.equal(initialize.attributes["mcp.protocol.version"], "2025-06-18");
  childOf(spanOf("initialize", CLIENT), initialize);
  noSecretIn();
});

Deno.test("the gate traces a denied call with error.type and its rule, and no forwarded call", async () => {
  exporter.reset();
  await using host = await gateWithHost(POLICY);
  const answer = await host.call(2, "probed", {
    patterns: ["write:secrets/key"],
    content: SECRET,
  });
  assert.equal(answer.result.isError, true);

  const call = spanOf("tools/call probed", SERVER);
  assert.equal(call.attributes["error.type"], "tool_error");
  assert.equal(call.status.code, 2); // ERROR
  assert.equal(call.status.message, undefined);
  assert.equal(call.attributes["forge.gate.decision"], "deny");
  assert.equal(call.attributes["forge.gate.outcome"], "denied");
  assert.equal(call.attributes["forge.gate.rule"], "write:secrets/**");
  childOf(spanOf("forge.gate.probe", CLIENT), call);
  assert.deepEqual(spans("tools/call probed", CLIENT), []);
  noSecretIn();
});

Deno.test("the gate traces an unprobed call: its decision, no probe, the forwarded call", async () => {
  exporter.reset();
  await using host = await gateWithHost(POLICY);
  const answer = await host.call(2, "plain", { content: SECRET });

  const call = spanOf("tools/call plain", SERVER);
  assert.equal(call.attributes["forge.gate.decision"], "allow");
  assert.equal(call.attributes["forge.gate.rule"], "unprobed");
  assert.equal(call.attributes["forge.gate.patterns"], undefined);
  assert.equal(call.attributes["error.type"], undefined);
  assert.deepEqual(spans("forge.gate.probe", CLIENT), []);
  const forward = spanOf("tools/call plain", CLIENT);
  childOf(forward, call);
  assert.equal(
    metaReceived(answer).traceparent,
    `00-${call.spanContext().traceId}-${forward.spanContext().spanId}-01`,
  );
  noSecretIn();
});

Deno.test("the gate traces the user's approval of an asked call", async () => {
  exporter.reset();
  await using host = await gateWithHost(POLICY, {
    capabilities: { elicitation: {} },
  });
  await host.send({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "probed", arguments: { patterns: ["write:drafts/d"] } },
  });
  const question = await host.next();
  assert.equal(question.method, "elicitation/create");
  await host.send({
    jsonrpc: "2.0",
    id: question.id,
    result: { action: "accept", content: {} },
  });
  const answer = await host.next();
  assert.equal(answer.id, 2);

  const call = spanOf("tools/call probed", SERVER);
  assert.equal(call.attributes["forge.gate.decision"], "ask");
  assert.equal(call.attributes["forge.gate.outcome"], "approved");
  assert.equal(call.attributes["forge.gate.rule"], "write:drafts/**");
  const approval = spanOf("forge.gate.approval", CLIENT);
  childOf(approval, call);
  assert.equal(approval.attributes["forge.gate.approval.action"], "accept");
  assert.equal(approval.attributes["mcp.method.name"], "elicitation/create");
  const probe = spanOf("forge.gate.probe", CLIENT);
  const forward = spanOf("tools/call probed", CLIENT);
  assert.ok(endedBefore(probe, approval), "probed, then asked");
  assert.ok(endedBefore(approval, forward), "asked, then forwarded");
  // The host is not handed the gate's trace context with the question.
  assert.equal(question.params._meta, undefined);
});

Deno.test("a 2026-07-28 call asked in rounds ends its span with the question, decision ask", async () => {
  exporter.reset();
  await using host = await gateWithHost(POLICY);
  const answer = await host.call(2, "probed", {
    patterns: ["write:drafts/d"],
  }, {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  });
  assert.equal(answer.result.resultType, "input_required");

  const call = spanOf("tools/call probed", SERVER);
  assert.equal(call.attributes["mcp.protocol.version"], "2026-07-28");
  assert.equal(call.attributes["forge.gate.decision"], "ask");
  assert.equal(call.attributes["forge.gate.outcome"], "asked");
  assert.equal(call.attributes["forge.gate.rule"], "write:drafts/**");
  assert.equal(call.attributes["error.type"], undefined);
  assert.deepEqual(spans("tools/call probed", CLIENT), []);
});

Deno.test("a call the host cancels ends its span and the probe it waited on as cancelled", async () => {
  exporter.reset();
  await using host = await gateWithHost(POLICY);
  await host.send({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "wait", arguments: { announce: true } },
  });
  // The fake server says when the probe it will never answer reached it.
  const announced = await host.next();
  assert.match(announced.params.data, /^probe of wait: /);
  await host.send({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 2 },
  });
  // Its cancellation reaches the server too, and is announced back.
  assert.match((await host.next()).params.data, /^cancelled: /);

  const call = spanOf("tools/call wait", SERVER);
  assert.equal(call.attributes["error.type"], "cancelled");
  const probe = spanOf("forge.gate.probe", CLIENT);
  childOf(probe, call);
  assert.equal(probe.attributes["error.type"], "cancelled");
});

Deno.test("startGate() refuses a telemetry option that is not a boolean", async () => {
  await assert.rejects(
    startGate(FAKE_COMMAND, {
      policy: POLICY,
      telemetry: "yes" as unknown as boolean,
    }),
    (e) =>
      e instanceof TypeError &&
      e.message ===
        'Cannot start the gate: telemetry must be a boolean, got "yes"',
  );
});

Deno.test("a gate without telemetry makes no span", async () => {
  exporter.reset();
  await using host = await gateWithHost(POLICY, { telemetry: false });
  const answer = await host.call(2, "probed", {
    patterns: ["write:notes/a.txt"],
  });
  assert.equal(metaReceived(answer).traceparent, undefined);
  assert.deepEqual(exporter.getFinishedSpans(), []);
});

Deno.test("the gate's static module graph has no @opentelemetry/api; only its telemetry module loads it", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", new URL("./main.ts", import.meta.url).pathname],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert.ok(output.success);
  const info = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    roots: string[];
    modules: {
      specifier: string;
      dependencies?: {
        code?: { specifier: string };
        isDynamic?: boolean;
      }[];
    }[];
  };
  const byName = new Map(info.modules.map((m) => [m.specifier, m]));
  const statics = new Set<string>();
  const dynamics = new Set<string>();
  const visit = (specifier: string) => {
    if (statics.has(specifier)) return;
    statics.add(specifier);
    for (const dependency of byName.get(specifier)?.dependencies ?? []) {
      const next = dependency.code?.specifier;
      if (next === undefined) continue;
      if (dependency.isDynamic) dynamics.add(next);
      else visit(next);
    }
  };
  visit(info.roots[0]);
  assert.deepEqual([...statics].filter((s) => /opentelemetry/.test(s)), []);
  const local = [...dynamics].filter((s) => s.startsWith("file:"));
  assert.deepEqual(local.map((s) => s.slice(s.lastIndexOf("/") + 1)), [
    "_otel.ts",
  ]);
  const otel = byName.get(local[0])?.dependencies ?? [];
  assert.ok(otel.some((d) => /opentelemetry/.test(d.code?.specifier ?? "")));
});

Deno.test("a gate of many servers names the server on the span of each decided call", async () => {
  exporter.reset();
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(
    `${dir}/gate.json`,
    JSON.stringify({
      deny: ["write:secrets/**"],
      servers: { files: { command: FAKE_COMMAND } },
    }),
  );
  const host = hostStreams();
  const gate = await startGate([], {
    policy: `${dir}/gate.json`,
    readable: host.readable,
    writable: host.writable,
    log: () => {},
    telemetry: true,
  });
  try {
    await host.send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    });
    await host.next();
    await host.call(2, "files_probed", { patterns: ["write:secrets/key"] });
    const answer = await host.next();
    assert.equal(answer.result.isError, true);
    const call = spanOf("tools/call probed", SERVER);
    assert.equal(call.attributes["forge.gate.server"], "files");
    assert.equal(call.attributes["forge.gate.decision"], "deny");
  } finally {
    await host.end();
    await gate.close();
    await host.drain().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});
