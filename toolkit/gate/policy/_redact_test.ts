// What the gate records of a pattern: file and net targets whole, exec
// targets as the program and a digest, custom targets as a digest; whole
// again for a tool the policy's `record` names.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { recordedPatterns, redactPattern } from "./_redact.ts";

function redacted(pattern: string): string {
  const hex = createHash("sha256").update(pattern).digest("hex");
  return `[redacted sha256:${hex.slice(0, 16)}]`;
}

Deno.test("redactPattern() keeps what a call touches and digests its values", async (t) => {
  await t.step("file and net targets are their identity: kept", () => {
    for (
      const pattern of [
        "read:notes/a.txt",
        "write:/etc/passwd",
        "delete:secrets/**",
        "net:https://example.com",
      ]
    ) {
      assert.equal(redactPattern(pattern), pattern);
    }
  });
  await t.step("exec: the program, then a digest of the whole pattern", () => {
    const curl = "exec:curl -H Authorization:\\ Bearer\\ tok https://x";
    assert.equal(redactPattern(curl), `exec:curl ${redacted(curl)}`);
    const script = "exec:sh -c echo\\ tok";
    assert.equal(redactPattern(script), `exec:sh ${redacted(script)}`);
  });
  await t.step(
    "exec: a program named with an escaped space stays whole",
    () => {
      const spaced = "exec:/opt/my\\ tools/run --key tok";
      assert.equal(
        redactPattern(spaced),
        `exec:/opt/my\\ tools/run ${redacted(spaced)}`,
      );
    },
  );
  await t.step("exec: a program alone has nothing to hide", () => {
    assert.equal(redactPattern("exec:ls"), "exec:ls");
  });
  await t.step("exec: a NAME=value first is no program: all digested", () => {
    const assigned = "exec:TOKEN=tok curl";
    assert.equal(redactPattern(assigned), `exec:${redacted(assigned)}`);
    assert.equal(
      redactPattern("exec:TOKEN=tok"),
      `exec:${redacted("exec:TOKEN=tok")}`,
    );
  });
  await t.step("custom: the verb, then a digest", () => {
    assert.equal(
      redactPattern("x-stdin:tok"),
      `x-stdin:${redacted("x-stdin:tok")}`,
    );
    // A template's literal "everything" holds no value.
    assert.equal(redactPattern("x-memory-read:*"), "x-memory-read:*");
    // An escaped "*" is a value.
    assert.equal(
      redactPattern("x-memory-read:\\*"),
      `x-memory-read:${redacted("x-memory-read:\\*")}`,
    );
  });
  await t.step("not a pattern: all digested", () => {
    for (const text of ["tok", "unknown:tok", ":tok", "EXEC:curl tok"]) {
      assert.equal(redactPattern(text), redacted(text));
    }
  });
});

Deno.test("recordedPatterns() follows the policy's record by tool name, then glob", async (t) => {
  const patterns = ["write:a", "exec:git push origin", "x-stdin:tok"];
  const digested = [
    "write:a",
    `exec:git ${redacted("exec:git push origin")}`,
    `x-stdin:${redacted("x-stdin:tok")}`,
  ];
  await t.step("by default, digests", () => {
    assert.deepEqual(recordedPatterns("run", patterns, undefined), digested);
    assert.deepEqual(recordedPatterns("run", patterns, new Map()), digested);
    assert.deepEqual(recordedPatterns(null, patterns, undefined), digested);
  });
  await t.step("record: patterns, by name or glob, keeps them whole", () => {
    const record = new Map([
      ["git_push", "digests" as const],
      ["git_*", "patterns" as const],
    ]);
    assert.equal(recordedPatterns("git_status", patterns, record), patterns);
    // The exact name beats the glob.
    assert.deepEqual(recordedPatterns("git_push", patterns, record), digested);
    assert.deepEqual(recordedPatterns("run", patterns, record), digested);
  });
  await t.step("nothing to hide: the same list", () => {
    const files = ["read:a", "net:https://x"];
    assert.equal(recordedPatterns("run", files, undefined), files);
  });
});
