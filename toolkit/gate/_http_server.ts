// Internal: a remote MCP server over Streamable HTTP, seen by the gate as
// a server process: its "stdin" takes the JSON-RPC lines the relay writes
// and POSTs each message (Accept: application/json, text/event-stream),
// and its "stdout" yields every message the server sends back, whether as
// a JSON body or as the events of an SSE stream. A 2025 session is kept
// by its Mcp-Session-Id (and MCP-Protocol-Version once initialized); once
// the host has sent notifications/initialized, a GET stream carries the
// server's own messages; closing DELETEs the session. A 2026-07-28 host
// needs none of that: each POST stands alone, and the revision in a
// request's _meta is sent as its MCP-Protocol-Version.

import type { ServerProcess } from "./_server_process.ts";
import { messageOf } from "./_log.ts";
import { isRecord } from "../_util/json_type.ts";

const ACCEPT = "application/json, text/event-stream";
const SESSION = "mcp-session-id";
const PROTOCOL = "mcp-protocol-version";
const ERA_KEY = "io.modelcontextprotocol/protocolVersion";
/** A JSON-RPC error for a request the server never answered. */
const UNANSWERED = -32000;

/** Options for {@linkcode connectHttpServer}. */
export interface HttpServerOptions {
  /** Headers sent with every request (`Authorization: Bearer …`). */
  headers?: readonly (readonly [string, string])[];
  /** The gate's own lines. */
  log: (line: string) => void;
}

type Message = Record<string, unknown>;

/** A server at `url`, spoken to over Streamable HTTP. */
export function connectHttpServer(
  url: string,
  options: HttpServerOptions,
): ServerProcess {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const stop = new AbortController();
  let output!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  let sessionId: string | undefined;
  let protocolVersion: string | undefined;
  let listening = false;
  const inFlight = new Set<Promise<void>>();
  let exit!: (status: Deno.CommandStatus) => void;
  const status = new Promise<Deno.CommandStatus>((resolve) => exit = resolve);

  const emit = (message: unknown) => {
    if (closed) return;
    output.enqueue(encoder.encode(JSON.stringify(message) + "\n"));
  };
  const failRequest = (message: Message, why: string) => {
    if ("method" in message && "id" in message) {
      emit({
        jsonrpc: "2.0",
        id: message.id,
        error: { code: UNANSWERED, message: why },
      });
    } else {
      options.log(`the server did not take a message: ${why}`);
    }
  };
  const headersFor = (message?: Message): Headers => {
    const headers = new Headers(options.headers?.map(([k, v]) => [k, v]));
    headers.set("accept", message === undefined ? "text/event-stream" : ACCEPT);
    if (message !== undefined) headers.set("content-type", "application/json");
    if (sessionId !== undefined) headers.set(SESSION, sessionId);
    const params = isRecord(message?.params) ? message.params : undefined;
    const era = isRecord(params?._meta) ? params._meta[ERA_KEY] : undefined;
    const version = typeof era === "string" ? era : protocolVersion;
    if (version !== undefined) headers.set(PROTOCOL, version);
    if (typeof era === "string" && typeof message?.method === "string") {
      // SEP-2243: a request standing alone names its method and target in
      // headers, which the server checks against the body.
      headers.set("mcp-method", message.method);
      const target = routingValue(message.method, params);
      if (target !== undefined) headers.set("mcp-name", headerValue(target));
    }
    return headers;
  };

  /** POSTs one message and passes on what comes back. */
  const post = async (message: Message): Promise<void> => {
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: headersFor(message),
        body: JSON.stringify(message),
        signal: stop.signal,
      });
    } catch (error) {
      if (!stop.signal.aborted) {
        failRequest(message, `Cannot reach the server: ${messageOf(error)}`);
      }
      return;
    }
    const session = response.headers.get(SESSION);
    if (message.method === "initialize" && session !== null) {
      sessionId = session;
    }
    await readAnswer(response, message);
    if (message.method === "notifications/initialized" && !listening) {
      listening = true;
      listen();
    }
  };

  /** Passes on a JSON body or each event of an SSE body. */
  const readAnswer = async (response: Response, sent?: Message) => {
    const type = response.headers.get("content-type") ?? "";
    try {
      if (type.includes("text/event-stream") && response.body !== null) {
        for await (const data of events(response.body, decoder)) {
          pass(JSON.parse(data), sent);
        }
        return;
      }
      const text = await response.text();
      if (type.includes("application/json") && text.trim() !== "") {
        const body = JSON.parse(text);
        if (!response.ok && !isAnswerTo(body, sent)) {
          throw new Error(`HTTP ${response.status}: ${text.slice(0, 200)}`);
        }
        pass(body, sent);
        return;
      }
      if (!response.ok) {
        throw new Error(
          `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ""}`,
        );
      }
    } catch (error) {
      if (stop.signal.aborted) return;
      if (sent !== undefined) {
        failRequest(sent, `The server answered ${messageOf(error)}`);
      } else {
        options.log(`the server's stream failed: ${messageOf(error)}`);
      }
    }
  };

  const pass = (body: unknown, sent?: Message) => {
    for (const message of Array.isArray(body) ? body : [body]) {
      if (!isRecord(message)) continue;
      if (
        sent?.method === "initialize" && isRecord(message.result) &&
        typeof message.result.protocolVersion === "string"
      ) {
        protocolVersion = message.result.protocolVersion;
      }
      emit(message);
    }
  };

  /** The GET stream of a session: the server's own messages. */
  const listen = () => {
    const task = (async () => {
      let response: Response;
      try {
        response = await fetch(url, {
          method: "GET",
          headers: headersFor(),
          signal: stop.signal,
        });
      } catch (error) {
        if (!stop.signal.aborted) {
          options.log(`cannot open the server's stream: ${messageOf(error)}`);
        }
        return;
      }
      // 405: the server offers no stream of its own; that is allowed.
      if (!response.ok) {
        await response.body?.cancel();
        return;
      }
      await readAnswer(response);
    })();
    // Not tracked: it lasts as long as the session.
    task.catch(() => {});
  };

  const track = (task: Promise<void>) => {
    inFlight.add(task);
    task.finally(() => inFlight.delete(task));
  };

  let buffer = "";
  const stdin = new WritableStream<Uint8Array>({
    write(chunk) {
      buffer += decoder.decode(chunk, { stream: true });
      let end;
      while ((end = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        if (line.trim() === "") continue;
        const message = JSON.parse(line) as Message;
        // Each POST on its own: a slow call must not hold the next.
        track(post(message));
      }
    },
  });

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      // What was sent is answered first; then the session ends.
      await Promise.allSettled([...inFlight]);
      if (sessionId !== undefined) {
        await fetch(url, {
          method: "DELETE",
          headers: headersFor(),
          signal: AbortSignal.timeout(1000),
        }).then((r) => r.body?.cancel()).catch(() => {});
      }
      stop.abort();
      closed = true;
      try {
        output.close();
      } catch {
        // Already closed.
      }
      exit({ success: true, code: 0, signal: null });
    })();
    return closing;
  };

  return {
    pid: 0,
    stdout: new ReadableStream({ start: (c) => void (output = c) }),
    stdin,
    closeStdin: close,
    status,
    kill() {
      // No grace left: abort what is under way.
      stop.abort();
      close();
    },
    dispose() {},
  };
}

/** The value SEP-2243's Mcp-Name carries for `method`, if any. */
function routingValue(
  method: string,
  params: Record<string, unknown> | undefined,
): string | undefined {
  const field = method === "resources/read"
    ? "uri"
    : method === "tools/call" || method === "prompts/get"
    ? "name"
    : method.startsWith("tasks/")
    ? "taskId"
    : undefined;
  const value = field === undefined ? undefined : params?.[field];
  return typeof value === "string" ? value : undefined;
}

/** A header value: literal when it is plain ASCII, else `=?base64?…?=` of its UTF-8. */
function headerValue(value: string): string {
  if (
    /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value) &&
    !value.startsWith("=?")
  ) {
    return value;
  }
  let binary = "";
  for (const byte of new TextEncoder().encode(value)) {
    binary += String.fromCharCode(byte);
  }
  return `=?base64?${btoa(binary)}?=`;
}

/** Whether `body` is a JSON-RPC answer to `sent`. */
function isAnswerTo(body: unknown, sent: Message | undefined): boolean {
  return isRecord(body) && sent !== undefined && body.id === sent.id &&
    ("result" in body || "error" in body);
}

/** The data of each event of an SSE stream. */
async function* events(
  body: ReadableStream<Uint8Array>,
  decoder: TextDecoder,
): AsyncGenerator<string> {
  let buffer = "";
  let data: string[] = [];
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffer.search(/\r\n|\r|\n/)) !== -1) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer.startsWith("\r\n", end) ? 2 : 1));
      if (line === "") {
        // An event without data (a resumption point) carries no message.
        if (data.join("") !== "") yield data.join("\n");
        data = [];
      } else if (line.startsWith("data:")) {
        data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
      }
    }
  }
  if (data.join("") !== "") yield data.join("\n");
}
