// Internal: the gate's telemetry, through @opentelemetry/api. gate.ts
// imports this module only when telemetry is on, so that a gate without it
// never loads the API.
//
// Each host request gets the SERVER span and measurement otel() gives a
// server's requests (toolkit/otel/_request_span.ts), so the gate's read as
// a server's; a call's span also says what the gate decided and why
// (`forge.gate.*`), and holds a CLIENT span for the probe, one for the
// user's approval, and one for the forwarded request, whose trace context
// goes on in its `_meta` for the server's own spans to carry on.

import {
  type Attributes,
  type Context,
  context,
  createContextKey,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { META } from "../jsonrpc/_versions.ts";
import type { JsonRpcId, JsonRpcMessage } from "../jsonrpc/mod.ts";
import {
  instrumentsOf,
  type RequestSpan,
  startRequestSpan,
} from "../otel/_request_span.ts";
import { ATTR, targetOf, TOOL_ERROR } from "../otel/_semconv.ts";
import { isRecord } from "../_util/json_type.ts";
import type {
  Answer,
  CallDecision,
  GateTelemetry,
  OwnRequestTrace,
} from "./_telemetry.ts";

/** The instrumentation scope's name: who made the spans. */
const SCOPE = "@forge/toolkit/gate";

/** The gate's own attribute keys. */
export const GATE_ATTR = {
  /** `allow`, `deny`, `ask`, or `error`; on the measurement too. */
  DECISION: "forge.gate.decision",
  /** The rule that decided: a policy rule, `tools.NAME`, `unprobed`, `pins`. */
  RULE: "forge.gate.rule",
  /** The call's canonical permission patterns: its targets, never its arguments. */
  PATTERNS: "forge.gate.patterns",
  /** What became of the call, as its audit line says. */
  OUTCOME: "forge.gate.outcome",
  /** The user's answer to an approval question: `accept`, `decline`, `cancel`. */
  ACTION: "forge.gate.approval.action",
  /** The server the call was for, in a gate of many servers. */
  SERVER: "forge.gate.server",
} as const;

/** The names of the spans of the gate's own requests. */
export const SPAN_NAME = {
  PROBE: "forge.gate.probe",
  APPROVAL: "forge.gate.approval",
} as const;

/** `error.type` of a span whose request ended unanswered. */
const CANCELLED = "cancelled";

/** One host request being traced. */
interface Traced {
  readonly span: RequestSpan;
  readonly method: string;
  /** The revision its `_meta` names (2026-07-28 on). */
  readonly version: string | undefined;
  /** The forwarded request's span, while the server has not answered. */
  forward?: Span;
  /** The spans of the gate's own requests for it, still open. */
  readonly children: Set<Span>;
  decision?: string;
  /** Whether its span has ended (a cancelled call is decided later). */
  ended?: boolean;
}

/** Where a request's {@linkcode Traced} is found while it is handled. */
const TRACED = createContextKey("forge.gate.request");

/** The gate's telemetry through `@opentelemetry/api`. */
export class OtelTelemetry implements GateTelemetry {
  // The host side of the gate is always its stdio.
  #instruments = instrumentsOf(SCOPE, "pipe");
  #requests = new Map<JsonRpcId, Traced>();
  // The revision initialize negotiated.
  #version: string | undefined;

  request(
    message: Parameters<GateTelemetry["request"]>[0],
    handle: () => void,
  ): void {
    const params = isRecord(message.params) ? message.params : undefined;
    const span = startRequestSpan(this.#instruments, {
      method: message.method,
      params,
      id: message.id,
      sessionId: undefined,
    });
    const meta = isRecord(params?._meta) ? params._meta : undefined;
    const version = meta?.[META.PROTOCOL_VERSION];
    const traced: Traced = {
      span,
      method: message.method,
      version: typeof version === "string" ? version : undefined,
      children: new Set(),
    };
    this.#requests.set(message.id, traced);
    context.with(span.context.setValue(TRACED, traced), handle);
  }

  answered(answer: Answer): void {
    if (answer.id === null) return;
    const traced = this.#take(answer.id);
    if (traced === undefined) return;
    if (
      traced.method === "initialize" && "result" in answer &&
      typeof answer.result.protocolVersion === "string"
    ) {
      this.#version = answer.result.protocolVersion;
    }
    const errorType = errorTypeOf(traced.method, answer);
    this.#end(traced, errorType, "error" in answer ? errorType : undefined);
  }

  cancelled(id: JsonRpcId): void {
    const traced = this.#take(id);
    if (traced !== undefined) this.#end(traced, CANCELLED, undefined);
  }

  forward(
    message: Parameters<GateTelemetry["forward"]>[0],
  ): Parameters<GateTelemetry["forward"]>[0] {
    const traced = this.#requests.get(message.id);
    if (traced === undefined) return message;
    const target = targetOf({ method: message.method, params: message.params });
    const attributes: Attributes = {
      [ATTR.METHOD]: message.method,
      [ATTR.REQUEST_ID]: String(message.id),
    };
    if (target.key !== undefined && target.name !== undefined) {
      attributes[target.key] = target.name;
    }
    const span = this.#instruments.tracer.startSpan(
      target.name === undefined
        ? message.method
        : `${message.method} ${target.name}`,
      { kind: SpanKind.CLIENT, attributes },
      traced.span.context,
    );
    traced.forward = span;
    const given = message.params ?? {};
    const params = withTraceContext(
      given,
      trace.setSpan(traced.span.context, span),
    );
    return params === given ? message : { ...message, params };
  }

  forwardAnswered(id: JsonRpcId, answer: Answer): void {
    const traced = this.#requests.get(id);
    if (traced?.forward === undefined) return;
    endSpan(traced.forward, errorTypeOf(traced.method, answer));
    traced.forward = undefined;
  }

  own(
    request: Parameters<GateTelemetry["own"]>[0],
  ): OwnRequestTrace {
    const { to, id, method, params } = request;
    const active = context.active();
    const traced = active.getValue(TRACED) as Traced | undefined;
    const probe = to === "server" && method === "tools/call";
    const approval = to === "host" && method === "elicitation/create";
    const attributes: Attributes = {
      [ATTR.METHOD]: method,
      [ATTR.REQUEST_ID]: id,
    };
    if (probe) {
      if (typeof params.name === "string") {
        attributes[ATTR.TOOL_NAME] = params.name;
      }
      attributes[ATTR.PROBE] = true;
    }
    const span = this.#instruments.tracer.startSpan(
      probe ? SPAN_NAME.PROBE : approval ? SPAN_NAME.APPROVAL : method,
      { kind: SpanKind.CLIENT, attributes },
      active,
    );
    traced?.children.add(span);
    // Ended with its request when that ended first (a cancelled call).
    const open = () => traced === undefined || traced.children.delete(span);
    return {
      // The host is not told the gate's trace; the server carries it on.
      params: to === "server"
        ? withTraceContext(params, trace.setSpan(active, span))
        : params,
      until: (answer) => {
        answer.then((message) => {
          if (!open()) return;
          const action = "result" in message ? message.result.action : null;
          if (approval && typeof action === "string") {
            span.setAttribute(GATE_ATTR.ACTION, action);
          }
          endSpan(span, errorTypeOf(probe ? "tools/call" : method, message));
        }, () => {
          if (open()) endSpan(span, CANCELLED);
        });
      },
    };
  }

  decided(decision: CallDecision): void {
    const traced = context.active().getValue(TRACED) as Traced | undefined;
    if (traced === undefined || traced.ended) return;
    traced.decision = decision.decision;
    const attributes: Attributes = {
      [GATE_ATTR.DECISION]: decision.decision,
      [GATE_ATTR.OUTCOME]: decision.outcome,
    };
    if (decision.rule !== null) attributes[GATE_ATTR.RULE] = decision.rule;
    if (decision.server !== undefined) {
      attributes[GATE_ATTR.SERVER] = decision.server;
    }
    if (decision.patterns.length > 0) {
      attributes[GATE_ATTR.PATTERNS] = [...decision.patterns];
    }
    traced.span.span.setAttributes(attributes);
  }

  #take(id: JsonRpcId): Traced | undefined {
    const traced = this.#requests.get(id);
    this.#requests.delete(id);
    return traced;
  }

  #end(
    traced: Traced,
    errorType: string | undefined,
    code: string | undefined,
  ): void {
    traced.ended = true;
    // What it still waited on ends with it.
    if (traced.forward !== undefined) {
      endSpan(traced.forward, errorType ?? CANCELLED);
    }
    for (const child of traced.children) endSpan(child, CANCELLED);
    traced.children.clear();
    traced.span.end({
      errorType,
      code,
      protocolVersion: traced.version ?? this.#version,
      measured: traced.decision === undefined
        ? undefined
        : { [GATE_ATTR.DECISION]: traced.decision },
    });
  }
}

/** `error.type` of an answer: its JSON-RPC error code, or `tool_error` for a call's `isError` result. */
function errorTypeOf(
  method: string,
  answer: JsonRpcMessage,
): string | undefined {
  if ("error" in answer) return String(answer.error.code);
  if (
    method === "tools/call" && "result" in answer &&
    answer.result.isError === true
  ) {
    return TOOL_ERROR;
  }
  return undefined;
}

function endSpan(span: Span, errorType: string | undefined): void {
  if (errorType !== undefined) {
    span.setAttribute(ATTR.ERROR_TYPE, errorType);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** `params` with the trace context of `of` in its `_meta` (`traceparent`, `tracestate`). */
function withTraceContext(
  params: Record<string, unknown>,
  of: Context,
): Record<string, unknown> {
  const carrier: Record<string, string> = {};
  propagation.inject(of, carrier);
  // Without a propagator, the request goes as it came.
  if (Object.keys(carrier).length === 0) return params;
  const meta = isRecord(params._meta) ? params._meta : {};
  return { ...params, _meta: { ...meta, ...carrier } };
}
