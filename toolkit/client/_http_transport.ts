// Internal: the client's end of a Streamable HTTP session (2025-11-25) as a
// transport of parsed messages: each message POSTed, its answer read from
// a JSON body or an SSE stream (read on, so that a long call does not hold
// the send), the Mcp-Session-Id and MCP-Protocol-Version headers once the
// server has given them, and the session's GET stream for the server's own
// notifications (list_changed), opened again when it ends. A request whose
// POST fails, or whose stream ends unanswered, is answered here with a
// JSON-RPC error, so nothing waits forever; a session the server no longer
// knows (404) ends the transport. Redirects are not followed, so the
// headers (a token) never go to another URL. Streams are not resumed.

import type { JsonRpcId, JsonRpcMessage } from "../jsonrpc/types.ts";
import type { MessageTransport } from "../jsonrpc/_message_channel.ts";
import { isRecord } from "../_util/json_type.ts";
import { messageOf } from "../_util/errors.ts";

/** The error of a request the server did not answer. */
const UNANSWERED = -32000;
/** The most bytes of one SSE event, or of one JSON body. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** The wait before the GET stream is opened again, unless the server set one. */
const RECONNECT_MS = 1000;
/** Openings of the GET stream in a row that bring nothing before it is left closed. */
const RECONNECT_ATTEMPTS = 5;

const SESSION_HEADER = "mcp-session-id";

/** One end of a Streamable HTTP session, for {@linkcode ClientConnection}. */
export class HttpClientTransport implements MessageTransport {
  onmessage?: (message: JsonRpcMessage, related?: JsonRpcId) => void;
  onerror?: (error: Error) => void;
  onend?: () => void;

  #url: URL;
  #headers: Record<string, string>;
  #session: string | undefined;
  #version: string | undefined;
  #initializeId: JsonRpcId | undefined;
  /** The fetches of requests whose answers are awaited, by request id. */
  #requests = new Map<JsonRpcId, AbortController>();
  #all = new Set<AbortController>();
  #closed = false;

  constructor(url: URL, headers: Record<string, string>) {
    this.#url = url;
    this.#headers = headers;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  async send(message: JsonRpcMessage): Promise<void> {
    if (this.#closed) throw new Error("The connection is closed");
    const request = "method" in message && "id" in message
      ? message.id
      : undefined;
    if ("method" in message && message.method === "initialize") {
      this.#initializeId = request;
    }
    if (
      "method" in message && message.method === "notifications/cancelled"
    ) {
      // The cancelled request's stream is not read any further.
      const id = message.params?.requestId as JsonRpcId;
      this.#requests.get(id)?.abort();
    }
    const abort = this.#track(request);
    let response: Response;
    try {
      response = await fetch(this.#url, {
        method: "POST",
        headers: this.#requestHeaders({
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        }),
        body: JSON.stringify(message),
        redirect: "manual",
        signal: abort.signal,
      });
    } catch (error) {
      this.#untrack(request, abort);
      if (abort.signal.aborted) return;
      if (request === undefined) throw error;
      this.#unanswered(request, `cannot reach it: ${messageOf(error)}`);
      return;
    }
    const session = response.headers.get(SESSION_HEADER);
    if (request !== undefined && request === this.#initializeId && session) {
      this.#session = session;
    }
    if (!response.ok) {
      this.#untrack(request, abort);
      const text = await response.text().catch(() => "");
      if (response.status === 404 && this.#session !== undefined) {
        // The server no longer knows the session: this connection is over.
        this.#end();
        return;
      }
      const why = `it answered HTTP ${response.status}${
        text === "" ? "" : `: ${text.slice(0, 200)}`
      }`;
      if (request !== undefined) this.#unanswered(request, why);
      else this.onerror?.(new Error(why));
      return;
    }
    if ("method" in message && message.method === "notifications/initialized") {
      this.#listen();
    }
    // Read on: a request's stream may last as long as its call.
    this.#read(response, request, abort).finally(() =>
      this.#untrack(request, abort)
    );
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const abort of this.#all) abort.abort();
    if (this.#session === undefined) return;
    // Ends the session on the server; one that does not allow it keeps it until it expires.
    await fetch(this.#url, {
      method: "DELETE",
      headers: this.#requestHeaders({}),
      redirect: "manual",
      signal: AbortSignal.timeout(RECONNECT_MS),
    }).then((r) => r.body?.cancel()).catch(() => {});
  }

  #requestHeaders(extra: Record<string, string>): Headers {
    const headers = new Headers(this.#headers);
    for (const [name, value] of Object.entries(extra)) headers.set(name, value);
    if (this.#session !== undefined) headers.set(SESSION_HEADER, this.#session);
    if (this.#version !== undefined) {
      headers.set("mcp-protocol-version", this.#version);
    }
    return headers;
  }

  #track(request: JsonRpcId | undefined): AbortController {
    const abort = new AbortController();
    this.#all.add(abort);
    if (request !== undefined) this.#requests.set(request, abort);
    return abort;
  }

  #untrack(request: JsonRpcId | undefined, abort: AbortController): void {
    this.#all.delete(abort);
    if (request !== undefined && this.#requests.get(request) === abort) {
      this.#requests.delete(request);
    }
  }

  /** Reads a response's messages; `true` when it held any. */
  async #read(
    response: Response,
    request: JsonRpcId | undefined,
    abort: AbortController,
  ): Promise<boolean> {
    const type = response.headers.get("content-type") ?? "";
    let answered = request === undefined;
    let any = false;
    const deliver = (parsed: unknown) => {
      for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
        if (!isRecord(message)) continue;
        any = true;
        if (!("method" in message) && message.id === request) answered = true;
        if (
          message.id === this.#initializeId && isRecord(message.result) &&
          typeof message.result.protocolVersion === "string"
        ) this.#version = message.result.protocolVersion;
        // What came on a request's stream is about that request.
        this.onmessage?.(message as JsonRpcMessage, request);
      }
    };
    try {
      if (type.includes("text/event-stream") && response.body !== null) {
        for await (const data of sseData(response.body)) {
          deliver(JSON.parse(data));
        }
      } else if (type.includes("application/json")) {
        const text = await response.text();
        if (text.length > MAX_MESSAGE_BYTES) {
          throw new Error(`a body over ${MAX_MESSAGE_BYTES} bytes`);
        }
        deliver(JSON.parse(text));
      } else {
        await response.body?.cancel();
      }
    } catch (error) {
      if (abort.signal.aborted) return any;
      if (request !== undefined && !answered) {
        this.#unanswered(request, `its answer broke off: ${messageOf(error)}`);
        return any;
      }
      this.onerror?.(
        new Error(`A stream from the server broke off: ${messageOf(error)}`),
      );
      return any;
    }
    if (request !== undefined && !answered && !abort.signal.aborted) {
      this.#unanswered(request, "it ended the stream before it answered");
    }
    return any;
  }

  /** The session's GET stream: opened after initialized, again when it ends. */
  async #listen(): Promise<void> {
    let idle = 0;
    while (!this.#closed && idle < RECONNECT_ATTEMPTS) {
      const abort = this.#track(undefined);
      try {
        const response = await fetch(this.#url, {
          method: "GET",
          headers: this.#requestHeaders({ accept: "text/event-stream" }),
          redirect: "manual",
          signal: abort.signal,
        });
        // 405: the server offers no GET stream.
        if (response.status === 405) {
          await response.body?.cancel();
          return;
        }
        if (response.status === 404 && this.#session !== undefined) {
          await response.body?.cancel();
          this.#end();
          return;
        }
        if (!response.ok) {
          await response.body?.cancel();
          idle++;
        } else {
          idle = (await this.#read(response, undefined, abort)) ? 0 : idle + 1;
        }
      } catch {
        idle++;
      } finally {
        this.#untrack(undefined, abort);
      }
      if (this.#closed) return;
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
    }
  }

  #unanswered(id: JsonRpcId, why: string): void {
    this.onmessage?.({
      jsonrpc: "2.0",
      id,
      error: { code: UNANSWERED, message: `The server did not answer: ${why}` },
    });
  }

  #end(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const abort of this.#all) abort.abort();
    this.onend?.();
  }
}

/**
 * The data of each event of an SSE body, each bounded. An event whose data
 * is empty is skipped, as a browser skips it: a server that resumes
 * streams opens each with one (an id and `data:` alone, to resume from).
 */
async function* sseData(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<string> {
  let buffer = "";
  let data: string[] = [];
  let size = 0;
  for await (const chunk of body.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.search(/\r\n|\r|\n/)) !== -1) {
      // A CR at the end may be the first half of a CRLF still to come.
      if (newline === buffer.length - 1 && buffer[newline] === "\r") break;
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(
        newline + (buffer.startsWith("\r\n", newline) ? 2 : 1),
      );
      if (line === "") {
        const joined = data.join("\n");
        if (joined !== "") yield joined;
        data = [];
        size = 0;
        continue;
      }
      if (line.startsWith("data:")) {
        const value = line.slice(line.startsWith("data: ") ? 6 : 5);
        size += value.length;
        if (size > MAX_MESSAGE_BYTES) {
          throw new Error(`an event over ${MAX_MESSAGE_BYTES} bytes`);
        }
        data.push(value);
      }
    }
    if (buffer.length > MAX_MESSAGE_BYTES) {
      throw new Error(`a line over ${MAX_MESSAGE_BYTES} bytes`);
    }
  }
  const joined = data.join("\n");
  if (joined !== "") yield joined;
}
