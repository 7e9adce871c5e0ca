// A server that will not stop: it ignores SIGTERM, SIGINT and SIGHUP, keeps
// running after its stdin ends, and has a child of its own (`sleep`), whose
// pid it gives in its initialize result (serverInfo.child). Only SIGKILL
// ends it: the gate's tests check that none of it outlives the gate.

for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
  Deno.addSignalListener(signal, () => {});
}
const child = new Deno.Command("sleep", { args: ["600"] }).spawn();
const encoder = new TextEncoder();
let buffer = "";
for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  buffer += chunk;
  let newline;
  while ((newline = buffer.indexOf("\n")) !== -1) {
    const message = JSON.parse(buffer.slice(0, newline));
    buffer = buffer.slice(newline + 1);
    if (message.id === undefined) continue;
    const result = message.method === "initialize"
      ? {
        protocolVersion: "2025-06-18",
        capabilities: {},
        serverInfo: { name: "stubborn", version: "1", child: child.pid },
      }
      : {};
    Deno.stdout.writeSync(
      encoder.encode(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }) + "\n"),
    );
  }
}
// EOF: keep running.
setInterval(() => {}, 60_000);
