// A server for the end-to-end stdio tests: spawned as a real process.
import { createServer, error, registerPatternTool, text, ToolError } from "../../../mod.ts";
import { z } from "zod";

const server = createServer({ name: "e2e", version: "1.0.0" }, {
  graceMs: Number(Deno.env.get("GRACE_MS") ?? 5000),
});

server.tool({
  name: "echo",
  description: "Echoes its text",
  input: z.object({ text: z.string() }),
  handler: ({ text: value }) => text(value),
});
server.tool({
  name: "length",
  description: "Counts the characters of its text",
  input: z.object({ text: z.string() }),
  handler: ({ text: value }) => text(String(value.length)),
});
server.tool({
  name: "chatty",
  description: "Writes to the console, then answers",
  handler: () => {
    console.log("console.log from a handler");
    console.info("console.info from a handler");
    console.debug("console.debug", { nested: [1, 2] });
    console.table([{ a: 1 }]);
    console.dir({ dir: true });
    console.count("calls");
    console.time("t");
    console.timeEnd("t");
    return text("done");
  },
});
server.tool({
  name: "slow",
  description: "Answers after ms milliseconds, ignoring its signal",
  input: z.object({ ms: z.number() }),
  handler: async ({ ms }) => {
    // Tests wait for this line to know the call is in flight.
    console.error(`slow: sleeping ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, ms));
    return text(`slept ${ms}`);
  },
});
server.tool({
  name: "boom",
  description: "Throws a plain error",
  handler: () => {
    throw new Error("database connection refused");
  },
});
server.tool({
  name: "missing",
  description: "A domain error",
  handler: () => {
    throw new ToolError("not found: notes/todo.md");
  },
});
server.tool({
  name: "refuse",
  description: "Returns error()",
  handler: () => error("not allowed: /etc"),
});
registerPatternTool(server, {
  name: "write_file",
  description: "Pretends to write",
  input: z.object({ path: z.string(), content: z.string() }),
  patterns: ({ path }) => [`write:${path}`],
  handler: ({ path }) => text(`wrote ${path}`),
});

const serving = server.serve({
  maxMessageBytes: Number(Deno.env.get("MAX_BYTES") ?? 16 * 1024 * 1024),
});
// serve() has added its own SIGTERM listener by now, and listeners run in
// order: once this line is out, the server has stopped taking calls.
Deno.addSignalListener("SIGTERM", () => {
  console.error("stdio_server: SIGTERM received, shutting down");
});
await serving;
