// Request layers (`server.use({ request })`): middleware around every
// request a session receives. Kept apart from the session, which only asks
// for them when a server has any: a server without them pays one length
// check per request.

import type { JsonRpcId } from "../jsonrpc/types.ts";
import { isRecord } from "../_util/json_type.ts";
import { META } from "./_era.ts";
import type { IncomingRequest, RequestLayer } from "./layer.ts";

/** What a request's view needs of its session. */
export interface RequestSide {
  readonly sessionId: string | undefined;
  /** The revision `initialize` negotiated, if it has been. */
  readonly protocolVersion: string | undefined;
}

/** One request as the layers see it. */
class Incoming implements IncomingRequest {
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>> | undefined;
  readonly id: JsonRpcId;
  readonly #session: RequestSide;

  constructor(
    session: RequestSide,
    id: JsonRpcId,
    method: string,
    params: unknown,
  ) {
    this.#session = session;
    this.id = id;
    this.method = method;
    this.params = isRecord(params) ? params : undefined;
  }

  get sessionId(): string | undefined {
    return this.#session.sessionId;
  }

  get protocolVersion(): string | undefined {
    const meta = this.params?._meta;
    const own = isRecord(meta) ? meta[META.PROTOCOL_VERSION] : undefined;
    return typeof own === "string" ? own : this.#session.protocolVersion;
  }
}

/** Runs `serve` inside `layers`, the first added outermost. */
export function runLayered(
  layers: readonly RequestLayer[],
  session: RequestSide,
  request: { id: JsonRpcId; method: string; params: unknown },
  serve: () => unknown,
): unknown {
  const incoming = new Incoming(
    session,
    request.id,
    request.method,
    request.params,
  );
  let run = serve;
  for (let i = layers.length - 1; i >= 0; i--) {
    const layer = layers[i];
    const inner = run;
    run = () => layer(incoming, inner);
  }
  return run();
}
