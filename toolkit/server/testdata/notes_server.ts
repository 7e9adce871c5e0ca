// A notes server run with too few permissions by permission_denied_test.ts:
// save_note resolves its root under NOTES_DIR and writes a file there.

import {
  createServer,
  fileAccess,
  registerPatternTool,
  text,
} from "../../../mod.ts";

const server = createServer({ name: "notes", version: "1" });
const notes = fileAccess(Deno.args[0]);
registerPatternTool(server, {
  name: "save_note",
  description: "Saves a note",
  input: {
    type: "object",
    properties: { path: { type: "string" }, text: { type: "string" } },
    required: ["path", "text"],
  },
  patterns: async ({ path }) => [await notes.write(path as string)],
  handler: async ({ text: note }, ctx) => {
    await Deno.writeTextFile(ctx.access[0].path, note as string);
    return text(`Saved ${ctx.access[0].target}`);
  },
});
server.tool({
  name: "write_plain",
  description: "Writes a file with no pattern check",
  handler: async () => {
    await Deno.writeTextFile(`${Deno.args[0]}/plain.txt`, "x");
    return text("written");
  },
});
await server.serve();
