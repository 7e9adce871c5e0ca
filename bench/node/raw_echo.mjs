// The floor under Node: the hand-written newline-delimited JSON-RPC loop of
// bench/servers/raw_echo.ts on `process.stdin`/`process.stdout`, no SDK.
import process from "node:process";

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

function answer(message) {
  const params = message.params ?? {};
  switch (message.method) {
    case "initialize": {
      const asked = params.protocolVersion;
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
      const args = params.arguments;
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

function reply(line) {
  let message;
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

let carry = [];
process.stdin.on("data", (chunk) => {
  const replies = [];
  let start = 0;
  for (
    let newline = chunk.indexOf(10);
    newline !== -1;
    newline = chunk.indexOf(10, start)
  ) {
    let bytes = chunk.subarray(start, newline);
    if (carry.length > 0) {
      bytes = Buffer.concat([...carry, bytes]);
      carry = [];
    }
    const text = bytes.toString("utf8");
    if (text.trim() !== "") {
      const answered = reply(text);
      if (answered !== undefined) replies.push(answered, "\n");
    }
    start = newline + 1;
  }
  if (start < chunk.length) carry.push(chunk.subarray(start));
  if (replies.length > 0) process.stdout.write(replies.join(""));
});
