// `gate audit verify FILE` as a real process: 0 for an intact log, 1
// naming the first broken line, 2 for a bad command line.

import assert from "node:assert/strict";
import { AuditLog } from "./_audit.ts";
import {
  callTool,
  FAKE_COMMAND,
  runGate,
  startGateProcess,
} from "../testdata/gate_process.ts";

Deno.test("audit verify passes an intact log and names the first edited line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gate-verify-" });
  const path = `${dir}/audit.jsonl`;
  const log = await AuditLog.open(path, (error) => {
    throw error;
  });
  for (const decision of ["allow", "deny", "allow"] as const) {
    await log.write({
      time: "2026-12-03T12:00:00.000Z",
      tool: "write_file",
      patterns: ["write:a"],
      decision,
      outcome: decision === "allow" ? "forwarded" : "denied",
      rule: null,
      elapsedMs: 1,
    });
  }
  await log.close();

  const intact = await runGate(["audit", "verify", path]);
  assert.equal(intact.code, 0, intact.stderr);
  assert.equal(intact.stdout, `${path}: 3 lines, chain intact\n`);
  // `deno task gate -- audit verify FILE` passes its "--" through.
  assert.equal((await runGate(["--", "audit", "verify", path])).code, 0);

  const text = await Deno.readTextFile(path);
  await Deno.writeTextFile(
    path,
    text.replace(
      '"decision":"deny","outcome":"denied"',
      '"decision":"allow","outcome":"forwarded"',
    ),
  );
  const edited = await runGate(["audit", "verify", path]);
  assert.equal(edited.code, 1);
  assert.equal(
    edited.stderr,
    `forge gate: ${path}: line 3: its prev does not match line 2: line 2 was edited, or lines were removed between lines 2 and 3\n`,
  );

  const bad = await runGate(["audit", "check", path]);
  assert.equal(bad.code, 2);
  const missing = await runGate(["audit", "verify", `${dir}/nope.jsonl`]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /Cannot read the audit log/);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("audit verify --anchor finds an edited last line, and the gate will not continue that log", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gate-verify-" });
  const path = `${dir}/audit.jsonl`;
  const anchor = `${dir}/audit.anchor`;
  const log = await AuditLog.open(path, (error) => {
    throw error;
  }, { anchor });
  for (const decision of ["allow", "deny"] as const) {
    await log.write({
      time: "2026-12-03T12:00:00.000Z",
      tool: "write_file",
      patterns: ["write:a"],
      decision,
      outcome: decision === "allow" ? "forwarded" : "denied",
      rule: null,
      elapsedMs: 1,
    });
  }
  await log.close();
  const intact = await runGate(["audit", "verify", path, "--anchor", anchor]);
  assert.equal(intact.code, 0, intact.stderr);
  assert.equal(
    intact.stdout,
    `${path}: 2 lines, chain intact, its end matches the anchor\n`,
  );

  const text = await Deno.readTextFile(path);
  await Deno.writeTextFile(
    path,
    text.replace(
      '"decision":"deny","outcome":"denied"',
      '"decision":"allow","outcome":"forwarded"',
    ),
  );
  // The chain alone cannot see it.
  assert.equal((await runGate(["audit", "verify", path])).code, 0);
  const edited = await runGate(["audit", "verify", "--anchor", anchor, path]);
  assert.equal(edited.code, 1);
  assert.equal(
    edited.stderr,
    `forge gate: ${path}: line 2: not the line the anchor recorded as line 2: the log was edited at or before it (and its chain rewritten)\n`,
  );
  const policy = `${dir}/policy.json`;
  await Deno.writeTextFile(policy, "{}");
  const gate = await runGate([
    "--policy",
    policy,
    "--audit",
    path,
    "--audit-anchor",
    anchor,
    "--",
    "true",
  ]);
  assert.equal(gate.code, 2);
  assert.match(
    gate.stderr,
    /Cannot open the audit log: .*audit\.jsonl: the log does not match its anchor: line 2 is not the line the anchor recorded/,
  );

  const noAnchor = await runGate(["audit", "verify", path, "--anchor"]);
  assert.equal(noAnchor.code, 2);
  const missing = await runGate([
    "audit",
    "verify",
    path,
    "--anchor",
    `${dir}/nope`,
  ]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /Cannot read the anchor/);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("gate --audit-anchor keeps the anchor in step across restarts, and audit verify --anchor passes the log", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gate-verify-" });
  await Deno.mkdir(`${dir}/apart`);
  const policy = `${dir}/policy.json`;
  const audit = `${dir}/audit.jsonl`;
  const anchor = `${dir}/apart/audit.anchor`;
  await Deno.writeTextFile(policy, JSON.stringify({ unprobed: "allow" }));
  for (let run = 0; run < 2; run++) {
    const gate = await startGateProcess(
      ["--policy", policy, "--audit", audit, "--audit-anchor", anchor],
      FAKE_COMMAND,
    );
    try {
      await callTool(gate, "plain", {});
      await callTool(gate, "plain", {});
    } finally {
      await gate[Symbol.asyncDispose]();
    }
  }
  const verified = await runGate([
    "audit",
    "verify",
    audit,
    "--anchor",
    anchor,
  ]);
  assert.equal(verified.code, 0, verified.stderr);
  assert.equal(
    verified.stdout,
    `${audit}: 4 lines, chain intact, its end matches the anchor\n`,
  );
  // Cut the last line off: found.
  const text = await Deno.readTextFile(audit);
  await Deno.writeTextFile(
    audit,
    text.slice(0, text.lastIndexOf("\n", text.length - 2) + 1),
  );
  const cut = await runGate(["audit", "verify", audit, "--anchor", anchor]);
  assert.equal(cut.code, 1);
  assert.match(cut.stderr, /line 4: missing: .* lines were cut off its end/);
  await Deno.remove(dir, { recursive: true });
});
