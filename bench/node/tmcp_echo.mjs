// tmcp with its zod adapter and stdio transport: one `echo` tool, as its
// README writes it. The same file runs under Deno (through bench/deno.json)
// and Node (bench/node).
import { McpServer } from "tmcp";
import { ZodJsonSchemaAdapter } from "@tmcp/adapter-zod";
import { StdioTransport } from "@tmcp/transport-stdio";
import { z } from "zod";

const server = new McpServer(
  { name: "tmcp-echo", version: "1.0.0", description: "Echoes its text" },
  { adapter: new ZodJsonSchemaAdapter(), capabilities: { tools: {} } },
);
server.tool(
  {
    name: "echo",
    description: "Echoes its text",
    schema: z.object({ text: z.string() }),
  },
  ({ text }) => ({ content: [{ type: "text", text }] }),
);
new StdioTransport(server).listen();
