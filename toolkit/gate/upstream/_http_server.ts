// Internal: a remote MCP server over Streamable HTTP, seen by the gate as
// a server process: its "stdin" takes the JSON-RPC lines the relay writes
// and POSTs each message (see _remote_session.ts for the session, its
// streams and what is mended when they break), and its "stdout" yields
// every message the server sends back, whether as a JSON body or as the
// events of an SSE stream. A 2025 session is kept by its Mcp-Session-Id
// (and MCP-Protocol-Version once initialized); once the host has sent
// notifications/initialized, a GET stream carries the server's own
// messages; closing DELETEs the session. A 2026-07-28 host needs none of
// that: each POST stands alone, and the revision in a request's _meta is
// sent as its MCP-Protocol-Version. Closing "stdin" lets what was sent
// finish and then ends the session, as a process's EOF would; `kill()`
// aborts every request and stream at once, so that the gate's grace bounds
// its shutdown even when a stream never ends.

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
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  let output!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  const session = new RemoteSession(url, {
    headers: options.headers,
    log: options.log,
    emit(message) {
      if (!closed) {
        output.enqueue(encoder.encode(JSON.stringify(message) + "\n"));
      }
    },
  });
  const inFlight = new Set<Promise<void>>();
  let exit!: (status: Deno.CommandStatus) => void;
  const status = new Promise<Deno.CommandStatus>((resolve) => exit = resolve);

  let buffer = "";
  const stdin = new WritableStream<Uint8Array>({
    write(chunk) {
      buffer += decoder.decode(chunk, { stream: true });
      let end;
      while ((end = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        if (line.trim() === "") continue;
        // Each POST on its own: a slow call must not hold the next.
        const task = session.post(JSON.parse(line) as Message);
        inFlight.add(task);
        task.finally(() => inFlight.delete(task));
      }
    },
  });

  let closing: Promise<void> | undefined;
  // Ends with the status, like a process: the wait for what is under way is
  // the caller's grace, after which it kills.
  const close = (): void => {
    closing ??= (async () => {
      // What was sent is answered first; then the session ends.
      await Promise.allSettled([...inFlight]);
      await session.close();
      closed = true;
      try {
        output.close();
      } catch {
        // Already closed.
      }
      exit({ success: true, code: 0, signal: null });
    })();
  };

  return {
    pid: 0,
    stdout: new ReadableStream({ start: (c) => void (output = c) }),
    stdin,
    closeStdin() {
      close();
      return Promise.resolve();
    },
    status,
    kill() {
      // No grace left: abort what is under way.
      session.abort();
      close();
    },
    dispose() {},
  };
}
