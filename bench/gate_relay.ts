// The floor of a stdio proxy written in Deno: a process that spawns the
// server and copies bytes both ways without reading them. The gate harness
// times it beside the gate, so that the gate's own cost shows apart from the
// extra process hop.
//
// By default it is the fastest relay found on Deno, with the I/O path the
// gate itself uses (gate/upstream/_server_process.ts, stdio/_fd_pipe.ts):
// stdin and stdout as `node:net` sockets on fds 0 and 1, the server spawned
// with `node:child_process`, Node's pipe() in between (pipe handles polled on the
// event loop, backpressure included). `--deno-io` runs the earlier shape,
// `Deno.stdin.read()`, `Deno.stdout.writeSync()` and a `Deno.Command` child,
// whose reads go through a blocking thread pool; relay_floor.ts times both.
//
//   deno run -A gate_relay.ts [--deno-io] <server command...>
import { spawn } from "node:child_process";
import { fstatSync } from "node:fs";
import { Socket } from "node:net";
import type { Readable, Writable } from "node:stream";

const mode = Deno.args[0] === "--deno-io" || Deno.args[0] === "--parse"
  ? Deno.args[0]
  : "--pipe";
const [program, ...args] = mode === "--pipe" ? Deno.args : Deno.args.slice(1);
if (program === undefined) {
  console.error(
    "Usage: deno run -A gate_relay.ts [--deno-io | --parse] <server command...>",
  );
  Deno.exit(2);
}

function isPipe(fd: number): boolean {
  const stat = fstatSync(fd);
  return stat.isFIFO() || stat.isSocket();
}

async function nodeRelay(): Promise<number> {
  if (!isPipe(0) || !isPipe(1)) {
    console.error("gate_relay.ts: stdin and stdout must be pipes");
    return 2;
  }
  const child = spawn(program, args, { stdio: ["pipe", "pipe", "inherit"] });
  const input = new Socket({ fd: 0, readable: true, writable: false });
  const output = new Socket({ fd: 1, readable: false, writable: true });
  if (mode === "--parse") {
    reparse(input, child.stdin!);
    reparse(child.stdout!, output);
  } else {
    input.pipe(child.stdin!);
    child.stdout!.pipe(output);
  }
  const [code] = await Promise.all([
    new Promise<number>((resolve) =>
      child.once("exit", (status) => resolve(status ?? 1))
    ),
    // pipe() ends the output once the server's stdout ends.
    new Promise((resolve) => {
      output.once("finish", resolve);
      output.once("close", resolve);
    }),
  ]);
  return code;
}

/** Copies `from` to `to` line by line, each line parsed and serialised again. */
function reparse(from: Readable, to: Writable): void {
  const decoder = new TextDecoder();
  let rest = "";
  from.on("data", (chunk: Uint8Array) => {
    const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
    rest = lines.pop()!;
    let out = "";
    for (const line of lines) out += JSON.stringify(JSON.parse(line)) + "\n";
    if (out !== "") to.write(out);
  });
  from.on("end", () => to.end());
}

async function denoRelay(): Promise<number> {
  const child = new Deno.Command(program, {
    args,
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  // Plain read loops: pipeTo() costs more per chunk than the copy itself.
  const toServer = async () => {
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
  };
  const toHost = async () => {
    for await (const chunk of child.stdout) {
      for (let done = 0; done < chunk.length;) {
        done += Deno.stdout.writeSync(chunk.subarray(done));
      }
    }
  };
  await Promise.all([toServer(), toHost()]);
  return (await child.status).code;
}

Deno.exit(await (mode === "--deno-io" ? denoRelay() : nodeRelay()));
