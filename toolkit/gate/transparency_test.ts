// The gate is transparent: the everything server (tools, resources,
// prompts, completions, logging, progress, sampling, elicitation,
// subscriptions, cancellation) answers the same requests the same way
// directly and behind the gate under a policy that allows everything. Both
// run as real processes and are spoken to by one raw newline-delimited
// JSON-RPC client, so the comparison is of the bytes a host would parse.
import assert from "node:assert/strict";
import { RpcError } from "../testing/testing.ts";
import { spawnStdio, type StdioClient } from "../testing/stdio_client.ts";

const REPO = new URL("../../", import.meta.url).pathname;
const EVERYTHING = `${REPO}examples/everything/main.ts`;
const GATE = `${REPO}toolkit/gate/main.ts`;

type Message = Record<string, unknown>;
type Id = string | number;

/** What a host answers when the server asks it something. */
function answerServer(
  method: string,
  params: Record<string, unknown> | undefined,
): unknown {
  switch (method) {
    case "sampling/createMessage":
      return {
        role: "assistant",
        model: "fake-model",
        content: {
          type: "text",
          text: `echo of ${JSON.stringify(params?.messages)}`,
        },
        stopReason: "endTurn",
      };
    case "elicitation/create":
      return {
        action: "accept",
        content: { username: "ada", email: "ada@example.com" },
      };
    case "roots/list":
      return { roots: [{ uri: "file:///tmp", name: "tmp" }] };
    default:
      throw new RpcError(-32601, "Method not found");
  }
}

/** One step of the script: what a host sends, then waits for. */
interface Step {
  name: string;
  run(host: StdioClient): Promise<void>;
}

function request(id: Id, method: string, params?: Message): Step {
  return {
    name: `${method} ${JSON.stringify(params ?? {})}`,
    run: async (host) => {
      await host.exchange(method, params, { id });
    },
  };
}

function notify(method: string, params?: Message): Step {
  return {
    name: method,
    run: (host) => host.notify(method, params),
  };
}

function call(id: Id, name: string, args: Message = {}, meta?: Message): Step {
  return request(id, "tools/call", {
    name,
    arguments: args,
    ...(meta === undefined ? {} : { _meta: meta }),
  });
}

const SCRIPT: Step[] = [
  request(1, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: { sampling: {}, elicitation: {}, roots: {} },
    clientInfo: { name: "transparency-test", version: "1.0.0" },
  }),
  notify("notifications/initialized"),
  request(2, "ping"),
  request("list-tools", "tools/list"),
  request(3, "resources/list"),
  request(4, "resources/templates/list"),
  request(5, "resources/read", { uri: "test://static-text" }),
  request(6, "resources/read", { uri: "test://static-binary" }),
  request(7, "resources/read", { uri: "test://template/42/data" }),
  request(8, "resources/read", { uri: "test://no-such-resource" }),
  request(9, "prompts/list"),
  request(10, "prompts/get", { name: "test_simple_prompt" }),
  request(11, "prompts/get", {
    name: "test_prompt_with_arguments",
    arguments: { arg1: "a", arg2: "b" },
  }),
  request(12, "completion/complete", {
    ref: { type: "ref/resource", uri: "test://template/{id}/data" },
    argument: { name: "id", value: "4" },
  }),
  request(13, "logging/setLevel", { level: "info" }),
  call(14, "test_simple_text"),
  call(15, "test_image_content"),
  call(16, "test_audio_content"),
  call(17, "test_multiple_content_types"),
  call(18, "test_error_handling"),
  call(19, "json_schema_2020_12_tool", { name: "Ada", address: { city: "L" } }),
  call(20, "json_schema_2020_12_tool", { nope: 1 }),
  call(21, "test_tool_with_logging"),
  call(22, "test_tool_with_progress", {}, { progressToken: "progress-1" }),
  call(23, "test_sampling", { prompt: "Say hi" }),
  call(24, "test_elicitation", { message: "Who are you?" }),
  request(25, "resources/subscribe", { uri: "test://watched-resource" }),
  call(26, "update_watched_resource"),
  request(31, "resources/read", { uri: "test://watched-resource" }),
  call(27, "no_such_tool"),
  request(28, "no/such/method"),
  {
    name: "a call cancelled while it runs gets no answer",
    run: async (host) => {
      // Cancelled once the server says it runs (its first progress): a gate
      // still deciding the call must not let the cancellation overtake it.
      const since = host.messages.length;
      await host.sendMessage({
        jsonrpc: "2.0",
        id: "cancel-me",
        method: "tools/call",
        params: {
          name: "test_tool_with_progress",
          arguments: {},
          _meta: { progressToken: "cancel-me" },
        },
      });
      await host.next((m) =>
        m.method === "notifications/progress" &&
        m.params?.progressToken === "cancel-me", { since });
      await host.notify("notifications/cancelled", {
        requestId: "cancel-me",
        reason: "test",
      });
      await host.exchange("ping", undefined, { id: 29 });
      // Uncancelled, the call would answer after a fixed time: the same
      // call started later answers after it would have.
      await host.exchange("tools/call", {
        name: "test_tool_with_progress",
        arguments: {},
      }, { id: "after-cancel" });
    },
  },
  request(30, "ping"),
];

/** The `_meta` a 2026-07-28 host sends on every request. */
const ERA_2026 = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {
    sampling: {},
    elicitation: {},
  },
  "io.modelcontextprotocol/clientInfo": {
    name: "transparency-test",
    version: "1.0.0",
  },
};

/** The same host speaking 2026-07-28: no initialize, the revision in every request. */
const SCRIPT_2026: Step[] = [
  request(1, "server/discover", { _meta: ERA_2026 }),
  request(2, "tools/list", { _meta: ERA_2026 }),
  call(3, "test_simple_text", {}, ERA_2026),
  call(4, "json_schema_2020_12_tool", { nope: 1 }, ERA_2026),
  {
    name: "a tool's own input-required round, answered",
    run: async (host) => {
      const params = {
        name: "test_input_required_result_elicitation",
        arguments: {},
        _meta: ERA_2026,
      };
      const first = await host.exchange("tools/call", params, { id: 5 });
      const { requestState } = first.result as Message;
      await host.exchange("tools/call", {
        ...params,
        inputResponses: {
          user_name: { action: "accept", content: { name: "Ada" } },
        },
        requestState,
      }, { id: 6 });
    },
  },
  request(7, "resources/read", { uri: "test://static-text", _meta: ERA_2026 }),
  request(8, "prompts/get", { name: "test_simple_prompt", _meta: ERA_2026 }),
  call(9, "no_such_tool", {}, ERA_2026),
  request(10, "ping", { _meta: ERA_2026 }),
  call(11, "test_simple_text", {}, {
    ...ERA_2026,
    "io.modelcontextprotocol/protocolVersion": "1999-01-01",
  }),
];

/**
 * Volatile parts of the transcript: a timestamp, the server's own request
 * ids, and a requestState (signed with a key of each server process).
 */
function normalise(message: Message): Message {
  const text = JSON.stringify(message).replace(
    /\\"updatedAt\\":\\"[^"\\]*\\"/g,
    '\\"updatedAt\\":\\"<time>\\"',
  );
  const copy = JSON.parse(text) as Message;
  if (typeof copy.method === "string" && "id" in copy) copy.id = "<server id>";
  const result = copy.result as Message | undefined;
  if (typeof result?.requestState === "string") result.requestState = "<state>";
  return copy;
}

/**
 * Runs `script` and returns, per step, every message received during it.
 * Each step ends with a ping (with `pingParams`) whose answer is left out:
 * the server answers it only after writing whatever it sent for the step,
 * so a notification sent right after an answer still lands in its step.
 */
async function transcript(
  command: string[],
  script: Step[],
  pingParams?: Message,
): Promise<{
  steps: { step: string; received: Message[] }[];
  status: Deno.CommandStatus;
  stderr: string;
}> {
  await using host = spawnStdio(command[0], command.slice(1), {
    env: { NO_COLOR: "1" },
    onRequest: answerServer,
  });
  const steps = [];
  for (const [n, step] of script.entries()) {
    const before = host.messages.length;
    await step.run(host);
    const barrier = `barrier-${n}`;
    await host.exchange("ping", pingParams, { id: barrier });
    steps.push({
      step: step.name,
      received: host.messages.slice(before)
        .filter((m) => m.id !== barrier)
        .map((m) => normalise(m as unknown as Message)),
    });
  }
  const status = await host.close();
  assert.deepEqual(host.violations, [], "stdout lines that are not JSON-RPC");
  return { steps, status, stderr: host.stderr };
}

const SERVER = [Deno.execPath(), "run", "-A", EVERYTHING];

/** The server behind the gate with `policy`. */
function gatedServer(policy: string): string[] {
  return [
    Deno.execPath(),
    "run",
    "-A",
    GATE,
    "--policy",
    policy,
    "--",
    ...SERVER,
  ];
}

/** A policy file that lets everything through, in a new directory. */
async function allowAll(): Promise<{ dir: string; policy: string }> {
  const dir = await Deno.makeTempDir({ prefix: "gate-transparency-" });
  const policy = `${dir}/policy.json`;
  await Deno.writeTextFile(
    policy,
    JSON.stringify({
      allow: ["read:**", "write:**", "delete:**", "exec:**", "net:*://**"],
      unprobed: "allow",
    }),
  );
  return { dir, policy };
}

Deno.test("the everything server answers every request the same way through the gate as directly", async () => {
  const { dir, policy } = await allowAll();
  try {
    const [direct, gated] = await Promise.all([
      transcript(SERVER, SCRIPT),
      transcript(gatedServer(policy), SCRIPT),
    ]);
    assert.equal(direct.status.code, 0, direct.stderr);
    assert.equal(gated.status.code, 0, gated.stderr);
    for (let i = 0; i < SCRIPT.length; i++) {
      assert.deepEqual(
        gated.steps[i],
        direct.steps[i],
        `step ${i}: ${SCRIPT[i].name}\ngate stderr:\n${gated.stderr}`,
      );
    }

    // The comparison is only worth something if the script reached every part.
    const all = direct.steps.flatMap((s) => s.received);
    const methods = new Set(all.map((m) => m.method).filter(Boolean));
    for (
      const method of [
        "notifications/progress",
        "notifications/message",
        "notifications/resources/updated",
        "sampling/createMessage",
        "elicitation/create",
      ]
    ) {
      assert.ok(methods.has(method), `the script never saw ${method}`);
    }
    const answered = new Set(
      all.filter((m) => !("method" in m)).map((m) => m.id),
    );
    assert.ok(answered.has("list-tools"), "string ids answered as sent");
    assert.equal(
      answered.has("cancel-me"),
      false,
      "a cancelled call is not answered",
    );
    const byId = (id: Id) => all.find((m) => m.id === id && !("method" in m));
    assert.deepEqual(byId(2), { jsonrpc: "2.0", id: 2, result: {} });
    assert.match(
      JSON.stringify(byId(23)),
      /LLM response: echo of .*Say hi/,
    );
    assert.match(JSON.stringify(byId(24)), /action=accept.*ada@example\.com/);
    assert.equal((byId(18)?.result as Message).isError, true);
    assert.equal((byId(27)?.error as Message).code, -32602);
    assert.equal((byId(28)?.error as Message).code, -32601);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a 2026-07-28 host's requests are answered the same way through the gate as directly", async () => {
  const { dir, policy } = await allowAll();
  try {
    const [direct, gated2026] = await Promise.all([
      transcript(SERVER, SCRIPT_2026, { _meta: ERA_2026 }),
      transcript(gatedServer(policy), SCRIPT_2026, { _meta: ERA_2026 }),
    ]);
    assert.equal(gated2026.status.code, 0, gated2026.stderr);
    for (let i = 0; i < SCRIPT_2026.length; i++) {
      assert.deepEqual(
        gated2026.steps[i],
        direct.steps[i],
        `step ${i}: ${SCRIPT_2026[i].name}\ngate stderr:\n${gated2026.stderr}`,
      );
    }
    // The script reached what it means to compare.
    const answers = direct.steps.flatMap((s) => s.received)
      .filter((m) => !("method" in m));
    const byId = (id: Id) => answers.find((m) => m.id === id);
    assert.equal((byId(3)?.result as Message).resultType, "complete");
    assert.equal((byId(5)?.result as Message).resultType, "input_required");
    assert.match(JSON.stringify(byId(6)), /Hello, Ada!/);
    assert.equal((byId(9)?.error as Message).code, -32602);
    assert.equal((byId(10)?.error as Message).code, -32601);
    assert.ok(byId(11)?.error !== undefined, "an unknown revision is refused");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
