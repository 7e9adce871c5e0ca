// The audit anchor: a file apart from the log that keeps its end, so that
// an edit of the last line, lines cut off the end or lines added after it
// are found, which the chain alone cannot show; and a gate killed between
// a line and its anchor leaves the two in step.

import assert from "node:assert/strict";
import { AuditLog, type AuditRecord } from "./_audit.ts";
import { AnchorError, readAnchor } from "./_audit_anchor.ts";
import { sha256HexSync as sha256Hex } from "../../_util/sha256_hex_sync.ts";
import { verifyAudit } from "./_audit_verify.ts";

const encode = (text: string) => new TextEncoder().encode(text);

function record(i: number): AuditRecord {
  const allow = i % 2 === 0;
  return {
    time: "2026-12-03T12:00:00.000Z",
    tool: `t${i}`,
    patterns: [`write:t${i}`],
    decision: allow ? "allow" : "deny",
    outcome: allow ? "forwarded" : "denied",
    rule: null,
    elapsedMs: 1,
  };
}

/** A log of `lines` lines at `dir/audit.jsonl`, anchored in `dir/anchor/audit.anchor`. */
async function anchoredLog(lines: number, dir?: string) {
  dir ??= await Deno.makeTempDir({ prefix: "gate-anchor-" });
  await Deno.mkdir(`${dir}/anchor`, { recursive: true });
  const log = `${dir}/audit.jsonl`;
  const anchor = `${dir}/anchor/audit.anchor`;
  const audit = await AuditLog.open(log, (error) => {
    throw error;
  }, { anchor });
  for (let i = 0; i < lines; i++) await audit.write(record(i));
  await audit.close();
  return { dir, log, anchor };
}

async function verdictOf(log: string, anchor?: string) {
  return await verifyAudit(
    await Deno.readFile(log),
    anchor === undefined ? undefined : await readAnchor(anchor),
  );
}

function problemOf(verdict: Awaited<ReturnType<typeof verifyAudit>>): string {
  assert.equal(verdict.ok, false, "expected the log to be refused");
  return verdict.ok ? "" : `line ${verdict.line}: ${verdict.problem}`;
}

/** Rewrites every `prev` after an edit, as someone who can write the log can. */
function rechained(lines: string[]): string {
  let prev = "0".repeat(64);
  const out: string[] = [];
  for (const line of lines) {
    const { prev: _, ...rest } = JSON.parse(line);
    const text = JSON.stringify({ ...rest, prev });
    out.push(text);
    prev = sha256Hex(encode(text));
  }
  return out.join("\n") + "\n";
}

Deno.test("an anchored log finds what the chain alone misses", async (t) => {
  const { dir, log, anchor } = await anchoredLog(5);
  const original = await Deno.readTextFile(log);
  const lines = original.trimEnd().split("\n");
  const tamper = async (text: string) => await Deno.writeTextFile(log, text);

  await t.step(
    "an intact log passes, with and without its anchor",
    async () => {
      assert.deepEqual(await verdictOf(log, anchor), { ok: true, lines: 5 });
      assert.deepEqual(await verdictOf(log), { ok: true, lines: 5 });
    },
  );
  await t.step(
    "the last line edited: passes the chain, not the anchor",
    async () => {
      const edited = [...lines];
      edited[4] = edited[4].replace('"decision":"allow"', '"decision":"deny"');
      assert.notEqual(edited[4], lines[4]);
      await tamper(edited.join("\n") + "\n");
      assert.equal((await verdictOf(log)).ok, true);
      assert.match(
        problemOf(await verdictOf(log, anchor)),
        /^line 5: not the line the anchor recorded as line 5/,
      );
    },
  );
  await t.step("lines cut off the end: found", async () => {
    await tamper(lines.slice(0, 3).join("\n") + "\n");
    assert.equal((await verdictOf(log)).ok, true);
    assert.match(
      problemOf(await verdictOf(log, anchor)),
      /^line 4: missing: the log has 3 lines and its anchor says 5: lines were cut off its end/,
    );
  });
  await t.step("one line cut off the end: found", async () => {
    await tamper(lines.slice(0, 4).join("\n") + "\n");
    assert.match(problemOf(await verdictOf(log, anchor)), /cut off its end/);
  });
  await t.step(
    "a middle line edited and the chain rewritten: found",
    async () => {
      const edited = [...lines];
      edited[1] = edited[1].replace('"decision":"deny"', '"decision":"allow"');
      await tamper(rechained(edited));
      assert.equal((await verdictOf(log)).ok, true);
      assert.match(
        problemOf(await verdictOf(log, anchor)),
        /^line 5: not the line the anchor recorded/,
      );
    },
  );
  await t.step("a line added after the end: found", async () => {
    const added = JSON.stringify({
      ...record(9),
      prev: sha256Hex(encode(lines[4])),
    });
    await tamper(original + added + "\n");
    assert.equal((await verdictOf(log)).ok, true);
    assert.match(
      problemOf(await verdictOf(log, anchor)),
      /^line 6: after the anchor's last line \(5\): 1 line was added/,
    );
  });
  await t.step("the whole log emptied: found", async () => {
    await tamper("");
    assert.match(problemOf(await verdictOf(log, anchor)), /cut off its end/);
  });
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a gate refuses to continue a log that differs from its anchor", async (t) => {
  const { dir, log, anchor } = await anchoredLog(3);
  const original = await Deno.readTextFile(log);
  const lines = original.trimEnd().split("\n");
  const opens = async () => {
    const audit = await AuditLog.open(log, (error) => {
      throw error;
    }, { anchor });
    await audit.close();
  };
  for (
    const [name, text, message] of [
      ["cut", lines.slice(0, 2).join("\n") + "\n", /cut off its end/],
      [
        "last line edited",
        original.replace(/"tool":"t2"/, '"tool":"tX"'),
        /line 3 is not the line the anchor recorded/,
      ],
      ["line added", original + original.split("\n")[0] + "\n", /added/],
    ] as const
  ) {
    await t.step(name, async () => {
      await Deno.writeTextFile(log, text);
      await assert.rejects(opens, (error: Error) => {
        assert.ok(error instanceof AnchorError);
        assert.match(error.message, message);
        return true;
      });
      // Refused before anything is written: the evidence stays as found.
      assert.equal(await Deno.readTextFile(log), text);
    });
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a log continued across gate restarts keeps its anchor right", async () => {
  const { dir, log, anchor } = await anchoredLog(2);
  await anchoredLog(3, dir);
  await anchoredLog(0, dir);
  await anchoredLog(1, dir);
  assert.deepEqual(await verdictOf(log, anchor), { ok: true, lines: 6 });
  // Rewritten in place, always the same size.
  assert.equal((await Deno.stat(anchor)).size, 256);
  const text = await Deno.readFile(log);
  const lines = new TextDecoder().decode(text).trimEnd().split("\n");
  assert.deepEqual(await readAnchor(anchor), {
    lines: 6,
    bytes: text.length,
    last: sha256Hex(encode(lines[5])),
  });
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a gate killed between a line and its anchor leaves them in step", async (t) => {
  // The states a kill can leave: the anchor names the next line's digest
  // (its first write), and the line is in the log, or not yet.
  const { dir, log, anchor } = await anchoredLog(2);
  const before = await Deno.readTextFile(log);
  const anchored = (await readAnchor(anchor))!;
  await anchoredLog(1, dir);
  const after = await Deno.readTextFile(log);
  const line = after.slice(before.length, -1);
  const pending = { ...anchored, next: sha256Hex(encode(line)) };

  for (
    const [name, text, lines] of [
      ["killed after the line was written", after, 3],
      ["killed before the line was written", before, 2],
      ["killed while the line was written", before + line.slice(0, 20), 3],
    ] as const
  ) {
    await t.step(name, async () => {
      await Deno.writeTextFile(log, text);
      await Deno.writeTextFile(anchor, JSON.stringify(pending));
      const verdict = await verdictOf(log, anchor);
      if (text.endsWith("\n")) {
        assert.deepEqual(verdict, { ok: true, lines });
      } else {
        // A torn line is the chain's to report, anchor or not.
        assert.match(problemOf(verdict), /^line 3: cut short/);
      }
      // The next gate continues it, and the anchor follows.
      await anchoredLog(1, dir);
      const again = await verdictOf(log, anchor);
      if (text.endsWith("\n")) {
        assert.deepEqual(again, { ok: true, lines: lines + 1 });
      } else assert.match(problemOf(again), /^line 3: not a line of JSON/);
      assert.equal((await readAnchor(anchor))!.lines, lines + 1);
    });
  }
  await t.step(
    "but a line missing once its anchor was written is found",
    async () => {
      // The anchor's second write: the line is in the log for good.
      const written = {
        lines: 3,
        bytes: encode(after).length,
        last: sha256Hex(encode(line)),
      };
      await Deno.writeTextFile(anchor, JSON.stringify(written));
      await Deno.writeTextFile(log, after);
      assert.deepEqual(await verdictOf(log, anchor), { ok: true, lines: 3 });
      await Deno.writeTextFile(log, before);
      assert.match(
        problemOf(await verdictOf(log, anchor)),
        /its anchor says 3: lines were cut off its end/,
      );
    },
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("an existing log gets its first anchor as it stands, and is told so", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gate-anchor-" });
  const log = `${dir}/audit.jsonl`;
  const plain = await AuditLog.open(log, (error) => {
    throw error;
  });
  await plain.write(record(0));
  await plain.write(record(1));
  await plain.close();
  const notes: string[] = [];
  const audit = await AuditLog.open(log, (error) => {
    throw error;
  }, { anchor: `${dir}/audit.anchor`, note: (line) => notes.push(line) });
  await audit.write(record(2));
  await audit.close();
  assert.deepEqual(notes, [
    `the audit log ${log} has no anchor yet: anchoring its 2 lines as they stand in ${dir}/audit.anchor`,
  ]);
  assert.deepEqual(await verdictOf(log, `${dir}/audit.anchor`), {
    ok: true,
    lines: 3,
  });
  await Deno.remove(dir, { recursive: true });
});
