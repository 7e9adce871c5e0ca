// Internal: one request's SERVER span and duration measurement, named and
// attributed as the MCP conventions say. otel() makes one per request a
// server answers; the gate (toolkit/gate/_otel.ts) one per request it
// relays, so that both read the same in a backend.

import {
  type Attributes,
  type Context,
  context,
  type Histogram,
  metrics,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import type { IncomingRequest } from "../server/layer.ts";
import {
  ATTR,
  DURATION_BUCKETS,
  DURATION_METRIC,
  isProbe,
  metaOf,
  targetOf,
} from "./_semconv.ts";

/** The tracer and histogram of one instrumentation scope. */
export interface Instruments {
  readonly tracer: Tracer;
  readonly duration: Histogram;
  /** `network.transport` on every span and measurement, when known. */
  readonly transport: string | undefined;
}

/** The instruments of `scope`, the name of who makes the spans. */
export function instrumentsOf(
  scope: string,
  transport: string | undefined,
): Instruments {
  return {
    tracer: trace.getTracer(scope),
    duration: metrics.getMeter(scope).createHistogram(DURATION_METRIC, {
      description: "How long the server took to answer an MCP request.",
      unit: "s",
      advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
    }),
    transport,
  };
}

/** Reads trace context from a request's `_meta`, where MCP clients put it. */
const META_GETTER: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === "string" ? value : undefined;
  },
};

/** How a request ended, for its span and measurement. */
export interface RequestOutcome {
  /** `error.type`: a JSON-RPC error code, or `tool_error`. */
  errorType?: string;
  /** `rpc.response.status_code`: the JSON-RPC error code of an error answer. */
  code?: string;
  /** The revision the request spoke, once known. */
  protocolVersion?: string;
  /** Low-cardinality attributes of the measurement's own (and the span's). */
  measured?: Attributes;
}

/** A request's span, started; end it once with its outcome. */
export interface RequestSpan {
  readonly span: Span;
  /** The span's context: run the request in it, so that its spans nest. */
  readonly context: Context;
  /** Ends the span and records the duration. */
  end(outcome: RequestOutcome): void;
}

/**
 * Starts the SERVER span of `incoming`: named `{method} {target}`, the
 * child of the `traceparent` in its `_meta` if any, else of the active
 * context.
 */
export function startRequestSpan(
  instruments: Instruments,
  incoming: Pick<IncomingRequest, "method" | "params" | "id" | "sessionId">,
): RequestSpan {
  const meta = metaOf(incoming);
  const active = context.active();
  const parent = meta === undefined
    ? active
    : propagation.extract(active, meta, META_GETTER);
  const { method } = incoming;
  const target = targetOf(incoming);
  const attributes: Attributes = {
    [ATTR.METHOD]: method,
    [ATTR.REQUEST_ID]: String(incoming.id),
  };
  // Measurements share the low-cardinality ones only.
  const measured: Attributes = { [ATTR.METHOD]: method };
  if (target.key !== undefined && target.name !== undefined) {
    attributes[target.key] = measured[target.key] = target.name;
  }
  if (method === "tools/call") {
    attributes[ATTR.OPERATION] = "execute_tool";
    if (isProbe(meta)) attributes[ATTR.PROBE] = true;
  }
  if (target.uri !== undefined) attributes[ATTR.RESOURCE_URI] = target.uri;
  const { sessionId } = incoming;
  if (sessionId !== undefined) attributes[ATTR.SESSION_ID] = sessionId;
  const { transport } = instruments;
  if (transport !== undefined) {
    attributes[ATTR.NETWORK_TRANSPORT] =
      measured[ATTR.NETWORK_TRANSPORT] =
        transport;
  }
  const span = instruments.tracer.startSpan(
    target.name === undefined ? method : `${method} ${target.name}`,
    { kind: SpanKind.SERVER, attributes },
    parent,
  );
  const started = performance.now();
  return {
    span,
    context: trace.setSpan(parent, span),
    end({ errorType, code, protocolVersion, measured: extra }) {
      if (protocolVersion !== undefined) {
        span.setAttribute(ATTR.PROTOCOL_VERSION, protocolVersion);
        measured[ATTR.PROTOCOL_VERSION] = protocolVersion;
      }
      if (extra !== undefined) {
        span.setAttributes(extra);
        Object.assign(measured, extra);
      }
      if (errorType !== undefined) {
        span.setAttribute(ATTR.ERROR_TYPE, errorType);
        measured[ATTR.ERROR_TYPE] = errorType;
        // No message: an error's text may quote an argument.
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      if (code !== undefined) span.setAttribute(ATTR.STATUS_CODE, code);
      span.end();
      instruments.duration.record(
        (performance.now() - started) / 1000,
        measured,
      );
    },
  };
}
