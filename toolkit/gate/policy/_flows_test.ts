import assert from "node:assert/strict";
import { type Flow, FlowSession, parseFlows } from "./_flows.ts";
import { parsePolicyText } from "./_policy_source.ts";
import { probedVerdict, unprobedVerdict, type Verdict } from "./_decide.ts";
import { Policy } from "../../policy/mod.ts";

const ALLOW_ALL = new Policy({
  allow: ["read:**", "write:**", "net:**", "exec:**"],
});

function allowed(tool: string, patterns: string[]): Verdict {
  return probedVerdict(tool, patterns, ALLOW_ALL.evaluate(patterns));
}

function call(tool: string, patterns: readonly string[], unknown = false) {
  return { tool, patterns, unknown };
}

const FLOWS: readonly Flow[] = parseFlows([
  { after: ["read:secrets/**"], deny: ["net:**", "exec:**"] },
  { after: ["net:**"], ask: ["write:**", "exec:**", "unprobed"] },
]);

Deno.test("FlowSession tightens, never loosens, once a flow is set off", async (t) => {
  const session = new FlowSession();
  await t.step("nothing applies before a call met an after rule", () => {
    const verdict = allowed("fetch", ["net:https://x.dev"]);
    assert.equal(
      session.tighten(FLOWS, call("fetch", verdict.patterns), verdict),
      verdict,
    );
  });
  await t.step("a read of the whole root meets read:secrets/**", () => {
    session.forwarded(FLOWS, call("tree", ["read:**"]), "d1");
    const verdict = allowed("fetch", ["net:https://x.dev"]);
    const tightened = session.tighten(
      FLOWS,
      call("fetch", verdict.patterns),
      verdict,
    );
    assert.equal(tightened.decision, "deny");
    assert.equal(tightened.rule, "net:**");
    assert.deepEqual("flow" in tightened && tightened.flow, {
      name: "flows[0]",
      trigger: { tool: "tree", pattern: "read:**", line: "d1" },
    });
  });
  await t.step("a denied call stays denied by its own rule", () => {
    const denying = new Policy({ deny: ["net:**"] });
    const verdict = probedVerdict(
      "fetch",
      ["net:https://x.dev"],
      denying.evaluate(["net:https://x.dev"]),
    );
    const tightened = session.tighten(
      FLOWS,
      call("fetch", verdict.patterns),
      verdict,
    );
    assert.equal(tightened, verdict);
  });
  await t.step(
    "an unprobed call is asked after the network was reached",
    () => {
      const verdict = unprobedVerdict("plain", "allow");
      assert.equal(
        session.tighten(FLOWS, call("plain", [], true), verdict),
        verdict,
      );
      session.forwarded(FLOWS, call("fetch", ["net:http://a.dev:81"]));
      const tightened = session.tighten(
        FLOWS,
        call("plain", [], true),
        verdict,
      );
      assert.equal(tightened.decision, "ask");
      assert.equal(tightened.rule, "unprobed");
      assert.match(
        tightened.question,
        /since this session reached http:\/\/a\.dev:81 with fetch/,
      );
    },
  );
  await t.step("a pattern that is not canonical counts as unprobed", () => {
    const verdict = allowed("odd", ["write:a/../b"]);
    const tightened = session.tighten(
      FLOWS,
      call("odd", verdict.patterns),
      verdict,
    );
    assert.equal(tightened.decision, "ask");
  });
});

Deno.test("FlowSession at its bound takes every flow as set off", () => {
  const flows = parseFlows([
    { after: ["read:a"], deny: ["net:**"] },
    { after: ["read:b"], deny: ["net:**"] },
    { after: ["read:c"], deny: ["exec:**"] },
  ]);
  const session = new FlowSession({ max: 1 });
  session.forwarded(flows, call("r", ["read:a"]), "d1");
  assert.equal(session.full, false);
  const exec = allowed("run", ["exec:ls"]);
  assert.equal(session.tighten(flows, call("run", ["exec:ls"]), exec), exec);
  session.forwarded(flows, call("r", ["read:b"]), "d2");
  assert.equal(session.full, true);
  // read:c never ran, but the session can no longer tell: the strict side.
  const tightened = session.tighten(flows, call("run", ["exec:ls"]), exec);
  assert.equal(tightened.decision, "deny");
});

Deno.test("parsePolicyText() places a wrong flow at its line and column", async (t) => {
  const cases: [string, string, number, number][] = [
    [
      'flows:\n  - after: ["read:secrets/**"]\n    deny: ["net:**", "EXEC:**"]\n',
      'flows[0].deny[1]: unknown verb "EXEC"',
      3,
      23,
    ],
    [
      'flows:\n  - after: ["read:a"]\n    ask: [unprobed]\n  - after: [unprobed, "read:a//b"]\n    deny: ["net:**"]\n',
      "flows[1].after[1]: empty path segment",
      4,
      31,
    ],
    [
      'flows:\n  - after: ["read:a"]\n    deni: ["net:**"]\n',
      "flows[0].deni: unknown key: expected after, deny or ask",
      3,
      5,
    ],
    [
      'flows:\n  - after: ["read:a"]\n    deny: "net:**"\n',
      'flows[0].deny: expected a list of rule strings or "unprobed", got string (write ["net:**"])',
      3,
      5,
    ],
    [
      'flows:\n  - after: ["read:a"]\n    deny: ["net:**"]\n    server: files\n',
      "flows[0].server: this policy names no servers",
      4,
      5,
    ],
  ];
  for (const [text, message, line, column] of cases) {
    await t.step(message, () => {
      assert.throws(
        () => parsePolicyText(text, "yaml"),
        (error: Error & { line: number; column: number }) => {
          assert.ok(error.message.startsWith(message), error.message);
          assert.deepEqual([error.line, error.column], [line, column]);
          return true;
        },
      );
    });
  }
  await t.step("a flow without deny or ask", () => {
    assert.throws(
      () => parsePolicyText('flows:\n  - after: ["read:a"]\n', "yaml"),
      /flows\[0\]: a flow without deny or ask/,
    );
  });
  await t.step("the two flows of the issue are read", () => {
    const file = parsePolicyText(
      'flows:\n  - after: ["read:secrets/**"]\n    deny: ["net:**", "exec:**"]\n  - after: ["net:**"]\n    ask: ["write:**", "exec:**", unprobed]\n',
      "yaml",
    );
    assert.deepEqual(file.flows?.map((f) => f.name), ["flows[0]", "flows[1]"]);
    assert.deepEqual(file.flows?.[1].ask, ["write:**", "exec:**", "unprobed"]);
  });
});

Deno.test("FlowSession hands a store what each call set off, and decides by a stored state", async (t) => {
  const flows = parseFlows([
    { after: ["read:a"], deny: ["net:**"] },
    { after: ["read:b"], server: "files", deny: ["exec:**"] },
  ], { servers: ["files"] });
  const net = allowed("fetch", ["net:https://x.dev"]);
  await t.step("forwarded() returns only the rules it set off now", () => {
    const session = new FlowSession();
    const first = session.forwarded(flows, call("r", ["read:a"]), "d1");
    assert.deepEqual(first, {
      triggers: [["read:a", { tool: "r", pattern: "read:a", line: "d1" }]],
    });
    // Set off already: the first call keeps it, nothing new to keep.
    assert.deepEqual(
      session.forwarded(flows, call("r", ["read:a"]), "d2"),
      { triggers: [] },
    );
    const files = session.forwarded(
      flows,
      { ...call("r", ["read:b"]), server: "files" },
      "d3",
    );
    assert.deepEqual(files.triggers.map(([rule]) => rule), [
      "files\u0000read:b",
    ]);
  });
  await t.step("a session restored from the state decides as the first", () => {
    const session = new FlowSession();
    const added = session.forwarded(flows, call("r", ["read:a"]), "d1");
    const restored = new FlowSession({ state: added });
    const tightened = restored.tighten(flows, call("fetch", net.patterns), net);
    assert.equal(tightened.decision, "deny");
    assert.equal(
      (tightened as { flow: { trigger: { line: string } } }).flow.trigger.line,
      "d1",
    );
  });
  await t.step("the bound is reported once, and restored as full", () => {
    const session = new FlowSession({ max: 1 });
    session.forwarded(flows, call("r", ["read:a"]), "d1");
    const over = session.forwarded(
      flows,
      { ...call("r", ["read:b"]), server: "files" },
      "d2",
    );
    assert.deepEqual(over.triggers, []);
    assert.equal(over.full?.line, "d2");
    const restored = new FlowSession({
      state: { triggers: [], full: over.full },
    });
    assert.equal(restored.full, true);
    const exec = allowed("run", ["exec:ls"]);
    assert.equal(
      restored.tighten(flows, call("run", ["exec:ls"]), exec).decision,
      "deny",
    );
  });
  await t.step("a stored state past the bound is taken as full", () => {
    const restored = new FlowSession({
      max: 1,
      state: {
        triggers: [
          ["x", { tool: "r", pattern: "read:x" }],
          ["y", { tool: "r", pattern: "read:y" }],
        ],
      },
    });
    assert.equal(restored.full, true);
  });
});
