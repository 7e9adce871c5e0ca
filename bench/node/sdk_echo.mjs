// The bare SDK: `McpServer` with one `echo` tool over the SDK's stdio
// transport, as its README writes it. The same file runs under Deno (through
// bench/deno.json) and Node (through bench/node/node_modules).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "sdk-echo", version: "1.0.0" });
server.registerTool(
  "echo",
  { description: "Echoes its text", inputSchema: { text: z.string() } },
  ({ text }) => ({ content: [{ type: "text", text }] }),
);
await server.connect(new StdioServerTransport());
