// End to end: a server with the layer runs as a child process under
// OTEL_DENO=true, and Deno's own exporter sends its spans to an OTLP/HTTP
// receiver in this test (JSON encoding, so the spans read as they are).

import assert from "node:assert/strict";
import { spawnStdio } from "../testing/stdio_client.ts";
import { until } from "../testing/_until.ts";
import { attributes, receiver } from "./testdata/otlp_receiver.ts";

const SERVER = new URL("./testdata/traced_server.ts", import.meta.url)
  .pathname;
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";
const SECRET = "s3cret-argument-value";

Deno.test("under OTEL_DENO=true a server's spans reach an OTLP/HTTP endpoint, named and attributed", async () => {
  const otlp = receiver();
  try {
    const child = spawnStdio(Deno.execPath(), ["run", "-A", SERVER], {
      env: {
        OTEL_DENO: "true",
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${otlp.port}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "traced-test",
      },
    });
    await child.initialize();
    await child.call("write_file", { path: SECRET, content: SECRET }, {
      meta: { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` },
    });
    const failed = await child.call("fail", { path: SECRET });
    assert.equal(failed.isError, true);
    const unknown = await child.exchange("tools/call", { name: "nope" });
    assert.equal((unknown.error as { code: number }).code, -32602);
    // The exporter flushes as the process ends.
    assert.equal((await child.close()).code, 0);
    await until(
      "the spans of four requests and the measurements",
      () => otlp.spans().length >= 4 && otlp.points().length > 0,
    );

    const byName = new Map(otlp.spans().map((s) => [s.name, s]));
    const call = byName.get("tools/call write_file")!;
    assert.equal(call.kind, 2); // SPAN_KIND_SERVER
    assert.equal(call.traceId, TRACE_ID);
    assert.equal(call.parentSpanId, CLIENT_SPAN);
    assert.deepEqual(attributes(call), {
      "mcp.method.name": "tools/call",
      "jsonrpc.request.id": attributes(call)["jsonrpc.request.id"],
      "gen_ai.tool.name": "write_file",
      "gen_ai.operation.name": "execute_tool",
      "network.transport": "pipe",
      "mcp.protocol.version": "2025-11-25",
    });
    assert.equal(
      attributes(byName.get("tools/call fail")!)["error.type"],
      "tool_error",
    );
    assert.equal(
      attributes(byName.get("tools/call nope")!)["error.type"],
      "-32602",
    );
    assert.equal(
      attributes(byName.get("initialize")!)["mcp.protocol.version"],
      "2025-11-25",
    );
    const points = otlp.points().map((p): Record<string, unknown> => ({
      ...attributes(p),
      count: Number(p.count),
    }));
    assert.deepEqual(
      points.find((p) => p["gen_ai.tool.name"] === "fail"),
      {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "fail",
        "network.transport": "pipe",
        "mcp.protocol.version": "2025-11-25",
        "error.type": "tool_error",
        count: 1,
      },
    );
    const traces = otlp.bodies.filter((b) => b.path === "/v1/traces");
    assert.ok(traces.every((b) => !b.body.includes(SECRET)));
    assert.ok(traces.some((b) => b.body.includes('"traced-test"')));
  } finally {
    await otlp.server.shutdown();
  }
});
