// The toolkit: `echo` as a user writes it with createServer(), plus `note`,
// a pattern tool whose probe the harness compares with a plain call.
import { createServer, registerPatternTool, text } from "@forge/toolkit";
import { z } from "zod";

const server = createServer({ name: "toolkit-echo", version: "1.0.0" });
server.tool({
  name: "echo",
  description: "Echoes its text",
  input: z.object({ text: z.string() }),
  handler: ({ text: value }) => text(value),
});
registerPatternTool(server, {
  name: "note",
  description: "Echoes a note as if it were written to a path",
  input: z.object({ path: z.string(), text: z.string() }),
  patterns: ({ path }) => [`write:${path}`],
  handler: ({ text: value }, ctx) => text(`${ctx.access[0]} ${value}`),
});
await server.serve();
