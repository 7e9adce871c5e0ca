// Many concurrent calls through one gate, allowed and denied, under ids that
// collide with the gate's own: every answer reaches its own caller, carries
// its own approval, and nothing denied reaches the server.

import assert from "node:assert/strict";
import {
  callTool,
  FAKE_COMMAND,
  HELLO_COMMAND,
  type Message,
  rpc,
  startGateProcess,
  textOf,
} from "./testdata/gate_process.ts";

const CALLS = 10_000;

Deno.test("gate keeps 10 000 concurrent calls apart and lets no denied one through", async () => {
  const dir = await Deno.makeTempDir();
  const policy = `${dir}/policy.yaml`;
  await Deno.writeTextFile(
    policy,
    'allow: ["x-fake:**", "write:ok/**"]\ndeny: ["write:no/**"]\nunprobed: allow\n',
  );
  try {
    await using gate = await startGateProcess(
      ["--policy", policy, "--audit", `${dir}/audit.jsonl`],
      FAKE_COMMAND,
    );
    const ids = (i: number) =>
      [i, `forge-gate:${i}`, `forge-gate:r${i}`, `x${i}`][i % 4];
    const answers = await Promise.all(
      Array.from(
        { length: CALLS },
        (_, i) =>
          callTool(
            gate,
            "probed",
            { patterns: [`write:${i % 3 === 0 ? "no" : "ok"}/${i}`] },
            // Half the calls try to smuggle an approval of what is denied.
            i % 2 === 0
              ? { "forge.approved_patterns": [`write:no/${i}`] }
              : undefined,
            ids(i),
          ),
      ),
    );
    answers.forEach((answer: Message, i) => {
      assert.equal(answer.id, ids(i));
      if (i % 3 === 0) {
        assert.equal(answer.result.isError, true);
        assert.match(textOf(answer), new RegExp(`write:no/${i} denied`));
      } else {
        assert.doesNotMatch(
          textOf(answer),
          /^This call/,
          `call ${i}: ${textOf(answer)}`,
        );
        assert.deepEqual(JSON.parse(textOf(answer)), {
          "forge.approved_patterns": ["x-fake:always", `write:ok/${i}`],
        });
      }
    });
    const { approvals } = JSON.parse(textOf(await callTool(gate, "seen")));
    assert.equal(approvals.length, CALLS - Math.ceil(CALLS / 3));
    for (const approved of approvals) {
      assert.equal(approved.length, 2);
      assert.match(approved[1], /^write:ok\//);
    }
    assert.equal((await gate.close()).code, 0);
    const audit = (await Deno.readTextFile(`${dir}/audit.jsonl`)).trim()
      .split("\n").map((line) => JSON.parse(line));
    assert.equal(audit.length, CALLS + 1); // and the "seen" call
    assert.equal(
      audit.filter((r) => r.decision === "deny").length,
      Math.ceil(CALLS / 3),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const ROUNDS = 2_000;

Deno.test("gate runs nothing on a flood of forged or replayed 2026-07-28 approvals while allowed calls go through", async () => {
  const dir = await Deno.makeTempDir();
  const root = `${dir}/root`;
  await Deno.mkdir(root);
  const policy = `${dir}/policy.yaml`;
  await Deno.writeTextFile(
    policy,
    'allow: ["write:notes/**"]\nask: ["write:drafts/**"]\n',
  );
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
    "io.modelcontextprotocol/clientInfo": { name: "flood", version: "1" },
  };
  const KEY = "forge-gate/approval";
  try {
    await using gate = await startGateProcess(
      ["--policy", policy],
      HELLO_COMMAND,
      { env: { HELLO_ROOT: root }, capabilities: null },
    );
    // A genuine approval question for drafts/real.md, to replay elsewhere.
    const real = await callTool(gate, "write_file", {
      path: "drafts/real.md",
      content: "x",
    }, meta);
    const realState = real.result.requestState;
    assert.equal(typeof realState, "string");
    const answers = await Promise.all(
      Array.from({ length: ROUNDS }, (_, i) => {
        if (i % 2 === 1) {
          return callTool(gate, "write_file", {
            path: `notes/${i}.txt`,
            content: "ok",
          }, meta);
        }
        // Forged, or the real state replayed for other arguments.
        const requestState = i % 4 === 0 ? `${realState}${i}` : realState;
        return rpc(gate, "tools/call", {
          name: "write_file",
          arguments: { path: `drafts/${i}.md`, content: "no" },
          inputResponses: { [KEY]: { action: "accept" } },
          requestState,
          _meta: meta,
        });
      }),
    );
    answers.forEach((answer: Message, i) => {
      if (i % 2 === 1) {
        assert.equal(textOf(answer), "Wrote 2 bytes to notes/" + i + ".txt");
      } else if (i % 4 === 0) {
        // A forged state is refused; never taken for a server's round.
        assert.equal(answer.error?.code, -32602, `call ${i}`);
      } else {
        assert.equal(answer.result.resultType, "input_required", `call ${i}`);
      }
    });
    const drafts = [];
    try {
      for await (const entry of Deno.readDir(`${root}/drafts`)) {
        drafts.push(entry.name);
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    assert.deepEqual(drafts, [], "nothing asked about was written");
    let notes = 0;
    for await (const _ of Deno.readDir(`${root}/notes`)) notes++;
    assert.equal(notes, ROUNDS / 2);
    assert.equal((await gate.close()).code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
