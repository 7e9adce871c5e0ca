// The audit line of a forwarded call is written before the call reaches
// the server: a gate killed in between leaves no call run without its line.

import assert from "node:assert/strict";
import { Policy } from "../policy/mod.ts";
import type {
  AuditRecord,
  AuditSandboxEvent,
  AuditSink,
  AuditToolEvent,
} from "./audit/_audit.ts";
import { fixedPolicy } from "./policy/_policy_source.ts";
import { RunningGate } from "./_running_gate.ts";
import type { ServerProcess } from "./upstream/_server_process.ts";
import { until } from "../testing/_until.ts";
import { messageChannel } from "../jsonrpc/_message_channel.ts";
import type { JsonRpcMessage } from "../jsonrpc/types.ts";
import {
  FAKE_COMMAND,
  type Message,
  startGateProcess,
} from "./testdata/gate_process.ts";

const encoder = new TextEncoder();

/** A server in memory: what the gate sends it, and a way to answer. */
function streamServer() {
  const written: Record<string, unknown>[] = [];
  let arrived: () => void = () => {};
  let exit!: (status: Deno.CommandStatus) => void;
  const [gateEnd, serverEnd] = messageChannel();
  serverEnd.onmessage = (message) => {
    written.push(message);
    arrived();
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
  return {
    child,
    written,
    answer: (message: unknown) => serverEnd.send(message as JsonRpcMessage),
    /** Resolves once a message `match` picks has reached the server. */
    received(match: (m: Record<string, unknown>) => boolean) {
      return new Promise<Record<string, unknown>>((resolve) => {
        const check = () => {
          const found = written.find(match);
          if (found !== undefined) resolve(found);
        };
        arrived = check;
        check();
      });
    },
  };
}

Deno.test("a forwarded call reaches the server only once its audit line is written", async () => {
  const server = streamServer();
  const lines: (AuditRecord | AuditToolEvent | AuditSandboxEvent)[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  const audit: AuditSink = {
    write(record) {
      lines.push(record);
      return held;
    },
    close: () => Promise.resolve(),
  };
  const host = new TransformStream<Uint8Array, Uint8Array>();
  const answers = new TransformStream<Uint8Array, Uint8Array>();
  const gate = new RunningGate(server.child, {
    source: fixedPolicy({
      policy: new Policy({}),
      unprobed: "allow",
      tools: new Map(),
    }),
    audit,
    log: () => {},
    graceMs: 100,
    readable: host.readable,
    writable: answers.writable,
  });
  gate.start();
  const writer = host.writable.getWriter();
  await writer.write(encoder.encode(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "plain", arguments: {} },
    }) + "\n",
  ));
  // The gate lists the tools itself first.
  const list = await server.received((m) => m.method === "tools/list");
  server.answer({
    jsonrpc: "2.0",
    id: list.id,
    result: { tools: [{ name: "plain", inputSchema: { type: "object" } }] },
  });
  // The line is being written; the call has not gone out.
  await until("the audit line is being written", () => lines.length === 1);
  assert.equal((lines[0] as AuditRecord).tool, "plain");
  assert.equal(server.written.some((m) => m.method === "tools/call"), false);
  release();
  const call = await server.received((m) => m.method === "tools/call");
  assert.equal((call.params as { name: string }).name, "plain");
  await writer.close();
  await answers.readable.cancel();
  await gate.close();
});

Deno.test("a gate killed right after forwarding a call has its audit line on disk", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gate-audit-" });
  const policy = `${dir}/policy.yaml`;
  const audit = `${dir}/audit.jsonl`;
  await Deno.writeTextFile(policy, "unprobed: allow\n");
  await using gate = await startGateProcess(
    ["--policy", policy, "--audit", audit],
    FAKE_COMMAND,
  );
  // ask_host asks the host for its roots as soon as the call reaches it.
  await gate.sendMessage({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "ask_host", arguments: {} },
  });
  await gate.next((m: Message) => m.method === "roots/list");
  gate.kill("SIGKILL");
  await gate.status;
  const lines = (await Deno.readTextFile(audit)).trimEnd().split("\n")
    .map((line) => JSON.parse(line));
  await Deno.remove(dir, { recursive: true });
  assert.equal(lines.length, 1);
  assert.equal(lines[0].tool, "ask_host");
  assert.equal(lines[0].outcome, "forwarded");
});
