// Test helper: the official OpenTelemetry SDK registered as the API's
// global provider, context manager and propagator (as Deno registers its
// own under OTEL_DENO=true), with an in-memory exporter the tests read.

import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

/** The trace a test's caller claims to be part of, and its span. */
export const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
export const CALLER_SPAN = "b7ad6b7169203331";
export const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN}-01`;

/** Registers the SDK globally (once per test process); returns the exporter. */
export function installInMemoryTracing(): InMemorySpanExporter {
  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    }),
  );
  context.setGlobalContextManager(
    new AsyncLocalStorageContextManager().enable(),
  );
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return exporter;
}
