// The gatekeeper in a running gate, in memory: the host and a scripted
// fake server are message channels in this process (testdata/in_memory.ts),
// so each decision is seen from both sides without a process.

import assert from "node:assert/strict";
import { Policy } from "../policy/mod.ts";
import type {
  AuditRecord,
  AuditSandboxEvent,
  AuditSink,
  AuditToolEvent,
} from "./audit/_audit.ts";
import { fixedPolicy } from "./policy/_policy_source.ts";
import { type Flow, type FlowState, parseFlows } from "./policy/_flows.ts";
import type { FlowStore } from "./_flow_store.ts";
import { RunningGate } from "./_running_gate.ts";
import {
  fakeServer,
  type FakeServerOptions,
  isCallOf,
  isProbe,
  memoryHost,
  type Message,
  plainTool,
  probedTool,
  probeResult,
} from "./testdata/in_memory.ts";

const INIT = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "host", version: "1" },
};
const ELICITING = { ...INIT, capabilities: { elicitation: {} } };

/** The patterns each probed call's `path` argument touches. */
function writes(request: Message): Record<string, unknown> | undefined {
  if (isProbe(request)) {
    return probeResult([`write:${request.params.arguments.path}`]);
  }
  if (request.method === "tools/call") {
    return {
      content: [{ type: "text", text: `ran ${request.params.name}` }],
      approved: request.params._meta?.["forge.approved_patterns"] ?? null,
    };
  }
  if (request.method === "ping") return {};
  return undefined;
}

/** A gate in memory with `rules`, a host that initialized with `init`, and the server. */
async function memoryGate(
  rules: ConstructorParameters<typeof Policy>[0],
  options: FakeServerOptions & {
    init?: Message;
    unprobed?: "allow";
    flows?: readonly Flow[];
    flowStore?: FlowStore;
  } = {},
) {
  const server = fakeServer({
    tools: options.tools ?? [probedTool("write"), plainTool("plain")],
    script: options.script ?? writes,
  });
  const host = memoryHost();
  const audited: (AuditRecord | AuditToolEvent | AuditSandboxEvent)[] = [];
  const audit: AuditSink = {
    write(record) {
      audited.push(record);
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
  const log: string[] = [];
  const gate = new RunningGate(server.child, {
    source: fixedPolicy({
      policy: new Policy(rules),
      unprobed: options.unprobed ?? "ask",
      tools: new Map(),
      ...(options.flows === undefined ? {} : { flows: options.flows }),
    }),
    ...(options.flowStore === undefined
      ? {}
      : { flowStore: options.flowStore }),
    audit,
    log: (line) => log.push(line),
    graceMs: 100,
    host: host.transport,
  });
  gate.start();
  await host.request("initialize", options.init ?? INIT, 1);
  await host.peer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return {
    gate,
    server,
    host,
    audited,
    log,
    /**
     * Resolves once every message the host sent so far has been handled:
     * a ping goes the same way, in order, and comes back.
     */
    async roundTrip(): Promise<void> {
      const answer = await host.request("ping");
      assert.deepEqual(answer.result, {});
    },
    async [Symbol.asyncDispose]() {
      await host.peer.close();
      await gate.finished;
    },
  };
}

Deno.test("gatekeeper forwards an allowed call after its probe, with the approved patterns", async () => {
  await using t = await memoryGate({ allow: ["write:notes/**"] });
  await t.host.call(2, "write", { path: "notes/a" });
  const answer = await t.host.answer(2);
  assert.deepEqual(answer.result, {
    content: [{ type: "text", text: "ran write" }],
    approved: ["write:notes/a"],
  });
  // The probe went first, as a request of the gate's own, then the call.
  const calls = t.server.peer.received.filter((m) => m.method === "tools/call");
  assert.deepEqual(calls.map(isProbe), [true, false]);
  assert.notEqual(calls[0].id, 2, "the probe goes under the gate's own id");
  assert.deepEqual(calls[0].params.arguments, { path: "notes/a" });
  assert.equal(calls[1].id, 2);
  assert.deepEqual(
    t.audited.map((line) => "outcome" in line ? line.outcome : line.event),
    ["forwarded"],
  );
});

Deno.test("gatekeeper refuses a denied call and the server never sees it", async () => {
  await using t = await memoryGate({
    allow: ["write:notes/**"],
    deny: ["write:secrets/**"],
  });
  await t.host.call(2, "write", { path: "secrets/key" });
  const answer = await t.host.answer(2);
  assert.equal(answer.result.isError, true);
  assert.match(answer.result.content[0].text, /write:secrets\/key/);
  await t.roundTrip();
  assert.equal(t.server.peer.received.filter(isCallOf("write")).length, 0);
  assert.equal(t.server.peer.received.filter(isProbe).length, 1);
  assert.equal((t.audited[0] as AuditRecord).outcome, "denied");
});

Deno.test("gatekeeper passes the probe's own failure back and runs nothing", async () => {
  await using t = await memoryGate({ allow: ["write:**"] }, {
    script: (request) =>
      isProbe(request)
        ? { content: [{ type: "text", text: "no such file" }], isError: true }
        : writes(request),
  });
  await t.host.call(2, "write", { path: "notes/a" });
  const answer = await t.host.answer(2);
  assert.deepEqual(answer.result, {
    content: [{ type: "text", text: "no such file" }],
    isError: true,
  });
  await t.roundTrip();
  assert.equal(t.server.peer.received.filter(isCallOf("write")).length, 0);
});

Deno.test("gatekeeper asks a host that elicits, and follows its answer", async (t) => {
  await using g = await memoryGate({ ask: ["write:drafts/**"] }, {
    init: ELICITING,
  });
  for (const [id, action] of [[2, "accept"], [3, "decline"]] as const) {
    await t.step(action, async () => {
      await g.host.call(id, "write", { path: `drafts/${id}` });
      const question = await g.host.peer.waitFor((m) =>
        m.method === "elicitation/create" &&
        JSON.stringify(m.params).includes(`drafts/${id}`)
      );
      await g.host.peer.send({
        jsonrpc: "2.0",
        id: question.id,
        result: action === "accept" ? { action, content: {} } : { action },
      });
      const answer = await g.host.answer(id);
      await g.roundTrip();
      const forwarded = g.server.peer.received.filter((m) =>
        isCallOf("write")(m) && m.id === id
      );
      if (action === "accept") {
        assert.equal(answer.result.isError, undefined);
        assert.deepEqual(answer.result.approved, [`write:drafts/${id}`]);
        assert.equal(forwarded.length, 1);
      } else {
        assert.equal(answer.result.isError, true);
        assert.match(answer.result.content[0].text, /declined/);
        assert.equal(forwarded.length, 0);
      }
    });
  }
});

Deno.test("gatekeeper drops a call the host cancels while its probe is pending", async () => {
  // The probe is left unanswered until the test answers it.
  await using t = await memoryGate({ allow: ["write:**"] }, {
    script: (request) => isProbe(request) ? undefined : writes(request),
  });
  await t.host.call(2, "write", { path: "notes/a" });
  const probe = await t.server.peer.waitFor(isProbe);
  await t.host.peer.send({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 2, reason: "changed my mind" },
  });
  // The server is told to stop the probe, under the probe's id.
  const cancelled = await t.server.peer.waitFor((m) =>
    m.method === "notifications/cancelled"
  );
  assert.equal(cancelled.params.requestId, probe.id);
  // Its late answer decides nothing: the call is never forwarded.
  await t.server.send({
    jsonrpc: "2.0",
    id: probe.id,
    result: probeResult(["write:notes/a"]),
  });
  await t.roundTrip();
  assert.equal(t.server.peer.received.filter(isCallOf("write")).length, 0);
  assert.deepEqual(t.host.peer.answersTo(2), []);
  assert.equal((t.audited[0] as AuditRecord).outcome, "cancelled");
});

Deno.test("gatekeeper lets an unprobed call through by the unprobed decision only", async (t) => {
  await t.step("unprobed: allow forwards it", async () => {
    await using g = await memoryGate({}, { unprobed: "allow" });
    await g.host.call(2, "plain");
    const answer = await g.host.answer(2);
    assert.deepEqual(answer.result.content, [{
      type: "text",
      text: "ran plain",
    }]);
    assert.equal(g.server.peer.received.filter(isProbe).length, 0);
  });
  await t.step(
    "unprobed: ask refuses it for a host that cannot be asked",
    async () => {
      await using g = await memoryGate({});
      await g.host.call(2, "plain");
      const answer = await g.host.answer(2);
      assert.equal(answer.result.isError, true);
      await g.roundTrip();
      assert.equal(g.server.peer.received.filter(isCallOf("plain")).length, 0);
    },
  );
});

const SECRET_FLOW = parseFlows([
  { after: ["write:secrets/**"], deny: ["write:out/**"] },
]);

/** A flow store in memory, as another instance's calls would leave it. */
class MemoryFlowStore implements FlowStore {
  state: FlowState = { triggers: [] };
  loads = 0;
  failLoad = false;
  failAdd = false;
  load(): Promise<FlowState> {
    this.loads++;
    if (this.failLoad) return Promise.reject(new Error("Redis is away"));
    return Promise.resolve(this.state);
  }
  add(added: FlowState): Promise<void> {
    if (this.failAdd) return Promise.reject(new Error("Redis is away"));
    this.state = { triggers: [...this.state.triggers, ...added.triggers] };
    return Promise.resolve();
  }
}

Deno.test("gatekeeper with a flow store decides each call by the history it reads then", async (t) => {
  const store = new MemoryFlowStore();
  await using g = await memoryGate({ allow: ["write:**"] }, {
    flows: SECRET_FLOW,
    flowStore: store,
  });
  await t.step(
    "a call set off elsewhere refuses this gate's call",
    async () => {
      // What another instance's call left in the store: this gate never saw it.
      store.state = {
        triggers: [["write:secrets/**", {
          tool: "write",
          pattern: "write:secrets/k",
          line: "d1",
        }]],
      };
      await g.host.call(2, "write", { path: "out/x" });
      const answer = await g.host.answer(2);
      assert.equal(answer.result.isError, true);
      assert.match(answer.result.content[0].text, /denied by flows\[0\]/);
      assert.equal(g.server.peer.received.filter(isCallOf("write")).length, 0);
    },
  );
  await t.step("forgotten by the store, the same call runs", async () => {
    store.state = { triggers: [] };
    await g.host.call(3, "write", { path: "out/x" });
    assert.equal((await g.host.answer(3)).result.isError, undefined);
  });
  await t.step(
    "what a forwarded call sets off is added to the store",
    async () => {
      await g.host.call(4, "write", { path: "secrets/k" });
      assert.equal((await g.host.answer(4)).result.isError, undefined);
      assert.deepEqual(store.state.triggers.map(([rule]) => rule), [
        "write:secrets/**",
      ]);
      await g.host.call(5, "write", { path: "out/y" });
      assert.equal((await g.host.answer(5)).result.isError, true);
    },
  );
});

Deno.test("gatekeeper refuses a call whose flow history it cannot read", async () => {
  const store = new MemoryFlowStore();
  store.failLoad = true;
  await using g = await memoryGate({ allow: ["write:**"] }, {
    flows: SECRET_FLOW,
    flowStore: store,
  });
  await g.host.call(2, "write", { path: "out/x" });
  const answer = await g.host.answer(2);
  assert.equal(answer.result.isError, true);
  assert.match(
    answer.result.content[0].text,
    /cannot read the caller's flow history: Redis is away\. Nothing was run\./,
  );
  await g.roundTrip();
  assert.equal(g.server.peer.received.filter(isCallOf("write")).length, 0);
  assert.equal((g.audited[0] as AuditRecord).decision, "error");
});

Deno.test("gatekeeper does not forward a call whose set-off rule it cannot keep", async () => {
  const store = new MemoryFlowStore();
  store.failAdd = true;
  await using g = await memoryGate({ allow: ["write:**"] }, {
    flows: SECRET_FLOW,
    flowStore: store,
  });
  await g.host.call(2, "write", { path: "secrets/k" });
  const answer = await g.host.answer(2);
  assert.match(
    answer.error?.message ?? "",
    /cannot keep what the call sets off in the caller's flow history/,
  );
  await g.roundTrip();
  assert.equal(g.server.peer.received.filter(isCallOf("write")).length, 0);
  // A call that sets nothing off needs no write, and runs.
  await g.host.call(3, "write", { path: "notes/a" });
  assert.equal((await g.host.answer(3)).result.isError, undefined);
});

Deno.test("gatekeeper with a flow store decides a file read by the history it reads", async (t) => {
  const store = new MemoryFlowStore();
  await using g = await memoryGate({ allow: ["write:**"] }, {
    unprobed: "allow",
    // Without roots a read's effects are unknown: unprobed.
    flows: parseFlows([{ after: ["write:secrets/**"], deny: ["unprobed"] }]),
    flowStore: store,
    script: (request) =>
      request.method === "resources/read"
        ? { contents: [{ uri: request.params.uri, text: "x" }] }
        : writes(request),
  });
  await t.step("set off elsewhere, the read is refused", async () => {
    store.state = {
      triggers: [["write:secrets/**", {
        tool: "write",
        pattern: "write:secrets/k",
      }]],
    };
    const answer = await g.host.request("resources/read", {
      uri: "file:///srv/a",
    });
    assert.match(answer.error?.message ?? "", /denied by flows\[0\]/);
  });
  await t.step("its history unreadable, the read is refused", async () => {
    store.failLoad = true;
    const answer = await g.host.request("resources/read", {
      uri: "file:///srv/a",
    });
    assert.match(
      answer.error?.message ?? "",
      /cannot read the caller's flow history/,
    );
  });
  await t.step("forgotten by the store, the read runs", async () => {
    store.failLoad = false;
    store.state = { triggers: [] };
    const answer = await g.host.request("resources/read", {
      uri: "file:///srv/a",
    });
    assert.equal(answer.error, undefined, JSON.stringify(answer));
  });
  assert.equal(
    g.server.peer.received.filter((m) => m.method === "resources/read").length,
    1,
  );
});
