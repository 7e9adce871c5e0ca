// Internal test helper: a real server process spoken to over stdio with raw
// newline-delimited JSON-RPC, recording every stdout line.

const FIXTURE = new URL("./stdio_server.ts", import.meta.url);

export interface Spawned {
  /** Every stdout line, raw, in order. */
  lines: string[];
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Writes raw bytes or text to the server's stdin. */
  write(data: string | Uint8Array): Promise<void>;
  /** Sends a request and waits for the response with its id. */
  request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Waits for a response with this id. */
  response(id: unknown, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Closes stdin (EOF). */
  closeStdin(): Promise<void>;
  /** Sends a signal. */
  kill(signal: Deno.Signal): void;
  /** Waits for the process to exit. */
  status: Promise<Deno.CommandStatus>;
}

export async function spawnServer(
  env: Record<string, string> = {},
  options: { handshake?: boolean } = {},
): Promise<Spawned> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", FIXTURE.pathname],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env,
  }).spawn();
  const lines: string[] = [];
  const parsed: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  let stderr = "";
  const readStdout = (async () => {
    let rest = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      rest += chunk;
      let nl;
      while ((nl = rest.indexOf("\n")) !== -1) {
        const line = rest.slice(0, nl);
        rest = rest.slice(nl + 1);
        lines.push(line);
        try {
          parsed.push(JSON.parse(line));
        } catch {
          parsed.push({ unparsable: line });
        }
        for (const wake of waiters) wake();
      }
    }
    if (rest !== "") lines.push(rest);
  })();
  const readStderr = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) stderr += chunk;
  })();
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  let nextId = 1000;

  async function response(id: unknown, timeoutMs = 15_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = parsed.find((m) => m.id === id && ("result" in m || "error" in m));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`No response with id ${id}; stdout: ${lines.join("\n")}`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, 50);
        waiters.add(wake);
      });
    }
  }

  const spawned: Spawned = {
    lines,
    stderr: () => stderr,
    write: (data) => writer.write(typeof data === "string" ? encoder.encode(data) : data),
    async request(method, params) {
      const id = nextId++;
      await spawned.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
      return await response(id);
    },
    response,
    closeStdin: () => writer.close(),
    kill: (signal) => child.kill(signal),
    status: (async () => {
      const status = await child.status;
      await Promise.all([readStdout, readStderr]);
      return status;
    })(),
  };
  if (options.handshake === false) return spawned;
  await spawned.request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "e2e", version: "1" },
  });
  await spawned.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  return spawned;
}
