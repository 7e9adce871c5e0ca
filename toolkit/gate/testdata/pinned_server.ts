// A stand-in MCP server for the pins tests: its tool "note" has the
// description in PINNED_DESCRIPTION, and the tool "extra" is listed only
// when PINNED_EXTRA is set. Each call answers "ran <name>".

const encoder = new TextEncoder();
const description = Deno.env.get("PINNED_DESCRIPTION") ?? "Writes a note.";
const extra = Deno.env.get("PINNED_EXTRA") !== undefined;

const tools = [
  { name: "note", description, inputSchema: { type: "object" } },
  ...(extra
    ? [{ name: "extra", description: "New.", inputSchema: { type: "object" } }]
    : []),
];

function answer(id: unknown, result: unknown): void {
  Deno.stdout.writeSync(
    encoder.encode(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\n"),
  );
}

let buffer = "";
for await (
  const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())
) {
  buffer += chunk;
  let end;
  while ((end = buffer.indexOf("\n")) !== -1) {
    const message = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    if (message.id === undefined) continue;
    if (message.method === "initialize") {
      answer(message.id, {
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "pinned", version: "1" },
      });
    } else if (message.method === "tools/list") {
      answer(message.id, { tools });
    } else if (message.method === "tools/call") {
      answer(message.id, {
        content: [{ type: "text", text: `ran ${message.params.name}` }],
      });
    }
  }
}
