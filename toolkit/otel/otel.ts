/**
 * The OpenTelemetry layer: a span per request and a duration histogram,
 * named and attributed as the OpenTelemetry semantic conventions for MCP
 * say, written through `@opentelemetry/api`. Deno exports what that API
 * records when run with `OTEL_DENO=true` (OTLP to
 * `OTEL_EXPORTER_OTLP_ENDPOINT`); without it, or under another runtime
 * without an SDK, the API records nothing.
 *
 * @module
 */

import {
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
} from "@opentelemetry/api";
import { isThenable } from "../_util/thenable.ts";
import type { CallLayer, RequestLayer } from "../server/layer.ts";
import { instrumentsOf, startRequestSpan } from "./_request_span.ts";
import { ATTR, errorCode, TOOL_ERROR } from "./_semconv.ts";

/** The instrumentation scope's name: who made the spans. */
const SCOPE = "@forge/toolkit/otel";

/**
 * Options for {@linkcode otel}.
 *
 * @example A server on Streamable HTTP
 * ```ts
 * import { otel, type OtelOptions } from "@forge/toolkit/otel";
 *
 * const options: OtelOptions = { networkTransport: "tcp" };
 * const layers = otel(options);
 * ```
 */
export interface OtelOptions {
  /**
   * `network.transport` on every span and measurement: `"pipe"` for stdio,
   * `"tcp"` for HTTP. Left out when not given.
   *
   * @default {undefined}
   */
  networkTransport?: "pipe" | "tcp" | "udp" | "quic" | "unix";
}

/**
 * The layers {@linkcode otel} makes: give them to `server.use()` together.
 *
 * @example
 * ```ts
 * import { createServer } from "@forge/toolkit";
 * import { otel, type OtelLayers } from "@forge/toolkit/otel";
 *
 * const layers: OtelLayers = otel();
 * createServer({ name: "s", version: "1" }).use(layers);
 * ```
 */
export interface OtelLayers {
  /** A span and a measurement per request. */
  readonly request: RequestLayer;
  /** A span for the detached run of a call that became a task. */
  readonly call: CallLayer;
}

/**
 * Makes the OpenTelemetry layers of a server: `server.use(otel())`.
 *
 * Each request gets a SERVER span named `{method} {target}` (such as
 * `tools/call write_file`, `prompts/get review`, or `tools/list`) with
 * `mcp.method.name`, `jsonrpc.request.id`, `mcp.protocol.version`,
 * `mcp.session.id` where there is a session, `gen_ai.tool.name`,
 * `gen_ai.prompt.name` or `mcp.resource.uri`, and `error.type`: the
 * JSON-RPC error code of an error answer, or `tool_error` for an
 * `isError` result. A `traceparent` (and `tracestate`) in the request's
 * `_meta` makes it the child of the client's span; the handler, a probe
 * and a task's detached run all run inside it, so their own spans nest.
 * The `mcp.server.operation.duration` histogram (seconds) counts each
 * request by method, target and `error.type`. No argument value and no
 * result body is ever recorded, nor an error's message.
 *
 * @example Trace every request of a server
 * ```ts
 * import { createServer, text } from "@forge/toolkit";
 * import { otel } from "@forge/toolkit/otel";
 *
 * const server = createServer({ name: "notes", version: "1" });
 * server.use(otel({ networkTransport: "pipe" }));
 * server.tool({ name: "ping", description: "Answers pong", handler: () => text("pong") });
 * // OTEL_DENO=true deno run -A server.ts exports its spans over OTLP.
 * ```
 */
export function otel(options: OtelOptions = {}): OtelLayers {
  const transport = options.networkTransport;
  const instruments = instrumentsOf(SCOPE, transport);
  const { tracer } = instruments;

  const request: RequestLayer = (incoming, next) => {
    const started = startRequestSpan(instruments, incoming);
    const { method } = incoming;
    const end = (errorType: string | undefined, code: string | undefined) =>
      // Known once answered: initialize's is the one it chose.
      started.end({
        errorType,
        code,
        protocolVersion: incoming.protocolVersion,
      });
    const answered = (result: unknown) =>
      end(
        method === "tools/call" &&
          (result as { isError?: unknown } | null)?.isError === true
          ? TOOL_ERROR
          : undefined,
        undefined,
      );
    const failed = (cause: unknown) => {
      const code = errorCode(cause);
      end(code, code);
    };
    let outcome: unknown;
    try {
      outcome = context.with(started.context, next);
    } catch (cause) {
      failed(cause);
      throw cause;
    }
    if (!isThenable(outcome)) {
      answered(outcome);
      return outcome;
    }
    return Promise.resolve(outcome).then((result) => {
      answered(result);
      return result;
    }, (cause) => {
      failed(cause);
      throw cause;
    });
  };

  const call: CallLayer = (tool, next) => {
    // Only a task tool's call can outlive its request.
    if (tool.tool.execution === undefined) return next();
    const startTime = performance.timeOrigin + performance.now();
    const parent = context.active();
    const settled = (errorType: string | undefined) => {
      const taskId = tool.ctx.taskId;
      if (taskId === undefined) return;
      const span = tracer.startSpan(`task ${tool.name}`, {
        kind: SpanKind.INTERNAL,
        startTime,
        attributes: {
          [ATTR.TOOL_NAME]: tool.name,
          [ATTR.TASK_ID]: taskId,
          ...(transport === undefined
            ? {}
            : { [ATTR.NETWORK_TRANSPORT]: transport }),
        },
      }, parent);
      endTask(span, errorType);
    };
    let outcome: ReturnType<CallLayer>;
    try {
      outcome = next();
    } catch (cause) {
      settled(errorCode(cause));
      throw cause;
    }
    if (!isThenable(outcome)) {
      settled(outcome.isError === true ? TOOL_ERROR : undefined);
      return outcome;
    }
    return Promise.resolve(outcome).then((result) => {
      settled(result.isError === true ? TOOL_ERROR : undefined);
      return result;
    }, (cause) => {
      settled(errorCode(cause));
      throw cause;
    });
  };

  return { request, call };
}

function endTask(span: Span, errorType: string | undefined): void {
  if (errorType !== undefined) {
    span.setAttribute(ATTR.ERROR_TYPE, errorType);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}
