// Internal: the gate's side of a conversation with a remote Streamable HTTP
// server: each message POSTed and what comes back passed on, a 2025 session
// kept by its Mcp-Session-Id, and the session's GET stream. What breaks is
// mended where the protocol allows: an SSE stream that ends before its
// answer is resumed with Last-Event-ID (or the request fails with -32000,
// never hangs); the GET stream is opened again after the server's `retry`;
// a session the server no longer knows (404) is replaced by a new one,
// initialized with the host's own initialize, and the request is sent again
// once. What the server sends is bounded (see _bounded_body.ts); redirects
// are never followed (the --header values must not go to another URL);
// `abort()` and a host's notifications/cancelled end the fetches and
// streams they concern at once.

import { messageOf } from "../_log.ts";
import { readEvents } from "./_sse.ts";
import { readBounded, TooLargeError } from "./_bounded_body.ts";
import {
  type Mirrored,
  mirroredOf,
  requestHeaders,
  SESSION_HEADER,
} from "./_http_headers.ts";
import { isRecord } from "../../_util/json_type.ts";

/** A JSON-RPC error for a request the server never answered. */
const UNANSWERED = -32000;
/** Resumptions of a stream that bring no new event before its request fails. */
const RESUME_ATTEMPTS = 3;
/** The wait before the GET stream is opened again, unless the server set one. */
const RECONNECT_MS = 1000;
/** Openings of the GET stream in a row that bring nothing before the gate stops. */
const RECONNECT_ATTEMPTS = 5;

/** A JSON-RPC message, as parsed. */
export type Message = Record<string, unknown>;

/** What reading one response found. */
interface Reading {
  /** Whether the request sent was answered (or failed). */
  answered: boolean;
  /** Whether the body was an SSE stream. */
  stream: boolean;
  /** The stream's last event id, to resume it from. */
  lastId: string | undefined;
  /** The reconnection time the stream asked for. */
  retryMs: number | undefined;
  /** How many events the stream brought. */
  events: number;
  /** Why the request sent failed, when it did. */
  failed: string | undefined;
  /** Whether the body (or one of its events) was over the bound. */
  tooLarge: boolean;
}

/** How one response is read. */
interface ReadOptions {
  /** The request the response is for, if any. */
  sent?: Message;
  /** Where messages go: to the host unless told. */
  sink?: (message: Message) => void;
  /** Aborted when reading should stop without failing `sent`. */
  signal: AbortSignal;
}

/** Options for a {@linkcode RemoteSession}. */
export interface RemoteSessionOptions {
  /** Headers sent with every request (`Authorization: Bearer …`). */
  headers?: readonly (readonly [string, string])[];
  /** The gate's own lines. */
  log: (line: string) => void;
  /** Passes a message from the server on to the host. */
  emit: (message: Message) => void;
}

/** The gate's conversation with the server at one URL. */
export class RemoteSession {
  #url: string;
  #options: RemoteSessionOptions;
  #stop = new AbortController();
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  #listening = false;
  /** The host's initialize and initialized, sent again for a new session. */
  #initialize: Message | undefined;
  #initialized: Message | undefined;
  #renewing: Promise<boolean> | undefined;
  /** The requests under way, by id: a host's cancellation aborts one. */
  #calls = new Map<unknown, AbortController>();
  /** Every request's controller, aborted with the session's own. */
  #live = new Set<AbortController>();

  /** The ids of the tools/list requests under way. */
  #listing = new Set<unknown>();
  /** SEP-2243: each tool's arguments mirrored in headers, by tool name. */
  #mirrored = new Map<string, Mirrored>();
  readonly #emit: (message: Message) => void;

  constructor(url: string, options: RemoteSessionOptions) {
    this.#url = url;
    this.#options = options;
    this.#emit = (message) => {
      if (this.#listing.delete(message.id)) this.#learn(message);
      options.emit(message);
    };
  }

  /** Reads the `x-mcp-header` marks of a tools/list answer's tools. */
  #learn(answer: Message): void {
    const tools = isRecord(answer.result) ? answer.result.tools : undefined;
    if (!Array.isArray(tools)) return;
    for (const tool of tools) {
      if (!isRecord(tool) || typeof tool.name !== "string") continue;
      const marks = mirroredOf(tool.inputSchema);
      if (marks.size > 0) this.#mirrored.set(tool.name, marks);
      else this.#mirrored.delete(tool.name);
    }
  }

  /** POSTs one message and passes on what comes back. */
  async post(message: Message): Promise<void> {
    if (
      message.method === "notifications/cancelled" && isRecord(message.params)
    ) {
      // Nothing more of that call is wanted: its stream is closed at once
      // (the server learns of it from the notification, not the closing).
      this.#calls.get(message.params.requestId)?.abort();
    }
    if (!isRequest(message)) {
      await this.#post(message, this.#stop.signal);
      return;
    }
    // Its own controller, which stopping the session aborts too (see
    // #stopAll): AbortSignal.any() on every call cost more than the rest
    // of its request's set-up.
    const call = new AbortController();
    if (this.#stop.signal.aborted) call.abort();
    this.#live.add(call);
    this.#calls.set(message.id, call);
    if (message.method === "tools/list") this.#listing.add(message.id);
    try {
      await this.#post(message, call.signal);
    } finally {
      this.#live.delete(call);
      if (this.#calls.get(message.id) === call) this.#calls.delete(message.id);
      this.#listing.delete(message.id);
    }
  }

  /** POSTs `message`; `again` when it is sent again on a new session. */
  async #post(
    message: Message,
    signal: AbortSignal,
    again = false,
  ): Promise<void> {
    // Sent on the session being started, not on the one that is gone.
    if (this.#renewing !== undefined) await this.#renewing;
    const sentSession = this.#sessionId;
    let response: Response;
    try {
      response = await this.#fetch(message, { signal });
    } catch (error) {
      if (!signal.aborted) {
        this.#fail(message, `Cannot reach the server: ${messageOf(error)}`);
      }
      return;
    }
    if (
      response.status === 404 && sentSession !== undefined && !again &&
      message.method !== "initialize"
    ) {
      await response.body?.cancel();
      if (await this.#renew(sentSession)) {
        return await this.#post(message, signal, true);
      }
      this.#fail(
        message,
        "The server no longer knows the session, and a new one could not be started",
      );
      return;
    }
    if (message.method === "initialize") {
      this.#sessionId = response.headers.get(SESSION_HEADER) ?? undefined;
      this.#initialize = message;
    }
    const reading = await this.#read(response, { sent: message, signal });
    if (!reading.answered && isRequest(message) && !signal.aborted) {
      if (reading.stream) await this.#resume(message, reading, signal);
      else {
        this.#fail(
          message,
          `The server answered HTTP ${response.status} with no answer to the request`,
        );
      }
    }
    if (message.method === "notifications/initialized") {
      this.#initialized = message;
      if (!this.#listening) this.#listen();
    }
  }

  /** Ends the session (DELETE) and stops every stream. */
  async close(): Promise<void> {
    if (this.#sessionId !== undefined) {
      await fetch(this.#url, {
        method: "DELETE",
        headers: this.#headers(),
        redirect: "manual",
        signal: AbortSignal.timeout(1000),
      }).then((r) => r.body?.cancel()).catch(() => {});
    }
    this.#stopAll();
  }

  /** Stops every request and stream at once. */
  abort(): void {
    this.#stopAll();
  }

  /** Aborts the session's own signal and every request's. */
  #stopAll(): void {
    this.#stop.abort();
    for (const call of this.#live) call.abort();
  }

  #headers(message?: Message): Record<string, string> {
    return requestHeaders({
      base: this.#options.headers,
      sessionId: this.#sessionId,
      protocolVersion: this.#protocolVersion,
      mirrored: (tool) => this.#mirrored.get(tool),
    }, message);
  }

  /**
   * POSTs `message`, or without one GETs a stream, resumed after `lastId`.
   * A redirect is refused, never followed: it could take the `--header`
   * values (a bearer token) to another origin, and the MCP endpoint is one
   * URL, which `--url` names.
   */
  async #fetch(
    message: Message | undefined,
    options: { lastId?: string; signal?: AbortSignal } = {},
  ): Promise<Response> {
    const headers = this.#headers(message);
    if (options.lastId !== undefined) {
      headers["last-event-id"] = options.lastId;
    }
    const response = await fetch(this.#url, {
      method: message === undefined ? "GET" : "POST",
      headers,
      body: message === undefined ? undefined : JSON.stringify(message),
      redirect: "manual",
      signal: options.signal ?? this.#stop.signal,
    });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      const location = response.headers.get("location") ?? "";
      throw new Error(
        `it answered HTTP ${response.status}, a redirect${
          location === "" ? "" : ` to ${location.slice(0, 200)}`
        }, which the gate does not follow: give --url the server's own URL`,
      );
    }
    return response;
  }

  /** Answers `message` with -32000 when it is a request; logs otherwise. */
  #fail(
    message: Message,
    why: string,
    sink: (message: Message) => void = this.#emit,
  ): void {
    if (isRequest(message)) {
      sink({
        jsonrpc: "2.0",
        id: message.id,
        error: { code: UNANSWERED, message: why },
      });
    } else {
      this.#options.log(`the server did not take a message: ${why}`);
    }
  }

  /**
   * A request whose SSE stream ended before its answer: the stream is
   * resumed from its last event id (a GET with Last-Event-ID) until the
   * answer comes, or the request fails with -32000.
   */
  async #resume(
    sent: Message,
    first: Reading,
    signal: AbortSignal,
  ): Promise<void> {
    let { lastId } = first;
    for (let idle = 0; lastId !== undefined && idle < RESUME_ATTEMPTS;) {
      if (signal.aborted) return;
      let response: Response;
      try {
        response = await this.#fetch(undefined, { lastId, signal });
      } catch {
        idle++;
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel();
        break;
      }
      const reading = await this.#read(response, { sent, signal });
      if (reading.answered || signal.aborted) return;
      if (reading.lastId !== undefined && reading.lastId !== lastId) {
        lastId = reading.lastId;
        idle = 0;
      } else {
        idle++;
      }
    }
    if (signal.aborted) return;
    this.#fail(
      sent,
      lastId === undefined
        ? "The server's stream ended before it answered, and it gave no event id to resume from"
        : "The server's stream ended before it answered, and resuming it brought no answer",
    );
  }

  /**
   * Passes on a JSON body or each event of an SSE body, to the host or to
   * `sink`; a failure fails the request `sent` (or is logged for a stream).
   * A body or an event over the bound fails `sent` at once: resuming would
   * replay it.
   */
  async #read(response: Response, options: ReadOptions): Promise<Reading> {
    const { sent, signal, sink = this.#emit } = options;
    const type = response.headers.get("content-type") ?? "";
    const reading: Reading = {
      answered: false,
      stream: false,
      lastId: undefined,
      retryMs: undefined,
      events: 0,
      failed: undefined,
      tooLarge: false,
    };
    const take = (body: unknown) => {
      for (const message of Array.isArray(body) ? body : [body]) {
        if (!isRecord(message)) continue;
        if (isAnswerTo(message, sent)) reading.answered = true;
        if (
          sent?.method === "initialize" && isRecord(message.result) &&
          typeof message.result.protocolVersion === "string"
        ) {
          this.#protocolVersion = message.result.protocolVersion;
        }
        sink(message);
      }
    };
    try {
      if (type.includes("text/event-stream") && response.body !== null) {
        reading.stream = true;
        await readEvents(response.body, (event) => {
          // An event without data, or with empty data (the priming event a
          // 2025-11-25 server opens its stream with), carries no message;
          // its id is still where a resumption starts.
          if (event.data !== undefined && event.data.trim() !== "") {
            let body: unknown;
            try {
              body = JSON.parse(event.data);
            } catch (error) {
              // Cut off mid-event: resumed like any stream that broke.
              if (!event.complete) return false;
              throw error;
            }
            take(body);
          }
          reading.lastId = event.id;
          reading.retryMs = event.retryMs;
          reading.events++;
          return true;
        });
        return reading;
      }
      const text = new TextDecoder().decode(await readBounded(response.body));
      if (type.includes("application/json") && text.trim() !== "") {
        const body = JSON.parse(text);
        if (!response.ok && !isAnswerTo(body, sent)) {
          throw new Error(`HTTP ${response.status}: ${text.slice(0, 200)}`);
        }
        take(body);
        return reading;
      }
      if (!response.ok) {
        throw new Error(
          `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ""}`,
        );
      }
    } catch (error) {
      if (signal.aborted) return reading;
      if (error instanceof TooLargeError) {
        // Cancelled already: nothing more of it is read.
        reading.tooLarge = true;
      } else if (reading.stream) {
        // A stream that broke is resumed by the caller, not failed here.
        this.#options.log(`the server's stream broke: ${messageOf(error)}`);
        return reading;
      }
      reading.answered = true;
      reading.failed = error instanceof TooLargeError
        ? error.message
        : `The server answered ${messageOf(error)}`;
      if (sent !== undefined) {
        this.#fail(sent, reading.failed, sink);
      } else {
        this.#options.log(`the server's stream failed: ${messageOf(error)}`);
      }
    }
    return reading;
  }

  /**
   * Replaces a session the server answered 404 for with a new one: the
   * host's initialize is sent again (its answer kept from the host, which
   * has one already), then its initialized notification, and the GET
   * stream is opened on the new session. Calls that meet the same 404 share
   * one renewal. Resolves `false` when no new session could be started.
   */
  #renew(expired: string): Promise<boolean> {
    if (this.#renewing !== undefined) return this.#renewing;
    // Renewed already by another call that met the 404 first.
    if (this.#sessionId !== expired) {
      return Promise.resolve(this.#sessionId !== undefined);
    }
    this.#renewing = this.#startAgain().finally(() =>
      this.#renewing = undefined
    );
    return this.#renewing;
  }

  async #startAgain(): Promise<boolean> {
    const { log } = this.#options;
    const init = this.#initialize;
    if (init === undefined) return false;
    log(
      "the server no longer knows the session (HTTP 404): starting a new one",
    );
    this.#sessionId = undefined;
    try {
      const response = await this.#fetch(init);
      const session = response.headers.get(SESSION_HEADER);
      const reading = await this.#read(response, {
        sent: init,
        sink: () => {},
        signal: this.#stop.signal,
      });
      if (
        !response.ok || !reading.answered || reading.failed !== undefined ||
        session === null
      ) {
        log(
          `cannot start a new session: the server answered HTTP ${response.status}`,
        );
        return false;
      }
      this.#sessionId = session;
      const initialized = this.#initialized;
      if (initialized !== undefined) {
        const sent = await this.#fetch(initialized);
        await sent.body?.cancel();
        this.#listen();
      }
      return true;
    } catch (error) {
      if (!this.#stop.signal.aborted) {
        log(`cannot start a new session: ${messageOf(error)}`);
      }
      return false;
    }
  }

  /**
   * The GET stream of a session: the server's own messages. It is opened
   * again when it ends, from its last event id, after the server's `retry`
   * (or {@linkcode RECONNECT_MS}); a 405 (no stream offered) ends it, a 404
   * renews the session, which opens a new one.
   */
  #listen(): void {
    this.#listening = true;
    // Not tracked: it lasts as long as the session.
    this.#listenLoop(this.#sessionId).catch(() => {});
  }

  async #listenLoop(session: string | undefined): Promise<void> {
    const signal = this.#stop.signal;
    let lastId: string | undefined;
    let waitMs = RECONNECT_MS;
    let failures = 0;
    while (!signal.aborted && this.#sessionId === session) {
      let response: Response | undefined;
      try {
        response = await this.#fetch(undefined, { lastId });
      } catch (error) {
        if (signal.aborted) return;
        this.#options.log(
          `cannot open the server's stream: ${messageOf(error)}`,
        );
      }
      if (response?.status === 405) {
        await response.body?.cancel();
        return;
      }
      if (response?.status === 404 && session !== undefined) {
        await response.body?.cancel();
        // The renewal opens the stream of the new session.
        this.#listening = false;
        await this.#renew(session);
        return;
      }
      if (response?.ok) {
        const reading = await this.#read(response, { signal });
        if (reading.tooLarge) {
          // Opened again, it would replay the same event.
          this.#options.log("not opening the server's stream again");
          return;
        }
        // A stream that brought anything was working: it ended, not failed.
        if (reading.events > 0) failures = 0;
        lastId = reading.lastId ?? lastId;
        waitMs = reading.retryMs ?? waitMs;
      } else {
        await response?.body?.cancel();
      }
      if (++failures > RECONNECT_ATTEMPTS) {
        this.#options.log(
          `the server's stream ended ${RECONNECT_ATTEMPTS} times in a row: not opening it again`,
        );
        return;
      }
      await pause(waitMs, signal);
    }
  }
}

/** Whether `message` is a request (it expects an answer). */
function isRequest(message: Message): boolean {
  return typeof message.method === "string" && "id" in message;
}

/** Whether `body` is a JSON-RPC answer to `sent`. */
function isAnswerTo(body: unknown, sent: Message | undefined): boolean {
  return isRecord(body) && sent !== undefined && body.id === sent.id &&
    ("result" in body || "error" in body);
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
