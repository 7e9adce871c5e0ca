// A hand-rolled stdio server for spawnStdio()'s tests: it answers from raw
// lines, so it can also break the protocol on request.
//
// methods: "initialize"; "echo" and "tools/call" (answer their params); "fail" (answers a
// JSON-RPC error with data); "notify" (sends notifications/message, then
// answers); "ask" (sends the client a roots/list request and answers with
// the client's answer); "garbage" (writes a line that is not JSON, then
// answers); "log" (writes params.line to stderr, then answers); "exit"
// (exits with params.code, answering nothing). Every notification it gets
// is logged to stderr. It says "raw_server: ready" on stderr when it reads.

const encoder = new TextEncoder();
const waiting = new Map<unknown, (answer: unknown) => void>();

function write(text: string): void {
  Deno.stdout.writeSync(encoder.encode(text + "\n"));
}

function send(message: unknown): void {
  write(JSON.stringify(message));
}

function log(line: string): void {
  Deno.stderr.writeSync(encoder.encode(line + "\n"));
}

async function handle(message: Record<string, any>): Promise<void> {
  if (message.method === undefined) {
    waiting.get(message.id)?.(message);
    return;
  }
  if (message.id === undefined) {
    log(`raw_server: notification ${message.method}`);
    return;
  }
  const answer = (result: unknown) =>
    send({ jsonrpc: "2.0", id: message.id, result });
  switch (message.method) {
    case "initialize":
      return answer({
        protocolVersion: message.params.protocolVersion,
        capabilities: {},
        serverInfo: { name: "raw", version: "1" },
      });
    case "echo":
    case "tools/call":
      return answer(message.params ?? {});
    case "fail":
      return send({
        jsonrpc: "2.0",
        id: message.id,
        error: { code: -32602, message: "Invalid params: no", data: { why: "asked to" } },
      });
    case "notify":
      send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "hi" } });
      return answer({});
    case "ask": {
      const reply = new Promise((resolve) => waiting.set("s1", resolve));
      send({ jsonrpc: "2.0", id: "s1", method: "roots/list" });
      return answer({ got: await reply });
    }
    case "garbage":
      write("this is not JSON");
      write('{"jsonrpc":"1.0","id":1}');
      return answer({});
    case "log":
      log(message.params.line);
      return answer({});
    case "exit":
      Deno.exit(message.params.code);
  }
}

log("raw_server: ready");
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
log("raw_server: stdin ended");
