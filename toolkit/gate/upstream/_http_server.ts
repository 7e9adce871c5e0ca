// Internal: a remote MCP server over Streamable HTTP, seen by the gate as a
// server process whose transport carries parsed messages: each message the
// relay sends is POSTed as it is (see _remote_session.ts for the session,
// its streams and what is mended when they break), and every message the
// server sends back, as a JSON body or as the events of an SSE stream,
// reaches the relay as parsed, with no JSON text in between. A 2025
// session is kept by its Mcp-Session-Id (and MCP-Protocol-Version once
// initialized); once the host has sent notifications/initialized, a GET
// stream carries the server's own messages; closing DELETEs the session. A
// 2026-07-28 host needs none of that: each POST stands alone, and the
// revision in a request's _meta is sent as its MCP-Protocol-Version.
// `closeStdin()` lets what was sent finish and then ends the session, as a
// process's EOF would; `kill()` aborts every request and stream at once,
// so that the gate's grace bounds its shutdown even when a stream never
// ends.

import { checkMessage } from "../../jsonrpc/_check.ts";
import type { MessageTransport } from "../../jsonrpc/_message_channel.ts";
import { RPC_ERROR } from "../../jsonrpc/errors.ts";
import type { JsonRpcMessage } from "../../jsonrpc/types.ts";
import type { ServerProcess } from "./_server_process.ts";
import { type Message, RemoteSession } from "./_remote_session.ts";

/** Options for {@linkcode connectHttpServer}. */
export interface HttpServerOptions {
  /** Headers sent with every request (`Authorization: Bearer …`). */
  headers?: readonly (readonly [string, string])[];
  /** The gate's own lines. */
  log: (line: string) => void;
}

/** A server at `url`, spoken to over Streamable HTTP. */
export function connectHttpServer(
  url: string,
  options: HttpServerOptions,
): ServerProcess {
  const transport = new RemoteTransport(url, options);
  let exit!: (status: Deno.CommandStatus) => void;
  const status = new Promise<Deno.CommandStatus>((resolve) => exit = resolve);
  let closing: Promise<void> | undefined;
  // Ends with the status, like a process: the wait for what is under way is
  // the caller's grace, after which it kills.
  const close = (): void => {
    closing ??= transport.end().then(() =>
      exit({ success: true, code: 0, signal: null })
    );
  };
  return {
    pid: 0,
    transport,
    closeStdin() {
      close();
      return Promise.resolve();
    },
    status,
    kill() {
      // No grace left: abort what is under way.
      transport.abort();
      close();
    },
    dispose() {},
  };
}

/**
 * The messages of a {@linkcode RemoteSession}, as a transport: `send()`
 * POSTs (each on its own: a slow call must not hold the next) and resolves
 * once the POST is under way; what the server sends is checked as a stdio
 * transport checks a line, and passed on. Closing this end stops the
 * passing on; the session lasts until {@linkcode RemoteTransport.end}.
 */
class RemoteTransport implements MessageTransport {
  onmessage?: (message: JsonRpcMessage) => void;
  onerror?: (error: Error) => void;
  onend?: () => void;

  #session: RemoteSession;
  #inFlight = new Set<Promise<void>>();
  // What the server sent before start().
  #waiting: Message[] | undefined = [];
  #closed = false;
  #ended = false;
  #ending: Promise<void> | undefined;

  constructor(url: string, options: HttpServerOptions) {
    this.#session = new RemoteSession(url, {
      headers: options.headers,
      log: options.log,
      emit: (message) => this.#receive(message),
    });
  }

  start(): Promise<void> {
    const waiting = this.#waiting ?? [];
    this.#waiting = undefined;
    for (const message of waiting) this.#receive(message);
    return Promise.resolve();
  }

  send(message: JsonRpcMessage): Promise<void> {
    if (this.#ended || this.#closed) {
      return Promise.reject(
        new Error(
          this.#ended
            ? "The server's session has ended"
            : "The connection is closed",
        ),
      );
    }
    const task = this.#session.post(message as Message);
    this.#inFlight.add(task);
    task.finally(() => this.#inFlight.delete(task));
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.#closed = true;
    return Promise.resolve();
  }

  /**
   * What was sent is answered first; then the session ends and `onend` is
   * called: the EOF of a process.
   */
  end(): Promise<void> {
    this.#ending ??= (async () => {
      await Promise.allSettled([...this.#inFlight]);
      await this.#session.close();
      this.#ended = true;
      if (!this.#closed) this.onend?.();
    })();
    return this.#ending;
  }

  /** Stops every request and stream at once. */
  abort(): void {
    this.#session.abort();
  }

  #receive(message: Message): void {
    if (this.#ended || this.#closed) return;
    if (this.#waiting !== undefined) {
      this.#waiting.push(message);
      return;
    }
    // The relay relies on the shape, as it does on a stdio server's.
    const problem = checkMessage(message);
    if (problem !== undefined) {
      this.send({
        jsonrpc: "2.0",
        id: problem.id,
        error: {
          code: RPC_ERROR.INVALID_REQUEST,
          message: `Invalid Request: ${problem.problem}`,
        },
      }).catch(() => {});
      return;
    }
    try {
      this.onmessage?.(message as JsonRpcMessage);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }
}
