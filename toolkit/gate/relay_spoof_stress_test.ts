// A malicious server sprays answers under ids it was never sent (the
// twins of real ids, replays of answered ones, the ids of calls the gate
// denied or is still asking about) while a host works through it: the host
// gets exactly one answer per request, the real one, and nothing else.

import assert from "node:assert/strict";
import {
  type Message,
  startGateProcess,
  textOf,
} from "./testdata/gate_process.ts";

const SPOOFING = new URL("./testdata/spoofing_server.ts", import.meta.url)
  .pathname;

const ALLOWED = 200;
const DENIED = 30;
const ASKED = 10;

Deno.test("gate passes only real answers while a server sprays answers for ids it was not sent", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gate-spoof-" });
  const policy = `${dir}/policy.yaml`;
  await Deno.writeTextFile(
    policy,
    "tools:\n  note: allow\n  blocked: deny\n  asked: ask\n",
  );
  const calls = new Map<number, { name: string; tag: string }>();
  for (let i = 0; i < ALLOWED; i++) {
    calls.set(1000 + i, { name: "note", tag: `ok-${i}` });
  }
  for (let i = 0; i < DENIED; i++) {
    calls.set(2000 + i, { name: "blocked", tag: `no-${i}` });
  }
  for (let i = 0; i < ASKED; i++) {
    calls.set(3000 + i, { name: "asked", tag: `ask-${i}` });
  }
  // Every id the gate answers itself or has not forwarded yet, both types,
  // and ids no request ever had.
  const never = [
    ...[...calls.keys()].filter((id) => id >= 2000),
    ...Array.from({ length: 10 }, (_, i) => 5000 + i),
  ];
  const sprayed = [...never, ...never.map(String)];
  await using gate = await startGateProcess(
    ["--policy", policy],
    [Deno.execPath(), "run", "--allow-env", SPOOFING],
    {
      capabilities: { elicitation: {} },
      env: { SPOOF_FLOOD: "1", SPOOF_IDS: JSON.stringify(sprayed) },
    },
  );
  const since = gate.messages.length;
  await Promise.all(
    [...calls].map(([id, { name, tag }]) =>
      gate.sendMessage({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name, arguments: { tag } },
      })
    ),
  );
  const answers = new Map<number, Message>();
  for (const id of calls.keys()) {
    if (id < 3000) answers.set(id, await gate.response(id));
  }
  // The asked calls waited all along; now the user answers them one by
  // one, each while the others still wait (and are sprayed).
  for (let i = 0; i < ASKED; i++) {
    const question = await gate.next((m) =>
      m.method === "elicitation/create" &&
      String(m.params?.message).includes(`"ask-${i}"`), { since });
    const action = i % 2 === 0 ? "accept" : "decline";
    await gate.sendMessage({
      jsonrpc: "2.0",
      id: question.id,
      result: action === "accept" ? { action, content: {} } : { action },
    });
    answers.set(3000 + i, await gate.response(3000 + i));
  }

  for (const [id, { name, tag }] of calls) {
    const answer = answers.get(id)!;
    if (name === "note" || (name === "asked" && (id - 3000) % 2 === 0)) {
      assert.equal(textOf(answer), `ran ${name} ${tag}`, `call ${id}`);
    } else {
      assert.equal(answer.result?.isError, true, `call ${id}`);
      assert.match(
        textOf(answer),
        name === "blocked" ? /refuses/ : /declined/,
        `call ${id}`,
      );
    }
  }
  // One answer per request, under its own id, and nothing spoofed.
  const received = gate.messages.slice(since).filter((m: Message) =>
    m.method === undefined
  );
  assert.equal(received.length, calls.size);
  assert.deepEqual(
    received.map((m: Message) => m.id).sort(),
    [...calls.keys()].sort(),
  );
  assert.ok(!gate.lines.some((line) => line.includes("spoofed")));
  // The gate said what it dropped: the first few each, then counts, so a
  // spraying server cannot flood the host's stderr.
  await gate.waitForStderr(/dropped 1000 more answers from the server/);
  const said = gate.stderrLines.filter((line) => line.includes("dropped"));
  const each = said.filter((line) => line.includes("dropped an answer"));
  assert.equal(each.length, 10, each.join("\n"));
  const counted = said.length - each.length;
  const total = Number(/\((\d+) in all\)/.exec(said.at(-1)!)?.[1]);
  assert.equal(counted, (total - 10) / 1000, said.join("\n"));
});
