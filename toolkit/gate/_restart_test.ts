// RunningGate.restartServer(), which a sandboxed gate uses when a reload
// changes the fence: the calls under way finish on the old server, the
// host's new requests wait and go to the new one, after its initialize.

import assert from "node:assert/strict";
import { Policy } from "../policy/mod.ts";
import { fixedPolicy } from "./policy/_policy_source.ts";
import { RunningGate } from "./_running_gate.ts";
import type { ServerProcess } from "./upstream/_server_process.ts";
import { hostStreams } from "./testdata/host_streams.ts";
import { messageChannel } from "../jsonrpc/_message_channel.ts";
import type { JsonRpcMessage } from "../jsonrpc/types.ts";

type Message = Record<string, unknown>;

/** A server in memory, which records what it is sent and when it is closed. */
function streamServer(name: string, events: string[]) {
  const written: Message[] = [];
  const waiters = new Set<() => void>();
  let exit!: (status: Deno.CommandStatus) => void;
  const [gateEnd, serverEnd] = messageChannel();
  serverEnd.onmessage = (message) => {
    written.push(message);
    events.push(
      `${name} got ${
        "method" in message ? message.method : `answer ${message.id}`
      }`,
    );
    for (const check of waiters) check();
  };
  serverEnd.start();
  const child: ServerProcess = {
    pid: name === "old" ? 1 : 2,
    transport: gateEnd,
    closeStdin: () => {
      events.push(`${name} stdin closed`);
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
    answer(message: Message) {
      events.push(`${name} answers ${message.id}`);
      serverEnd.send(message as JsonRpcMessage);
    },
    /** Resolves once a message `match` picks has reached the server. */
    received(match: (m: Message) => boolean): Promise<Message> {
      return new Promise((resolve) => {
        const check = () => {
          const found = written.find(match);
          if (found === undefined) return;
          waiters.delete(check);
          resolve(found);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

Deno.test("restartServer() lets a request under way finish, holds the host's new ones, and gives them to the new server after its initialize", async () => {
  const events: string[] = [];
  const old = streamServer("old", events);
  const next = streamServer("new", events);
  const host = hostStreams();
  const gate = new RunningGate(old.child, {
    source: fixedPolicy({
      policy: new Policy({}),
      unprobed: "allow",
      tools: new Map(),
    }),
    audit: undefined,
    log: () => {},
    graceMs: 100,
    readable: host.readable,
    writable: host.writable,
  });
  gate.start();
  const init = {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "t", version: "1" },
  };
  await host.send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: init,
  });
  const initialize = await old.received((m) => m.method === "initialize");
  old.answer({ jsonrpc: "2.0", id: initialize.id!, result: { from: "old" } });
  assert.deepEqual((await host.next()).result, { from: "old" });
  await host.send({ jsonrpc: "2.0", method: "notifications/initialized" });

  // A request under way on the old server.
  await host.send({ jsonrpc: "2.0", id: 2, method: "resources/list" });
  const underWay = await old.received((m) => m.method === "resources/list");
  const restarted = gate.restartServer(() => {
    events.push("spawned");
    return Promise.resolve(next.child);
  });
  await host.send({ jsonrpc: "2.0", id: 3, method: "resources/list" });
  // A gate that does not wait closes the old server now. Only a wrong gate
  // can make this check fail; a right one passes it however long it waits.
  const stillOpen = await Promise.race([
    old.child.status.then(() => false),
    new Promise<true>((resolve) => setTimeout(() => resolve(true), 100)),
  ]);
  assert.equal(
    stillOpen,
    true,
    "the old server was stopped with a request under way",
  );
  // Answered by the old server, whose stdin is still open.
  old.answer({ jsonrpc: "2.0", id: underWay.id!, result: { from: "old" } });
  const second = await host.next();
  assert.deepEqual([second.id, second.result], [2, { from: "old" }]);

  const reinit = await next.received((m) => m.method === "initialize");
  assert.deepEqual(reinit.params, init);
  next.answer({ jsonrpc: "2.0", id: reinit.id!, result: { from: "new" } });
  const held = await Promise.race([
    next.received((m) => m.method === "resources/list"),
    old.received((m) => m.method === "resources/list" && m !== underWay)
      .then(() => assert.fail("the held request went to the old server")),
  ]);
  next.answer({ jsonrpc: "2.0", id: held.id!, result: { from: "new" } });
  const third = await host.next();
  assert.deepEqual([third.id, third.result], [3, { from: "new" }]);
  await restarted;
  assert.equal(gate.pid, 2);
  assert.deepEqual(events, [
    "old got initialize",
    "old answers 1",
    "old got notifications/initialized",
    "old got resources/list",
    `old answers ${underWay.id}`,
    "old stdin closed",
    "spawned",
    "new got initialize",
    `new answers ${reinit.id}`,
    "new got notifications/initialized",
    "new got resources/list",
    `new answers ${held.id}`,
  ]);
  // The old server's exit did not end the gate: it still answers.
  await host.send({ jsonrpc: "2.0", id: 4, method: "ping" });
  const ping = await next.received((m) => m.method === "ping");
  next.answer({ jsonrpc: "2.0", id: ping.id!, result: {} });
  assert.equal((await host.next()).id, 4);
  await host.end();
  host.drain();
  await gate.close();
});
