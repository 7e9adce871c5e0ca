// The host end of a gate started in process with startGate() over a pair
// of web streams: newline-delimited JSON-RPC written and read line by line.

const ENCODER = new TextEncoder();

/** A host end of a gate started over a pair of streams. */
export function hostStreams() {
  const toGate = new TransformStream<Uint8Array, Uint8Array>();
  const fromGate = new TransformStream<Uint8Array, Uint8Array>();
  const writer = toGate.writable.getWriter();
  const lines = fromGate.readable.pipeThrough(new TextDecoderStream())
    .getReader();
  let buffer = "";
  const send = (message: unknown) =>
    writer.write(ENCODER.encode(JSON.stringify(message) + "\n"));
  return {
    readable: toGate.readable,
    writable: fromGate.writable,
    send,
    /** Sends a `tools/call`, with `meta` as its `_meta` when given. */
    call: (
      id: number,
      name: string,
      args: Record<string, unknown> = {},
      meta?: Record<string, unknown>,
    ) =>
      send({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
      }),
    end: () => writer.close(),
    // deno-lint-ignore no-explicit-any
    async next(): Promise<Record<string, any>> {
      for (;;) {
        const newline = buffer.indexOf("\n");
        if (newline !== -1) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          return JSON.parse(line);
        }
        const { value, done } = await lines.read();
        if (done) throw new Error("the gate closed its output");
        buffer += value;
      }
    },
    drain: () => lines.cancel(),
  };
}

