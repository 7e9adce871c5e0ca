// A policy saved while calls stream through the gate, with the audit log in
// the policy's folder (as in the docs' host example): every audit line is a
// file-system event next to the policy, and none of them may hold the reload
// back. The next calls are decided by the new policy within ~200 ms.

import assert from "node:assert/strict";
import {
  callTool,
  FAKE_COMMAND,
  startGateProcess,
  writeAtomic,
} from "./testdata/gate_process.ts";
import { until } from "../testing/_until.ts";

/** The longest the old policy may still decide calls after a save. */
const BOUND_MS = 250;

Deno.test("gate reloads a saved policy within ~200 ms while audit lines are written beside it", async () => {
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
      const stale = calls.filter((c) => c.sentAt >= saved && !c.denied);
      const lastStale = Math.max(0, ...stale.map((c) => c.sentAt - saved));
      assert.ok(
        lastStale <= BOUND_MS,
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
