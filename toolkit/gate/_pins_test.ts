// Pins in a running gate, in process: a call right after a list sees that
// list's pins.

import assert from "node:assert/strict";
import { Policy } from "../policy/mod.ts";
import { Pins } from "./_pins.ts";
import { fixedPolicy } from "./_policy_source.ts";
import { RunningGate } from "./_running_gate.ts";
import type { ServerProcess } from "./_server_process.ts";

const encoder = new TextEncoder();
const TOOL = { name: "note", inputSchema: { type: "object" } };

/** A server made of streams that answers a list and each call at once. */
function quickServer(): { child: ServerProcess; calls: string[] } {
  const calls: string[] = [];
  let output!: ReadableStreamDefaultController<Uint8Array>;
  let exit!: (status: Deno.CommandStatus) => void;
  const decoder = new TextDecoder();
  let buffer = "";
  const answer = (id: unknown, result: unknown) =>
    output.enqueue(
      encoder.encode(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\n"),
    );
  const child: ServerProcess = {
    pid: 0,
    stdout: new ReadableStream({ start: (c) => void (output = c) }),
    stdin: new WritableStream({
      write(chunk) {
        buffer += decoder.decode(chunk, { stream: true });
        let end;
        while ((end = buffer.indexOf("\n")) !== -1) {
          const message = JSON.parse(buffer.slice(0, end));
          buffer = buffer.slice(end + 1);
          if (message.method === "tools/list") {
            answer(message.id, { tools: [TOOL] });
          } else if (message.method === "tools/call") {
            calls.push(message.params.name);
            answer(message.id, {
              content: [{ type: "text", text: `ran ${message.params.name}` }],
            });
          }
        }
      },
    }),
    closeStdin: () => {
      output.close();
      exit({ success: true, code: 0, signal: null });
      return Promise.resolve();
    },
    status: new Promise((resolve) => exit = resolve),
    kill: () => {},
    dispose: () => {},
  };
  return { child, calls };
}

/**
 * A gate with a fresh pins file at `path`; the host sends a list and a
 * call in one write, without waiting; resolves with the call's answer.
 */
async function listThenCall(
  path: string,
): Promise<{ answer: Record<string, unknown>; calls: string[] }> {
  const server = quickServer();
  const host = new TransformStream<Uint8Array, Uint8Array>();
  const answers = new TransformStream<Uint8Array, Uint8Array>();
  const log = () => {};
  const gate = new RunningGate(server.child, {
    source: fixedPolicy({
      policy: new Policy({}),
      unprobed: "allow",
      tools: new Map(),
    }),
    audit: undefined,
    log,
    pins: await Pins.open(path, { audit: undefined, log }),
    graceMs: 100,
    readable: host.readable,
    writable: answers.writable,
  });
  gate.start();
  const writer = host.writable.getWriter();
  await writer.write(encoder.encode(
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) + "\n" +
      JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "note", arguments: {} },
      }) + "\n",
  ));
  const lines = answers.readable.pipeThrough(new TextDecoderStream())
    .getReader();
  let text = "";
  let answer: Record<string, unknown> | undefined;
  while (answer === undefined) {
    const { value, done } = await lines.read();
    assert.equal(done, false, "the gate stopped before answering the call");
    text += value;
    answer = text.split("\n").filter((line) => line !== "")
      .map((line) => JSON.parse(line))
      .find((message) => message.id === 2);
  }
  await writer.close();
  await lines.cancel();
  await gate.close();
  return { answer, calls: server.calls };
}

Deno.test("a call sent right after the first list is forwarded, not asked as new (20 fresh pins files)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pins-race-" });
  try {
    for (let run = 0; run < 20; run++) {
      const path = `${dir}/pins-${run}.json`;
      const { answer, calls } = await listThenCall(path);
      assert.deepEqual(
        answer.result,
        { content: [{ type: "text", text: "ran note" }] },
        `run ${run}: ${JSON.stringify(answer)}`,
      );
      assert.deepEqual(calls, ["note"]);
      const file = JSON.parse(await Deno.readTextFile(path));
      assert.deepEqual(Object.keys(file.tools), ["note"]);
      assert.deepEqual(file.pending, {}, `run ${run}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
