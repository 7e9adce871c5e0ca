// Pins in a running gate, in process: the first list is pinned only once
// it has ended, and a call right after a list sees that list's pins.

import assert from "node:assert/strict";
import { Policy } from "../../policy/mod.ts";
import type {
  AuditRecord,
  AuditSink,
  AuditToolEvent,
} from "../audit/_audit.ts";
import { Pins } from "./_pins.ts";
import { fixedPolicy } from "../policy/_policy_source.ts";
import { RunningGate } from "../_running_gate.ts";
import type { ServerProcess } from "../upstream/_server_process.ts";
import { MAX_LIST_PAGES } from "./_tool_list.ts";
import { messageChannel } from "../../jsonrpc/_message_channel.ts";
import type { JsonRpcId } from "../../jsonrpc/types.ts";

const encoder = new TextEncoder();
const TOOL = { name: "note", inputSchema: { type: "object" } };

/** A server in memory that answers a list and each call at once. */
function quickServer(): { child: ServerProcess; calls: string[] } {
  const calls: string[] = [];
  let exit!: (status: Deno.CommandStatus) => void;
  const [gateEnd, serverEnd] = messageChannel();
  const answer = (id: JsonRpcId, result: Record<string, unknown>) =>
    serverEnd.send({ jsonrpc: "2.0", id, result });
  serverEnd.onmessage = (message) => {
    if (!("method" in message) || !("id" in message)) return;
    if (message.method === "tools/list") {
      answer(message.id, { tools: [TOOL] });
    } else if (message.method === "tools/call") {
      const name = String(message.params?.name);
      calls.push(name);
      answer(message.id, { content: [{ type: "text", text: `ran ${name}` }] });
    }
  };
  serverEnd.start();
  const child: ServerProcess = {
    pid: 0,
    transport: gateEnd,
    closeStdin: () => {
      serverEnd.close();
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

/** Pins on a fresh file in `dir`, with what they audit and log. */
async function freshPins(
  dir: string,
  newTools: "allow" | "ask" | "deny",
) {
  const events: Record<string, unknown>[] = [];
  const lines: string[] = [];
  const audit: AuditSink = {
    write(record: AuditRecord | AuditToolEvent) {
      events.push({ ...record });
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
  const path = `${dir}/${crypto.randomUUID()}.json`;
  const open = () =>
    Pins.open(path, { newTools, audit, log: (line) => lines.push(line) });
  const pins = await open();
  const file = async () => JSON.parse(await Deno.readTextFile(path));
  return { pins, events, lines, file, open };
}

const page = (name: string, nextCursor?: string) => ({
  tools: [{ name, inputSchema: { type: "object" } }],
  ...(nextCursor === undefined ? {} : { nextCursor }),
});

Deno.test("Pins pins a first list only once it has ended", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "pins-draft-" });
  try {
    await t.step(
      "a page with a next cursor pins nothing yet; its tools are asked",
      async () => {
        const { pins, file } = await freshPins(dir, "ask");
        assert.equal(pins.recording, true);
        const shown = await pins.review(page("a", "2"));
        assert.deepEqual(shown.tools, page("a").tools);
        const state = await pins.check("a");
        assert.equal(state?.kind, "ask");
        assert.match(
          state.kind === "ask" ? state.why : "",
          /The tool "a" is not pinned yet: the server's tool list has not ended/,
        );
        await assert.rejects(file(), Deno.errors.NotFound);
        await pins.review(page("b"));
        assert.equal(pins.recording, false);
        assert.equal(await pins.check("a"), undefined);
        assert.deepEqual(Object.keys((await file()).tools), ["a", "b"]);
        await pins.close();
      },
    );

    await t.step(
      `a host's walk past ${MAX_LIST_PAGES} pages: nothing pinned, every tool new`,
      async () => {
        const { pins, events, lines, file, open } = await freshPins(
          dir,
          "deny",
        );
        for (let n = 1; n <= MAX_LIST_PAGES; n++) {
          await pins.review(page("a", String(n)));
        }
        assert.equal(pins.recording, true);
        // Added while the list never ended: once pinned silently.
        const shown = await pins.review(page("added", "x"));
        assert.deepEqual(shown.tools, []);
        assert.equal(pins.recording, false);
        assert.equal((await pins.check("a"))?.kind, "withheld");
        assert.equal((await pins.check("added"))?.kind, "withheld");
        const data = await file();
        assert.deepEqual(data.tools, {});
        assert.deepEqual(Object.keys(data.pending).sort(), ["a", "added"]);
        assert.match(
          lines[0],
          /the server's first tool list is not pinned: it did not end within 100 pages; its tools are new tools \(newTools: deny\)/,
        );
        assert.deepEqual(
          events.map((e) => [e.event, e.tool, e.action]),
          [["tool-added", "a", "withheld"], [
            "tool-added",
            "added",
            "withheld",
          ]],
        );
        await pins.close();
        // The next run does not pin them on sight either.
        const next = await open();
        assert.equal(next.recording, false);
        await next.review(page("a"));
        assert.equal((await next.check("a"))?.kind, "withheld");
        assert.deepEqual((await file()).tools, {});
        await next.close();
      },
    );

    await t.step(
      "the gate's own walk ending unfinished drops the first list",
      async () => {
        const { pins, file } = await freshPins(dir, "ask");
        await pins.review(page("a", "1"));
        await pins.unfinished("it gave a cursor twice");
        assert.equal(pins.recording, false);
        const state = await pins.check("a");
        assert.equal(state?.kind, "ask");
        assert.match(
          state.kind === "ask" ? state.why : "",
          /new since the server's tools were pinned \(newTools: ask\)/,
        );
        assert.deepEqual((await file()).tools, {});
        // Nothing is left to drop.
        await pins.unfinished("again");
        await pins.close();
      },
    );

    await t.step("with newTools allow, a dropped list is pinned", async () => {
      const { pins, file } = await freshPins(dir, "allow");
      await pins.review(page("a", "1"));
      assert.equal(await pins.check("a"), undefined);
      await pins.unfinished("it gave a cursor twice");
      assert.deepEqual(Object.keys((await file()).tools), ["a"]);
      await pins.close();
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
