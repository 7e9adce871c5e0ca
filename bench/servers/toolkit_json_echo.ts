// The toolkit without zod: `echo` with its input as JSON Schema, which the
// toolkit checks itself. The same server as toolkit_echo.ts for a user who
// does not want a schema library's start-up cost.
import { createServer, text } from "@forge/toolkit";

const server = createServer({ name: "toolkit-json-echo", version: "1.0.0" });
server.tool({
  name: "echo",
  description: "Echoes its text",
  input: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
    additionalProperties: false,
  },
  handler: ({ text: value }) => text(value as string),
});
await server.serve();
