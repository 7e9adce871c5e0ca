// End to end: gate/main.ts in front of hello-tool under OTEL_DENO=true,
// both exporting to an OTLP/HTTP receiver in this test. The gate's spans
// arrive with its names and decisions, and hello-tool's own spans (it uses
// otel()) carry on the gate's trace from the `_meta` the gate sent.

import assert from "node:assert/strict";
import { until } from "../testing/_until.ts";
import {
  attributes,
  type OtlpSpan,
  receiver,
} from "../otel/testdata/otlp_receiver.ts";
import {
  callTool,
  HELLO_COMMAND,
  startGateProcess,
  textOf,
} from "./testdata/gate_process.ts";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const HOST_SPAN = "00f067aa0ba902b7";
/** An argument value (not a target) no span may show. */
const SECRET = "s3cret-argument-value";
const GATE = "@forge/toolkit/gate";
const SERVER_SCOPE = "@forge/toolkit/otel";
const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;

Deno.test("under OTEL_DENO=true the gate's spans reach an OTLP endpoint, and the server's carry on its trace", async () => {
  const otlp = receiver();
  const dir = await Deno.makeTempDir({ prefix: "gate-otel-" });
  try {
    await Deno.mkdir(`${dir}/root`);
    await Deno.writeTextFile(
      `${dir}/policy.yaml`,
      'allow: ["write:notes/**"]\ndeny: ["write:secrets/**"]\nunprobed: allow\n',
    );
    const gate = await startGateProcess(
      ["--policy", `${dir}/policy.yaml`],
      HELLO_COMMAND,
      {
        env: {
          HELLO_ROOT: `${dir}/root`,
          // The server inherits these, and exports its own spans as well.
          OTEL_DENO: "true",
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${otlp.port}`,
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
          OTEL_SERVICE_NAME: "gate-test",
        },
      },
    );
    const allowed = await callTool(gate, "write_file", {
      path: "notes/a.txt",
      content: SECRET,
    }, { traceparent: `00-${TRACE_ID}-${HOST_SPAN}-01` });
    assert.equal(
      textOf(allowed),
      `Wrote ${SECRET.length} bytes to notes/a.txt`,
    );
    const denied = await callTool(gate, "write_file", {
      path: "secrets/key",
      content: SECRET,
    });
    assert.equal(denied.result.isError, true);
    // Both processes' exporters flush as they end.
    assert.equal((await gate.close()).code, 0);
    const named = (scope: string, name: string, kind: number) =>
      otlp.spans().filter((s) =>
        s.scope === scope && s.name === name && s.kind === kind
      );
    await until(
      "the gate's and the server's spans, and the gate's measurements",
      () =>
        named(GATE, "tools/call write_file", SPAN_KIND_SERVER).length === 2 &&
        named(SERVER_SCOPE, "tools/call write_file", SPAN_KIND_SERVER)
            .length === 3 &&
        otlp.points().some((p) => p.scope === GATE),
    );

    const calls = named(GATE, "tools/call write_file", SPAN_KIND_SERVER);
    const call = calls.find((s) => s.traceId === TRACE_ID)!;
    assert.equal(call.parentSpanId, HOST_SPAN);
    assert.deepEqual(attributes(call), {
      "mcp.method.name": "tools/call",
      "jsonrpc.request.id": attributes(call)["jsonrpc.request.id"],
      "gen_ai.tool.name": "write_file",
      "gen_ai.operation.name": "execute_tool",
      "network.transport": "pipe",
      "mcp.protocol.version": "2025-06-18",
      "forge.gate.decision": "allow",
      "forge.gate.outcome": "forwarded",
      "forge.gate.rule": "write:notes/**",
      "forge.gate.patterns": ["write:notes/a.txt"],
    });
    const inTrace = (s: OtlpSpan) => s.traceId === TRACE_ID;
    const probe = named(GATE, "forge.gate.probe", SPAN_KIND_CLIENT)
      .find(inTrace)!;
    assert.equal(probe.parentSpanId, call.spanId);
    const forward = named(GATE, "tools/call write_file", SPAN_KIND_CLIENT)
      .find(inTrace)!;
    assert.equal(forward.parentSpanId, call.spanId);
    // hello-tool's spans: its probe under the gate's probe, its call under
    // the gate's forwarded call.
    const served = named(
      SERVER_SCOPE,
      "tools/call write_file",
      SPAN_KIND_SERVER,
    )
      .filter(inTrace);
    const serverProbe = served.find((s) => attributes(s)["forge.probe"])!;
    assert.equal(serverProbe.parentSpanId, probe.spanId);
    const serverCall = served.find((s) => !attributes(s)["forge.probe"])!;
    assert.equal(serverCall.parentSpanId, forward.spanId);

    const refused = calls.find((s) => s.traceId !== TRACE_ID)!;
    assert.equal(attributes(refused)["forge.gate.decision"], "deny");
    assert.equal(attributes(refused)["forge.gate.rule"], "write:secrets/**");
    assert.equal(attributes(refused)["error.type"], "tool_error");
    assert.equal(refused.status?.code, 2); // STATUS_CODE_ERROR
    assert.deepEqual(
      named(GATE, "tools/call write_file", SPAN_KIND_CLIENT).filter((s) =>
        s.traceId === refused.traceId
      ),
      [],
    );

    const points = otlp.points().filter((p) => p.scope === GATE).map((
      p,
    ): Record<string, unknown> => ({
      ...attributes(p),
      count: Number(p.count),
    }));
    assert.deepEqual(
      points.find((p) => p["forge.gate.decision"] === "deny"),
      {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "write_file",
        "network.transport": "pipe",
        "mcp.protocol.version": "2025-06-18",
        "forge.gate.decision": "deny",
        "error.type": "tool_error",
        count: 1,
      },
    );
    const traces = otlp.bodies.filter((b) => b.path === "/v1/traces");
    assert.ok(traces.every((b) => !b.body.includes(SECRET)));
  } finally {
    await otlp.server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
