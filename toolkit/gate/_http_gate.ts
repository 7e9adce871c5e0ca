// Internal: the gate as an HTTP service (`--http`, `listen:`). The
// toolkit's Streamable HTTP stack (host guard, body limit, session table)
// serves /mcp; behind it each 2025-11-25 session gets a gate of its own,
// with its own server (spawned, or a remote session of its own) and its
// own approvals, remembered approvals and flows, which never cross
// sessions. 2026-07-28 requests carry everything in themselves: they
// share one gate, made at the first of them, through a mux that keeps
// their ids apart; that gate remembers no approval, since its callers are
// many. The policy source, the pins and the audit log are opened once and
// shared by every gate.

import type { AuthInfo, McpTransport, SessionHost } from "../jsonrpc/types.ts";
import type { MessageTransport } from "../jsonrpc/_message_channel.ts";
import { serveHttp } from "../http/serve.ts";
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
  /** Whether the gate serves many callers (2026-07-28 requests). */
  shared: boolean;
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
  /** The most sessions open at once. */
  maxSessions?: number;
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
  const http = serveHttp(host, {
    hostname: options.listen.hostname,
    port: options.listen.port,
    handleSignals: false,
    maxSessions: options.maxSessions ?? GATE_MAX_SESSIONS,
    // Resumable streams, as the toolkit's servers offer them: a caller
    // that lost a stream gets what it missed.
    eventHistory: EVENT_HISTORY,
    retryMs: RETRY_MS,
    onListen: (url) => options.log(`listening on ${url}`),
    pages: options.pages,
  });
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

/** The HTTP layer's session host: a gate per session, one for stateless callers. */
class GateHost implements SessionHost {
  #options: HttpGateOptions;
  #sessions = new Set<OneGate>();
  #starting = new Set<Promise<unknown>>();
  #stateless: Promise<{ gate: OneGate; mux: StatelessMux }> | undefined;
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
      const { mux } = await this.#sharedGate();
      await mux.attach(transport);
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
      gate = await this.#options.open(host, { auth, shared: false });
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

  /** The gate of 2026-07-28 callers, made at the first of them and again after it ended. */
  #sharedGate(): Promise<{ gate: OneGate; mux: StatelessMux }> {
    if (this.#stateless !== undefined) return this.#stateless;
    const mux = new StatelessMux();
    const started = this.#options.open(mux.host, {
      auth: undefined,
      shared: true,
    }).then((gate) => {
      gate.finished.then(() => {
        if (this.#stateless === started) this.#stateless = undefined;
        mux.close().catch(() => {});
      });
      return { gate, mux };
    });
    this.#stateless = started;
    // A gate that could not start is tried again by the next request.
    started.catch((error) => {
      if (this.#stateless === started) this.#stateless = undefined;
      this.#options.log(
        `cannot start the gate of 2026-07-28 callers: ${messageOf(error)}`,
      );
    });
    return started;
  }

  /** Closes every session's gate and the shared one, with their servers. */
  close(): Promise<void> {
    return this.#closing ??= (async () => {
      await Promise.allSettled([...this.#starting]);
      const shared = this.#stateless;
      await Promise.all([
        ...[...this.#sessions].map((gate) => gate.close()),
        shared?.then(async ({ gate, mux }) => {
          await mux.close();
          await gate.close();
        }, () => {}),
      ]);
    })();
  }
}
