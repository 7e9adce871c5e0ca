// The floor: a hand-written newline-delimited JSON-RPC loop under Deno with
// no SDK and no schema library, answering initialize, ping, tools/list and
// tools/call for one `echo` tool. It does what a careful author would do by
// hand (framing by bytes, one write per read, parse errors answered) and
// nothing more.

const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"];
const ECHO_TOOL = {
  name: "echo",
  description: "Echoes its text",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
  },
};

function answer(message: Record<string, unknown>): unknown {
  const params = (message.params ?? {}) as Record<string, unknown>;
  switch (message.method) {
    case "initialize": {
      const asked = params.protocolVersion as string;
      return {
        protocolVersion: PROTOCOL_VERSIONS.includes(asked)
          ? asked
          : PROTOCOL_VERSIONS[0],
        capabilities: { tools: {} },
        serverInfo: { name: "raw-echo", version: "1.0.0" },
      };
    }
    case "ping":
      return {};
    case "tools/list":
      return { tools: [ECHO_TOOL] };
    case "tools/call": {
      const args = params.arguments as Record<string, unknown> | undefined;
      if (params.name !== "echo") {
        throw { code: -32602, message: `Unknown tool: ${params.name}` };
      }
      if (typeof args?.text !== "string") {
        return {
          content: [{ type: "text", text: "text: expected string" }],
          isError: true,
        };
      }
      return { content: [{ type: "text", text: args.text }] };
    }
    default:
      throw { code: -32601, message: `Method not found: ${message.method}` };
  }
}

function reply(line: string): string | undefined {
  let message: Record<string, unknown>;
  try {
    message = JSON.parse(line);
  } catch {
    return JSON.stringify({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "Parse error" },
    });
  }
  if (message.id === undefined || typeof message.method !== "string") return;
  try {
    return JSON.stringify({
      jsonrpc: "2.0",
      id: message.id,
      result: answer(message),
    });
  } catch (error) {
    return JSON.stringify({ jsonrpc: "2.0", id: message.id, error });
  }
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();
// Stdin and stdout directly, not their web streams (which load the streams
// implementation at start-up and cost promises per chunk): the same I/O the
// toolkit does, so that the floor is a floor.
const buffer = new Uint8Array(64 * 1024);
let carry: Uint8Array[] = [];
let carried = 0;
for (;;) {
  const read = await Deno.stdin.read(buffer);
  if (read === null) break;
  const chunk = buffer.subarray(0, read);
  const replies: string[] = [];
  let start = 0;
  for (
    let newline = chunk.indexOf(10);
    newline !== -1;
    newline = chunk.indexOf(10, start)
  ) {
    let bytes = chunk.subarray(start, newline);
    if (carried > 0) {
      const whole = new Uint8Array(carried + bytes.length);
      let offset = 0;
      for (const part of [...carry, bytes]) {
        whole.set(part, offset);
        offset += part.length;
      }
      bytes = whole;
      carry = [];
      carried = 0;
    }
    const text = decoder.decode(bytes);
    if (text.trim() !== "") {
      const answered = reply(text);
      if (answered !== undefined) replies.push(answered, "\n");
    }
    start = newline + 1;
  }
  if (start < chunk.length) {
    // A copy: the buffer is reused by the next read.
    carry.push(chunk.slice(start));
    carried += chunk.length - start;
  }
  if (replies.length > 0) {
    const bytes = encoder.encode(replies.join(""));
    let written = 0;
    while (written < bytes.length) {
      written += await Deno.stdout.write(bytes.subarray(written));
    }
  }
}
