// A policy saved while calls stream through the gate, with the audit log in
// the policy's folder (as in the docs' host example): every audit line is a
// file-system event next to the policy, and none of them may hold the reload
// back. Every call sent CHECK_EVERY_MS or more after the save is decided by
// the new policy: the gate looks at the file before each decision, a check
// shared by the calls within that bound (issue 27, finding 17).

import assert from "node:assert/strict";
import {
  callTool,
  FAKE_COMMAND,
  startGateProcess,
  writeAtomic,
} from "./testdata/gate_process.ts";
import { until } from "../testing/_until.ts";
import { CHECK_EVERY_MS } from "./policy/_policy_source.ts";

/**
 * Resolves once the documented bound has passed since now: the contract
 * under test ("a call sent this long after a save"), not a wait for an event.
 */
function pastTheBound(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, CHECK_EVERY_MS + 1));
}

Deno.test("gate decides every call sent after a save by the saved policy while audit lines are written beside it", async () => {
  const dir = await Deno.makeTempDir();
  const policy = `${dir}/policy.yaml`;
  await Deno.writeTextFile(policy, "unprobed: allow\n");
  try {
    await using gate = await startGateProcess(
      ["--policy", policy, "--audit", `${dir}/audit.jsonl`],
      FAKE_COMMAND,
    );
    // One call after another, each audited, each remembered with when it
    // was sent and whether the policy let it through.
    const calls: { sentAt: number; denied: boolean }[] = [];
    let stop = false;
    const flood = (async () => {
      while (!stop) {
        const sentAt = performance.now();
        const answer = await callTool(gate, "plain");
        calls.push({ sentAt, denied: answer.result?.isError === true });
      }
    })();
    const deniedSince = (at: number) =>
      until(
        "a call denied by the saved policy",
        () => calls.some((c) => c.sentAt >= at && c.denied),
      );
    try {
      // A first save, once calls stream: its reload starts the debounce
      // afresh on the audit lines that follow, which is when a save waited
      // longest before (a whole bounded wait of audit events).
      await until("a stream of calls", () => calls.length >= 50);
      await writeAtomic(policy, "unprobed: allow\ntools: { plain: deny }\n");
      await deniedSince(0);
      await writeAtomic(policy, "unprobed: allow\n");
      const savedAllow = performance.now();
      await until(
        "a call allowed again",
        () => calls.some((c) => c.sentAt >= savedAllow && !c.denied),
      );
      // The measured save: a new deny.
      await writeAtomic(policy, "unprobed: allow\ntools: { plain: deny }\n");
      const saved = performance.now();
      await deniedSince(saved);
      stop = true;
      await flood;
      const stale = calls.filter((c) =>
        c.sentAt >= saved + CHECK_EVERY_MS && !c.denied
      );
      const lastStale = Math.max(0, ...stale.map((c) => c.sentAt - saved));
      assert.equal(
        stale.length,
        0,
        `${stale.length} calls sent up to ${
          Math.round(lastStale)
        } ms after the save were decided by the old policy`,
      );
    } finally {
      stop = true;
      await flood;
    }
    assert.equal((await gate.close()).code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** The two policies the flood alternates: the same length, so an in-place save keeps the size. */
const DENY = "unprobed: allow\ntools: { plain: deny  }\n";
const ALLOW = "unprobed: allow\ntools: { plain: allow }\n";

Deno.test("gate decides the call sent just past the bound after each of 60 saves by that save", async () => {
  const dir = await Deno.makeTempDir();
  const policy = `${dir}/policy.yaml`;
  await Deno.writeTextFile(policy, ALLOW);
  // Three ways editors save: a rename over the file, a rewrite in place
  // (same inode; the same size, within one mtime tick), a new symlink target.
  const saves: Record<string, (text: string) => Promise<void>> = {
    rename: (text) => writeAtomic(policy, text),
    "in place": (text) => Deno.writeTextFile(policy, text),
    relink: async (text) => {
      const target = `${dir}/${crypto.randomUUID()}.yaml`;
      await Deno.writeTextFile(target, text);
      await Deno.remove(policy);
      await Deno.symlink(target, policy);
    },
  };
  try {
    await using gate = await startGateProcess(
      ["--policy", policy, "--audit", `${dir}/audit.jsonl`],
      FAKE_COMMAND,
    );
    assert.notEqual((await callTool(gate, "plain")).result?.isError, true);
    const wrong: string[] = [];
    for (let i = 0; i < 60; i++) {
      const [how, save] = Object.entries(saves)[i % 3];
      const deny = i % 2 === 0;
      await save(deny ? DENY : ALLOW);
      // The call goes out as soon as the bound has passed.
      await pastTheBound();
      const answer = await callTool(gate, "plain");
      const denied = answer.result?.isError === true;
      if (denied !== deny) {
        wrong.push(
          `save ${i} (${how}, ${deny ? "deny" : "allow"}): ${
            denied ? "denied" : "allowed"
          }`,
        );
      }
    }
    assert.deepEqual(wrong, []);
    assert.equal((await gate.close()).code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
