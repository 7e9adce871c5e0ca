// Internal: what the relay and the gatekeeper tell the gate's telemetry,
// when it is on. Types only: the implementation (_otel.ts) loads
// @opentelemetry/api, and gate.ts imports it only when telemetry is on.

import type { JsonRpcId, JsonRpcMessage } from "../jsonrpc/mod.ts";

/** A request from the host (as _relay.ts's `HostRequest`). */
type Request = Extract<JsonRpcMessage, { method: string; id: JsonRpcId }>;

/** An answer to one of the host's requests. */
export type Answer = Exclude<JsonRpcMessage, { method: string }>;

/** What the gate decided about a call, as its audit line says it. */
export interface CallDecision {
  /** `allow`, `deny`, `ask`, or `error` when the call could not be decided. */
  decision: string;
  /** The rule that decided; `null` when none did. */
  rule: string | null;
  /** The call's canonical permission patterns. */
  patterns: readonly string[];
  /** What became of the call: `forwarded`, `denied`, `approved`, … */
  outcome: string;
  /** The server the call was for, in a gate of many servers. */
  server?: string;
}

/** A request of the gate's own, being traced. */
export interface OwnRequestTrace {
  /** The params to send: for the server, with the trace context in `_meta`. */
  readonly params: Record<string, unknown>;
  /** Ends the request's span once `answer` settles. */
  until(answer: Promise<JsonRpcMessage>): void;
}

/** The gate's observer: a span per host request, and its parts. */
export interface GateTelemetry {
  /** A host request arrived: its span starts, and `handle` runs inside it. */
  request(message: Request, handle: () => void): void;
  /** The host's request `answer.id` is answered: its span ends. */
  answered(answer: Answer): void;
  /** The host cancelled its request `id`: its span ends. */
  cancelled(id: JsonRpcId): void;
  /** The host's request goes on to the server: the message to send, with trace context. */
  forward(message: Request): Request;
  /** The server answered the forwarded request of the host's `id`. */
  forwardAnswered(id: JsonRpcId, answer: Answer): void;
  /** The gate sends a request of its own, for the host request whose handling is running. */
  own(request: {
    to: "server" | "host";
    id: string;
    method: string;
    params: Record<string, unknown>;
  }): OwnRequestTrace;
  /** The call whose handling is running was decided. */
  decided(decision: CallDecision): void;
}
