// A stdio server for restart_test.ts: each start appends a line to the
// file STARTS names; `exit` ends the process with code 3; with the file
// REFUSE present, a start exits at once, before it answers anything.

import { createServer, text } from "../../../mod.ts";

const starts = Deno.env.get("STARTS");
if (starts !== undefined) {
  await Deno.writeTextFile(starts, `${Deno.pid} ${Date.now()}\n`, {
    append: true,
  });
}
const refuse = Deno.env.get("REFUSE");
if (refuse !== undefined && await Deno.stat(refuse).then(() => true, () => false)) {
  Deno.exit(4);
}

const server = createServer({ name: "exiting", version: "1" });
server.tool({
  name: "hello",
  description: "Says which process answered",
  handler: () => text(`hello from ${Deno.pid}`),
});
server.tool({
  name: "exit",
  description: "Ends the process with code 3",
  handler: () => Deno.exit(3),
});
await server.serve();
