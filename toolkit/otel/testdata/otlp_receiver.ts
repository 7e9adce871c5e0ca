// An OTLP/HTTP receiver on a loopback port, for the tests that run a
// process under OTEL_DENO=true with OTEL_EXPORTER_OTLP_PROTOCOL=http/json:
// what arrives, read as spans and as points of the duration histogram.

export interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
}
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: OtlpValue }[];
  status?: { code?: number; message?: string };
  /** Filled in by the receiver: the instrumentation scope that made it. */
  scope?: string;
}

export interface OtlpPoint {
  attributes: { key: string; value: OtlpValue }[];
  count: string | number;
  /** Filled in by the receiver: the instrumentation scope that made it. */
  scope?: string;
}
export interface OtlpMetric {
  name: string;
  unit?: string;
  histogram?: { dataPoints: OtlpPoint[] };
}

/** An OTLP/HTTP receiver on a loopback port: what arrives at each path. */
export function receiver() {
  const bodies: { path: string; body: string }[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      bodies.push({
        path: new URL(request.url).pathname,
        body: await request.text(),
      });
      return Response.json({});
    },
  );
  const spans = (): OtlpSpan[] =>
    bodies.filter((b) => b.path === "/v1/traces").flatMap((b) =>
      (JSON.parse(b.body).resourceSpans ?? []).flatMap((
        r: { scopeSpans: { scope?: { name?: string }; spans: OtlpSpan[] }[] },
      ) =>
        r.scopeSpans.flatMap((s) =>
          s.spans.map((span) => ({ ...span, scope: s.scope?.name }))
        ))
    );
  const points = (): OtlpPoint[] =>
    bodies.filter((b) => b.path === "/v1/metrics").flatMap((b) =>
      (JSON.parse(b.body).resourceMetrics ?? []).flatMap((
        r: {
          scopeMetrics: { scope?: { name?: string }; metrics: OtlpMetric[] }[];
        },
      ) =>
        r.scopeMetrics.flatMap((s) =>
          s.metrics.filter((m) =>
            m.name === "mcp.server.operation.duration" && m.unit === "s"
          ).flatMap((m) =>
            (m.histogram?.dataPoints ?? []).map((point) => ({
              ...point,
              scope: s.scope?.name,
            }))
          )
        )
      )
    );
  return { server, bodies, spans, points, port: server.addr.port };
}

/** An OTLP item's attributes as a plain object. */
export function attributes(
  item: { attributes: OtlpSpan["attributes"] },
): Record<string, unknown> {
  return Object.fromEntries(
    item.attributes.map(({ key, value }) => [key, valueOf(value)]),
  );
}

function valueOf(value: OtlpValue): unknown {
  if (value.arrayValue !== undefined) {
    return (value.arrayValue.values ?? []).map(valueOf);
  }
  return value.stringValue ?? value.boolValue ?? value.intValue ??
    value.doubleValue;
}
