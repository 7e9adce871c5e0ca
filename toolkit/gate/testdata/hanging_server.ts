// A server that hangs once it is up: it answers initialize, tools/list
// and ping until a call of its tool "hang", then blocks its one thread
// (its event loop stuck, as in a deadlock) and ignores SIGTERM, so only
// SIGKILL ends it. Tool "echo" answers `<label> echo`.
//
// Environment: HANGING_LABEL names it; HANGING_LOG, a file it appends
// `start <pid>` to when it starts and `ping` to for each ping it gets;
// HANGING_PING=error answers ping with -32601, as a server without ping
// would. Each ping is also said to the host as notifications/message
// `<label> ping <n>`: tests wait for these instead of for time.

const encoder = new TextEncoder();
const label = Deno.env.get("HANGING_LABEL") ?? "hanging";
const log = Deno.env.get("HANGING_LOG");
const pingError = Deno.env.get("HANGING_PING") === "error";
let pings = 0;

function send(message: unknown): void {
  Deno.stdout.writeSync(encoder.encode(JSON.stringify(message) + "\n"));
}

function record(line: string): void {
  if (log !== undefined) {
    Deno.writeTextFileSync(log, line + "\n", { append: true });
  }
}

function hang(): never {
  Deno.addSignalListener("SIGTERM", () => {});
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  throw new Error("unreachable");
}

// deno-lint-ignore no-explicit-any
function handle(message: Record<string, any>): void {
  if (message.method === undefined || message.id === undefined) return;
  const answer = (result: unknown) =>
    send({ jsonrpc: "2.0", id: message.id, result });
  switch (message.method) {
    case "initialize":
      return answer({
        protocolVersion: "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: label, version: "1" },
      });
    case "tools/list":
      return answer({
        tools: [
          { name: "echo", inputSchema: { type: "object" } },
          { name: "hang", inputSchema: { type: "object" } },
        ],
      });
    case "ping":
      record("ping");
      send({
        jsonrpc: "2.0",
        method: "notifications/message",
        params: {
          level: "info",
          logger: label,
          data: `${label} ping ${++pings}`,
        },
      });
      if (pingError) {
        return send({
          jsonrpc: "2.0",
          id: message.id,
          error: { code: -32601, message: "Method not found: ping" },
        });
      }
      return answer({});
    case "tools/call":
      if (message.params?.name === "hang") hang();
      return answer({ content: [{ type: "text", text: `${label} echo` }] });
  }
  send({
    jsonrpc: "2.0",
    id: message.id,
    error: { code: -32601, message: `Method not found: ${message.method}` },
  });
}

record(`start ${Deno.pid}`);
let buffer = "";
for await (
  const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())
) {
  buffer += chunk;
  let newline;
  while ((newline = buffer.indexOf("\n")) !== -1) {
    const line = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    if (line.trim() !== "") handle(JSON.parse(line));
  }
}
