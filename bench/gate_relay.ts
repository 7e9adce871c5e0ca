// The floor of any stdio proxy: a process that spawns the server and copies
// bytes both ways without reading them. The gate harness times it beside the
// gate, so that the gate's own cost shows apart from the extra process hop.
//
//   deno run -A gate_relay.ts <server command...>
const [program, ...args] = Deno.args;
if (program === undefined) {
  console.error("Usage: deno run -A gate_relay.ts <server command...>");
  Deno.exit(2);
}
const child = new Deno.Command(program, {
  args,
  stdin: "piped",
  stdout: "piped",
  stderr: "inherit",
}).spawn();
// Plain read loops: pipeTo() costs more per chunk than the copy itself.
async function toServer(): Promise<void> {
  const writer = child.stdin.getWriter();
  const buffer = new Uint8Array(1 << 16);
  try {
    for (
      let n = await Deno.stdin.read(buffer);
      n !== null;
      n = await Deno.stdin.read(buffer)
    ) {
      await writer.write(buffer.slice(0, n));
    }
  } finally {
    await writer.close().catch(() => {});
  }
}
async function toHost(): Promise<void> {
  for await (const chunk of child.stdout) {
    for (let done = 0; done < chunk.length;) {
      done += Deno.stdout.writeSync(chunk.subarray(done));
    }
  }
}
await Promise.all([toServer(), toHost()]);
Deno.exit((await child.status).code);
