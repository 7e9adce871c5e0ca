// What the gate records of a call holding a secret: a token in an exec
// command (the commands preset's `exec:{command}`), in a custom template
// (`x-stdin:{stdin?}`) and in the patterns a probe answers is found nowhere
// the gate writes (the audit log, its stderr lines, its spans), while the
// decision still uses the whole patterns; a policy's `record` opts a tool
// in to whole patterns. The real gate, startGate() over a pair of streams,
// in front of the fake server, with the OpenTelemetry SDK in memory.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { installInMemoryTracing } from "../otel/testdata/in_memory_tracing.ts";
import { startGate } from "./gate.ts";
import {
  callTool,
  FAKE_COMMAND,
  startGateProcess,
} from "./testdata/gate_process.ts";
import { hostStreams } from "./testdata/host_streams.ts";

const exporter = installInMemoryTracing();

// deno-lint-ignore no-explicit-any
type Message = Record<string, any>;

/** A token of its own for each place a secret goes in. */
const SECRETS = {
  header: "tok-header-6f1c9a",
  stdin: "tok-stdin-2b7e4d",
  denied: "tok-denied-8a3f51",
  probeExec: "tok-probe-exec-c4d2e9",
  probeCustom: "tok-probe-custom-91b7aa",
  asked: "tok-asked-5e0d3c",
  unfillable: "tok-unfillable-7d24b8",
};

const POLICY = {
  presets: ["commands"],
  allow: ["exec:**", "x-stdin:**", "x-vault:**", "x-fake:**"],
  ask: ["x-ask:**"],
  deny: ["exec:rm **"],
};

/** The first 16 hex digits of the SHA-256 of `text`, as a redacted pattern holds them. */
function digest(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** A host on a pair of streams, and a gate in front of the fake server. */
async function gateWithHost(policy: Message) {
  const dir = await Deno.makeTempDir({ prefix: "gate-recorded-" });
  const policyPath = `${dir}/policy.json`;
  const auditPath = `${dir}/audit.jsonl`;
  await Deno.writeTextFile(policyPath, JSON.stringify(policy));
  const logged: string[] = [];
  const host = hostStreams();
  const gate = await startGate(FAKE_COMMAND, {
    policy: policyPath,
    audit: auditPath,
    readable: host.readable,
    writable: host.writable,
    log: (line) => logged.push(line),
    telemetry: true,
  });
  await host.send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    },
  });
  await host.next();
  let id = 1;
  return {
    logged,
    /** The audit lines written so far, parsed. */
    async audit(): Promise<Message[]> {
      const text = await Deno.readTextFile(auditPath);
      return text.trimEnd().split("\n").map((line) => JSON.parse(line));
    },
    auditText: () => Deno.readTextFile(auditPath),
    /** Sends a `tools/call` and resolves with its answer. */
    async call(name: string, args: Message): Promise<Message> {
      await host.call(++id, name, args);
      return await host.next();
    },
    async [Symbol.asyncDispose]() {
      await host.end();
      assert.equal(await gate.finished, 0);
      await host.drain();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Everything the spans hold: names, attributes, events, status. */
function spansText(): string {
  return JSON.stringify(
    exporter.getFinishedSpans().map((span) => [
      span.name,
      span.attributes,
      span.events,
      span.status,
    ]),
  );
}

Deno.test("a token in an exec command, a custom template or a probe's patterns reaches no audit line, log line or span", async () => {
  exporter.reset();
  const patterns: Record<string, string> = {
    curl:
      `exec:sh -c curl\\ -H\\ 'Authorization:\\ Bearer\\ ${SECRETS.header}'\\ https://example.com`,
    stdin: `x-stdin:${SECRETS.stdin}`,
    rm: `exec:rm -rf ${SECRETS.denied}`,
    deploy: `exec:deploy --token ${SECRETS.probeExec}`,
    vault: `x-vault:${SECRETS.probeCustom}`,
  };
  {
    await using host = await gateWithHost(POLICY);
    const allowed = await host.call("run_command", {
      command:
        `curl -H 'Authorization: Bearer ${SECRETS.header}' https://example.com`,
      stdin: SECRETS.stdin,
    });
    assert.equal(allowed.result.isError, undefined, JSON.stringify(allowed));
    // Decided on the whole patterns: the deny rule about rm matches.
    const denied = await host.call("run_command", {
      command: `rm -rf ${SECRETS.denied}`,
    });
    assert.equal(denied.result.isError, true);
    const probed = await host.call("probed", {
      patterns: [patterns.deploy, patterns.vault],
    });
    assert.equal(probed.result.isError, undefined, JSON.stringify(probed));
    // Asked, and this host cannot ask: refused.
    const asked = await host.call("probed", {
      patterns: [`x-ask:${SECRETS.asked}`],
    });
    assert.equal(asked.result.isError, true);
    // A stdin of two lines cannot be named: refused before any pattern.
    const unfillable = await host.call("run_command", {
      command: "true",
      stdin: `a\n${SECRETS.unfillable}`,
    });
    assert.equal(unfillable.result.isError, true);

    const auditText = await host.auditText();
    for (const [where, secret] of Object.entries(SECRETS)) {
      assert.ok(!auditText.includes(secret), `${where} in the audit log`);
      for (const line of host.logged) {
        assert.ok(!line.includes(secret), `${where} on stderr: ${line}`);
      }
    }
    // Each line holds the program, the verb and a digest of the whole.
    const audit = await host.audit();
    assert.deepEqual(
      audit.map(({ tool, patterns, decision, outcome }) => ({
        tool,
        patterns,
        decision,
        outcome,
      })),
      [
        {
          tool: "run_command",
          patterns: [
            `exec:sh [redacted sha256:${digest(patterns.curl)}]`,
            `x-stdin:[redacted sha256:${digest(patterns.stdin)}]`,
          ],
          decision: "allow",
          outcome: "forwarded",
        },
        {
          tool: "run_command",
          patterns: [`exec:rm [redacted sha256:${digest(patterns.rm)}]`],
          decision: "deny",
          outcome: "denied",
        },
        {
          tool: "probed",
          patterns: [
            `x-fake:[redacted sha256:${digest("x-fake:always")}]`,
            `exec:deploy [redacted sha256:${digest(patterns.deploy)}]`,
            `x-vault:[redacted sha256:${digest(patterns.vault)}]`,
          ],
          decision: "allow",
          outcome: "forwarded",
        },
        {
          tool: "probed",
          patterns: [
            `x-fake:[redacted sha256:${digest("x-fake:always")}]`,
            `x-ask:[redacted sha256:${digest(`x-ask:${SECRETS.asked}`)}]`,
          ],
          decision: "ask",
          outcome: "refused",
        },
        {
          tool: "run_command",
          patterns: [],
          decision: "error",
          outcome: "probe-error",
        },
      ],
    );
  }
  const spans = spansText();
  assert.ok(spans.includes("[redacted sha256:"), spans);
  for (const [where, secret] of Object.entries(SECRETS)) {
    assert.ok(!spans.includes(secret), `${where} in a span`);
  }
});

Deno.test("a policy's record: patterns writes a tool's exec and custom patterns whole, and only that tool's", async () => {
  exporter.reset();
  await using host = await gateWithHost({
    ...POLICY,
    record: { "run_*": "patterns" },
  });
  await host.call("run_command", {
    command: "git status",
    stdin: "hello",
  });
  await host.call("probed", { patterns: ["x-vault:kept-out"] });
  const [run, probed] = await host.audit();
  assert.deepEqual(run.patterns, ["exec:git status", "x-stdin:hello"]);
  assert.deepEqual(probed.patterns, [
    `x-fake:[redacted sha256:${digest("x-fake:always")}]`,
    `x-vault:[redacted sha256:${digest("x-vault:kept-out")}]`,
  ]);
  const spans = spansText();
  assert.ok(spans.includes("exec:git status"));
  assert.ok(!spans.includes("kept-out"));
});

Deno.test("gate/main.ts writes no token of an exec call to its stderr or its audit log", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gate-recorded-" });
  const policy = `${dir}/policy.json`;
  const audit = `${dir}/audit.jsonl`;
  await Deno.writeTextFile(policy, JSON.stringify(POLICY));
  const gate = await startGateProcess(
    ["--policy", policy, "--audit", audit],
    FAKE_COMMAND,
  );
  try {
    const allowed = await callTool(gate, "run_command", {
      command: `curl -H 'Authorization: Bearer ${SECRETS.header}' https://x`,
      stdin: SECRETS.stdin,
    });
    assert.equal(allowed.result.isError, undefined);
    const denied = await callTool(gate, "run_command", {
      command: `rm -rf ${SECRETS.denied}`,
    });
    assert.equal(denied.result.isError, true);
  } finally {
    await gate[Symbol.asyncDispose]();
  }
  const written = await Deno.readTextFile(audit);
  assert.equal(written.trimEnd().split("\n").length, 2);
  for (const secret of [SECRETS.header, SECRETS.stdin, SECRETS.denied]) {
    assert.ok(!written.includes(secret), `${secret} in the audit log`);
    assert.ok(!gate.stderr.includes(secret), `${secret} on stderr`);
  }
  await Deno.remove(dir, { recursive: true });
});
