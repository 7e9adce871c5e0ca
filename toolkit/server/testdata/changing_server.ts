// A stdio server for mount_connection_e2e_test.ts: `wait` runs until it is
// cancelled (and counts that), with a progress notification first;
// `add_tool` registers a tool while serving, so its clients hear
// notifications/tools/list_changed.

import { createServer, text } from "../../../mod.ts";

const server = createServer({ name: "changing", version: "1" });
let cancelled = 0;
server.tool({
  name: "wait",
  description: "Reports progress, then waits until it is cancelled",
  handler: async (_args, ctx) => {
    await ctx.progress(1, 2, "waiting");
    await new Promise<void>((resolve) =>
      ctx.signal.addEventListener("abort", () => {
        cancelled++;
        resolve();
      }, { once: true })
    );
    return text("cancelled");
  },
});
server.tool({
  name: "cancelled",
  description: "How many calls of wait were cancelled",
  handler: () => text(String(cancelled)),
});
server.tool({
  name: "add_tool",
  description: "Registers the tool added",
  handler: () => {
    server.tool({
      name: "added",
      description: "Added while serving",
      handler: () => text("added"),
    });
    return text("ok");
  },
});
await server.serve();
