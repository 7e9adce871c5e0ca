// The audit log's chain: each line's prev is the digest of the line before
// it; verify finds the first line edited, removed or reordered.

import assert from "node:assert/strict";
import { sha256Hex } from "../../../configreload/_sha256_hex.ts";
import { AUDIT_START, AuditLog, type AuditRecord } from "./_audit.ts";
import { verifyAudit } from "./_audit_verify.ts";

function record(tool: string, decision: "allow" | "deny"): AuditRecord {
  return {
    time: "2026-12-03T12:00:00.000Z",
    tool,
    patterns: [`write:${tool}`],
    decision,
    outcome: decision === "allow" ? "forwarded" : "denied",
    rule: null,
    elapsedMs: 1,
  };
}

async function logOf(lines: number, path?: string): Promise<string> {
  const file = path ?? await Deno.makeTempFile({ suffix: ".jsonl" });
  const log = await AuditLog.open(file, (error) => {
    throw error;
  });
  for (let i = 0; i < lines; i++) {
    await log.write(record(`t${i}`, i % 2 === 0 ? "allow" : "deny"));
  }
  await log.close();
  return file;
}

const encode = (text: string) => new TextEncoder().encode(text);

Deno.test("audit lines chain: the first prev is the start, each next the digest of the last", async () => {
  const path = await logOf(3);
  const lines = (await Deno.readTextFile(path)).trimEnd().split("\n");
  assert.equal(lines.length, 3);
  assert.equal(JSON.parse(lines[0]).prev, AUDIT_START);
  for (let i = 1; i < lines.length; i++) {
    assert.equal(
      JSON.parse(lines[i]).prev,
      await sha256Hex(encode(lines[i - 1])),
    );
  }
  assert.deepEqual(await verifyAudit(await Deno.readFile(path)), {
    ok: true,
    lines: 3,
  });
  await Deno.remove(path);
});

Deno.test("a reopened audit log continues the chain from its last line", async () => {
  const path = await logOf(2);
  await logOf(2, path);
  assert.deepEqual(await verifyAudit(await Deno.readFile(path)), {
    ok: true,
    lines: 4,
  });
  await Deno.remove(path);
});

Deno.test("verify names the line where an audit log was tampered with", async (t) => {
  const path = await logOf(5);
  const lines = (await Deno.readTextFile(path)).trimEnd().split("\n");
  await Deno.remove(path);
  const verify = (edited: string[]) =>
    verifyAudit(encode(edited.join("\n") + "\n"));

  await t.step("a decision edited", async () => {
    const edited = [...lines];
    edited[1] = edited[1].replace('"decision":"deny"', '"decision":"allow"');
    assert.notEqual(edited[1], lines[1]);
    const verdict = await verify(edited);
    assert.equal(verdict.ok, false);
    assert.equal(!verdict.ok && verdict.line, 3);
    assert.match(!verdict.ok ? verdict.problem : "", /line 2 was edited/);
  });
  await t.step("a line removed", async () => {
    const verdict = await verify([...lines.slice(0, 2), ...lines.slice(3)]);
    assert.equal(!verdict.ok && verdict.line, 3);
    assert.match(
      !verdict.ok ? verdict.problem : "",
      /removed between lines 2 and 3/,
    );
  });
  await t.step("the first line removed", async () => {
    const verdict = await verify(lines.slice(1));
    assert.equal(!verdict.ok && verdict.line, 1);
    assert.match(!verdict.ok ? verdict.problem : "", /removed before it/);
  });
  await t.step("two lines swapped", async () => {
    const verdict = await verify([
      lines[0],
      lines[2],
      lines[1],
      ...lines.slice(3),
    ]);
    assert.equal(!verdict.ok && verdict.line, 2);
    assert.match(!verdict.ok ? verdict.problem : "", /reordered/);
  });
  await t.step("the last line cut short", async () => {
    const verdict = await verifyAudit(encode(lines.join("\n").slice(0, -5)));
    assert.equal(!verdict.ok && verdict.line, 5);
    assert.match(!verdict.ok ? verdict.problem : "", /cut short/);
  });
  await t.step("an intact copy passes", async () => {
    assert.deepEqual(await verify(lines), { ok: true, lines: 5 });
  });
});

Deno.test("a log cut short mid-line is continued on a line of its own", async () => {
  const path = await logOf(2);
  const text = await Deno.readTextFile(path);
  await Deno.writeTextFile(path, text + '{"time":"2026');
  await logOf(1, path);
  const verdict = await verifyAudit(await Deno.readFile(path));
  // The torn line is reported; the line after it chains from it.
  assert.equal(!verdict.ok && verdict.line, 3);
  const lines = (await Deno.readTextFile(path)).trimEnd().split("\n");
  assert.equal(lines.length, 4);
  assert.equal(JSON.parse(lines[3]).prev, await sha256Hex(encode(lines[2])));
  await Deno.remove(path);
});
