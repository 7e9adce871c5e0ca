// fastmcp: one `echo` tool over stdio, as its README writes it. The same file
// runs under Deno (through bench/deno.json) and Node (bench/node).
import { FastMCP } from "fastmcp";
import { z } from "zod";

const server = new FastMCP({ name: "fastmcp-echo", version: "1.0.0" });
server.addTool({
  name: "echo",
  description: "Echoes its text",
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => Promise.resolve(text),
});
await server.start({ transportType: "stdio" });
