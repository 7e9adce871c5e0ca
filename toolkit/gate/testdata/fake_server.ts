// A stand-in MCP server for the gate's tests: it shows what reached it.
//
// tools: "probed" (answers probes with the patterns in its `patterns`
// argument, plus "x-fake:always"), "plain" (no probe), "ask_host" (sends the
// host a roots/list request under the id "forge-gate:1" and answers with
// the host's answer), "crash" (exits with status 3), "wait" (answers only
// when cancelled... never: it records the cancellation instead), "seen"
// (answers every request id, cancellation and approval of a real "probed"
// call it received), "progress"
// (sends one progress notification first), "flip" (makes "plain" a probed
// tool and sends notifications/tools/list_changed).
// Each real call answers the JSON of the `_meta` it received.
// A "wait" probe with an `announce` argument says so to the host, and so does
// its cancellation, as notifications/message ("probe of wait: <id>",
// "cancelled: <id>"): tests wait for these instead of for time.

const encoder = new TextEncoder();
const seen: unknown[] = [];
const cancelled: unknown[] = [];
const approvals: unknown[] = [];
const waiting = new Map<unknown, (answer: unknown) => void>();
const announced = new Set<unknown>();

function send(message: unknown): void {
  Deno.stdout.writeSync(encoder.encode(JSON.stringify(message) + "\n"));
}

function announce(data: string): void {
  send({
    jsonrpc: "2.0",
    method: "notifications/message",
    params: { level: "info", logger: "fake", data },
  });
}

const tools: { name: string; inputSchema: unknown; _meta?: unknown }[] = [
  {
    name: "probed",
    inputSchema: { type: "object" },
    _meta: { "forge.supports_permission_patterns": true },
  },
  { name: "plain", inputSchema: { type: "object" } },
  { name: "ask_host", inputSchema: { type: "object" } },
  { name: "crash", inputSchema: { type: "object" } },
  {
    name: "wait",
    inputSchema: { type: "object" },
    _meta: { "forge.supports_permission_patterns": true },
  },
  { name: "seen", inputSchema: { type: "object" } },
  { name: "progress", inputSchema: { type: "object" } },
  { name: "flip", inputSchema: { type: "object" } },
];

async function handle(message: Record<string, any>): Promise<void> {
  if (message.method === undefined) {
    waiting.get(message.id)?.(message);
    return;
  }
  if (message.id === undefined) {
    if (message.method === "notifications/cancelled") {
      cancelled.push(message.params.requestId);
      if (announced.has(message.params.requestId)) {
        announce(`cancelled: ${message.params.requestId}`);
      }
    }
    return;
  }
  seen.push(message.id);
  const answer = (result: unknown) =>
    send({ jsonrpc: "2.0", id: message.id, result });
  switch (message.method) {
    case "initialize":
      return answer({
        protocolVersion: "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "fake", version: "1" },
      });
    case "tools/list":
      return answer({ tools });
    case "tools/call": {
      const { name, arguments: args = {}, _meta = {} } = message.params;
      if (_meta["forge.permission_patterns"] === true) {
        if (name === "wait") {
          // A probe that never answers.
          if (args.announce) {
            announced.add(message.id);
            announce(`probe of wait: ${message.id}`);
          }
          return;
        }
        if (args.bad) {
          return answer({
            content: [{ type: "text", text: "path: leaves the root" }],
            isError: true,
          });
        }
        return answer({
          content: [],
          _meta: {
            "forge.patterns": args.patterns ?? [],
            "forge.always": ["x-fake:always"],
          },
        });
      }
      if (name === "probed") approvals.push(_meta["forge.approved_patterns"]);
      if (name === "crash") Deno.exit(3);
      if (name === "progress") {
        send({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: _meta.progressToken, progress: 1, total: 2 },
        });
      }
      if (name === "flip") {
        // "plain" starts answering probes; the host is told the list changed.
        tools[1]._meta = { "forge.supports_permission_patterns": true };
        send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
      }
      if (name === "wait") return;
      if (name === "seen") {
        return answer({
          content: [{ type: "text", text: JSON.stringify({ seen, cancelled, approvals }) }],
        });
      }
      if (name === "ask_host") {
        const reply = new Promise((resolve) =>
          waiting.set("forge-gate:1", resolve)
        );
        send({ jsonrpc: "2.0", id: "forge-gate:1", method: "roots/list" });
        const got = await reply;
        return answer({ content: [{ type: "text", text: JSON.stringify(got) }] });
      }
      return answer({ content: [{ type: "text", text: JSON.stringify(_meta) }] });
    }
    default:
      send({
        jsonrpc: "2.0",
        id: message.id,
        error: { code: -32601, message: `Method not found: ${message.method}` },
      });
  }
}

let buffer = "";
for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  buffer += chunk;
  let newline;
  while ((newline = buffer.indexOf("\n")) !== -1) {
    const line = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    if (line.trim() !== "") handle(JSON.parse(line));
  }
}
