// Internal: the gate as an HTTP service (`--http`, `listen:`). The
// toolkit's Streamable HTTP stack (host guard, body limit, session table)
// serves /mcp; behind it each 2025-11-25 session gets a gate of its own,
// with its own server (spawned, or a remote session of its own) and its
// own approvals, remembered approvals and flows, which never cross
// sessions. 2026-07-28 requests carry everything in themselves: they
// share a gate, made at the first of them, through a mux that keeps their
// ids apart; that gate remembers no approval, since its callers are many.
// With `auth:` each caller's requests share a gate of their own (one per
// set of claims, _caller_key.ts), so that no caller's view of the policy
// decides another's call; with Redis too, that gate remembers approvals
// there (_remembered_store.ts). The policy source, the pins and the audit log
// are opened once and shared by every gate.

import type {
  AuthInfo,
  JsonRpcMessage,
  McpTransport,
  SessionHost,
} from "../jsonrpc/types.ts";
import type { MessageTransport } from "../jsonrpc/_message_channel.ts";
import { RPC_ERROR } from "../jsonrpc/errors.ts";
import { serveHttp } from "../http/serve.ts";
import type { HttpLayer } from "../http/layer.ts";
import type { OAuthResourceOptions } from "../http/oauth_resource.ts";
import { withInnerLayer } from "../http/_inner_layer.ts";
import { type CallerClaims, claimsOf } from "./policy/_claims.ts";
import { sharedCaller } from "./_caller_key.ts";
import { messageOf } from "./_log.ts";
import { SessionTransport } from "./_session_transport.ts";
import { StatelessMux } from "./_stateless_mux.ts";
import type { ListenAddress } from "./policy/_listen.ts";

/** The most sessions open at once by default: each has a server of its own. */
export const GATE_MAX_SESSIONS = 100;

/** How many of a session's latest SSE events are kept for a caller that resumes. */
const EVENT_HISTORY = 200;
/** The reconnection delay suggested to callers, in milliseconds. */
const RETRY_MS = 500;

/** A gate in front of one host; what `startGate()` makes. */
export interface OneGate {
  readonly finished: Promise<number>;
  close(): Promise<number>;
}

/** Who a gate is made for. */
export interface Caller {
  /**
   * The verified token of the session's first message (the HTTP layer's
   * OAuth resource server); `undefined` without `auth:`, and for the
   * shared gate.
   */
  auth: AuthInfo | undefined;
  /**
   * The claims the gate decides by: the token's for a session's gate; for
   * a shared gate, those every caller it serves has (_caller_key.ts).
   * `undefined` without a token.
   */
  claims: CallerClaims | undefined;
  /** Whether the gate serves many callers (2026-07-28 requests). */
  shared: boolean;
  /**
   * For a shared gate: the key its callers share (_caller_key.ts; `""`
   * without `auth:`), which their flow history in Redis is kept under.
   */
  key?: string;
}

/** What {@linkcode serveGate} runs with. */
export interface HttpGateOptions {
  /** Where to listen. */
  listen: ListenAddress;
  /** The gate's own lines. */
  log: (line: string) => void;
  /** Starts a gate whose host side is `host`, for `caller`. */
  open(host: MessageTransport, caller: Caller): Promise<OneGate>;
  /** Closes what every gate shares (policy source, pins, audit). */
  closeShared(): Promise<void>;
  /** The most sessions open at once (and, with `oauth`, callers' shared gates). */
  maxSessions?: number;
  /** The OAuth resource server in front (the policy's `auth:`). */
  oauth?: OAuthResourceOptions;
  /** Host names accepted beside the loopback ones (the public resource's). */
  allowedHosts?: readonly string[];
  /** Checks each request past its token and body limit (the scopes of a call). */
  check?: HttpLayer;
  /** Pages served beside /mcp (the approval page). */
  pages?: {
    prefix: string;
    handler: (request: Request) => Promise<Response>;
  };
}

/** A gate serving HTTP: the `Gate` that `startGate()` returns with `listen`. */
export interface HttpGate extends AsyncDisposable {
  readonly pid: number;
  readonly url: URL;
  readonly finished: Promise<number>;
  /** The sessions open now. */
  readonly sessionCount: number;
  close(): Promise<number>;
}

/** Listens on `options.listen` and serves a gate per session. */
export function serveGate(options: HttpGateOptions): HttpGate {
  const host = new GateHost(options);
  const served = {
    hostname: options.listen.hostname,
    port: options.listen.port,
    handleSignals: false,
    maxSessions: options.maxSessions ?? GATE_MAX_SESSIONS,
    // Resumable streams, as the toolkit's servers offer them: a caller
    // that lost a stream gets what it missed.
    eventHistory: EVENT_HISTORY,
    retryMs: RETRY_MS,
    onListen: (url: URL) => options.log(`listening on ${url}`),
    ...(options.pages === undefined ? {} : { pages: options.pages }),
    ...(options.oauth === undefined ? {} : { oauth: options.oauth }),
    ...(options.allowedHosts === undefined
      ? {}
      : { allowedHosts: [...options.allowedHosts] }),
  };
  const http = serveHttp(
    host,
    options.check === undefined
      ? served
      : withInnerLayer(served, options.check),
  );
  let resolveFinished!: (code: number) => void;
  const finished = new Promise<number>((resolve) => resolveFinished = resolve);
  let closing: Promise<number> | undefined;
  const close = () =>
    closing ??= (async () => {
      // New requests get 503; every session's gate closes with its server.
      await http.shutdown();
      await host.close();
      await options.closeShared();
      resolveFinished(0);
      return 0;
    })();
  return {
    pid: 0,
    url: http.url,
    finished,
    get sessionCount() {
      return host.sessionCount;
    },
    close,
    [Symbol.asyncDispose]: async () => {
      await close();
    },
  };
}

/** A gate that 2026-07-28 callers share, and its mux. */
interface Shared {
  gate: OneGate;
  mux: StatelessMux;
}

/** The HTTP layer's session host: a gate per session, one per caller for stateless requests. */
class GateHost implements SessionHost {
  #options: HttpGateOptions;
  #sessions = new Set<OneGate>();
  #starting = new Set<Promise<unknown>>();
  // By caller key (_caller_key.ts), least recently used first; "" for
  // callers without a token (a gate without auth: has only that one).
  #stateless = new Map<string, Promise<Shared>>();
  // Those of them that have started.
  #started = new WeakMap<Promise<Shared>, Shared>();
  #closing: Promise<void> | undefined;

  constructor(options: HttpGateOptions) {
    this.#options = options;
  }

  get sessionCount(): number {
    return this.#sessions.size;
  }

  async connect(transport: McpTransport): Promise<void> {
    if (this.#closing !== undefined) {
      throw new Error("the gate is shutting down");
    }
    if (transport.perRequestMeta === true) {
      if (this.#options.oauth === undefined) {
        const { mux } = await this.#sharedGate("", undefined);
        await mux.attach(transport);
        return;
      }
      // Whose request it is shows with the request: the gate is chosen then.
      transport.onmessage = (message, extra) => {
        transport.onmessage = undefined;
        const auth = extra?.authInfo as AuthInfo | undefined;
        const { key, claims } = sharedCaller(auth);
        this.#sharedGate(key, claims).then(async ({ mux }) => {
          await mux.attach(transport);
          transport.onmessage?.(message, extra);
        }).catch((error) => refuse(transport, message, error));
      };
      await transport.start();
      return;
    }
    const host = new SessionTransport(transport);
    await transport.start();
    const starting = host.firstMessage.then((auth) =>
      this.#startSession(host, auth)
    );
    this.#starting.add(starting);
    starting.finally(() => this.#starting.delete(starting));
  }

  async #startSession(
    host: SessionTransport,
    auth: AuthInfo | undefined,
  ): Promise<void> {
    if (this.#closing !== undefined || host.ended) {
      await host.close();
      return;
    }
    let gate: OneGate;
    try {
      gate = await this.#options.open(host, {
        auth,
        claims: claimsOf(auth),
        shared: false,
      });
    } catch (error) {
      this.#options.log(`cannot start a session's gate: ${messageOf(error)}`);
      await host.fail(`the gate cannot serve the session: ${messageOf(error)}`);
      return;
    }
    this.#sessions.add(gate);
    // A server that died ends its session: the caller starts a new one.
    gate.finished.then(() => {
      this.#sessions.delete(gate);
      this.#options.log(
        `a session ended and its server stopped (${this.#sessions.size} open)`,
      );
      host.close().catch(() => {});
    });
    if (this.#closing !== undefined) await gate.close();
  }

  /**
   * The gate of the 2026-07-28 callers under `key`, made at the first of
   * them and again after it ended. Past the most (maxSessions), the
   * least recently used gate with no request open is closed first.
   */
  #sharedGate(
    key: string,
    claims: CallerClaims | undefined,
  ): Promise<Shared> {
    const found = this.#stateless.get(key);
    if (found !== undefined) {
      // Most recently used last.
      this.#stateless.delete(key);
      this.#stateless.set(key, found);
      return found;
    }
    const most = this.#options.maxSessions ?? GATE_MAX_SESSIONS;
    if (this.#stateless.size >= most && !this.#evictIdle()) {
      return Promise.reject(
        new Error(
          `every one of the ${most} callers' gates is busy: try again later`,
        ),
      );
    }
    const mux = new StatelessMux();
    const started = this.#options.open(mux.host, {
      auth: undefined,
      claims,
      shared: true,
      key,
    }).then((gate) => {
      gate.finished.then(() => {
        if (this.#stateless.get(key) === started) this.#stateless.delete(key);
        mux.close().catch(() => {});
      });
      const shared = { gate, mux };
      this.#started.set(started, shared);
      return shared;
    });
    this.#stateless.set(key, started);
    // A gate that could not start is tried again by the next request.
    started.catch((error) => {
      if (this.#stateless.get(key) === started) this.#stateless.delete(key);
      this.#options.log(
        `cannot start the gate of 2026-07-28 callers: ${messageOf(error)}`,
      );
    });
    return started;
  }

  /** Closes the least recently used started gate with no request open; whether there was one. */
  #evictIdle(): boolean {
    for (const [key, started] of this.#stateless) {
      const shared = this.#started.get(started);
      if (shared === undefined || shared.mux.openCount > 0) continue;
      this.#stateless.delete(key);
      shared.mux.close().then(() => shared.gate.close()).catch(() => {});
      return true;
    }
    return false;
  }

  /** Closes every session's gate and the shared ones, with their servers. */
  close(): Promise<void> {
    return this.#closing ??= (async () => {
      await Promise.allSettled([...this.#starting]);
      const shared = [...this.#stateless.values()];
      await Promise.all([
        ...[...this.#sessions].map((gate) => gate.close()),
        ...shared.map((started) =>
          started.then(async ({ gate, mux }) => {
            await mux.close();
            await gate.close();
          }, () => {})
        ),
      ]);
    })();
  }
}

/** Answers a stateless request whose gate could not start, and ends it. */
function refuse(
  transport: McpTransport,
  message: JsonRpcMessage,
  error: unknown,
): void {
  if (!("id" in message) || !("method" in message)) {
    transport.close().catch(() => {});
    return;
  }
  transport.send({
    jsonrpc: "2.0",
    id: message.id,
    error: {
      code: RPC_ERROR.INTERNAL_ERROR,
      message: `The gate cannot serve the request: ${messageOf(error)}`,
    },
  }).catch(() => {}).finally(() => transport.close().catch(() => {}));
}
