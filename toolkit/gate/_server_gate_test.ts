import assert from "node:assert/strict";
import { startServerGate } from "./_server_gate.ts";
import { type PolicySource, watchPolicy } from "./policy/_policy_source.ts";
import type { GatePolicy } from "./policy/policy_file.ts";
import { findBwrap } from "./upstream/_sandbox.ts";
import { HELLO_COMMAND } from "./testdata/gate_process.ts";

const HAVE_BWRAP = (() => {
  try {
    findBwrap();
    return true;
  } catch {
    return false;
  }
})();

/** `source`, counting the reload listeners it holds. */
function counted(source: PolicySource): PolicySource & { listening(): number } {
  let listening = 0;
  return {
    ...source,
    onReload: (listener: (file: GatePolicy) => void) => {
      listening++;
      const stop = source.onReload!(listener);
      return () => {
        listening--;
        stop();
      };
    },
    listening: () => listening,
  };
}

Deno.test({
  name:
    "startServerGate() stops following the policy's fence when its gate ends",
  ignore: !HAVE_BWRAP,
  // Each session of a gate served over HTTP starts a fenced server of its
  // own: a session that ended must leave nothing listening to the file, or
  // every session ever served is kept, and re-fenced at each reload.
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "forge_server_gate_" });
    const path = `${dir}/policy.yaml`;
    await Deno.writeTextFile(path, `allow: ["read:**"]\n`);
    const lines: string[] = [];
    const source = counted(
      await watchPolicy(path, {
        unprobed: "allow",
        tools: new Map(),
        log: (line) => lines.push(line),
      }),
    );
    try {
      const gates = await Promise.all(
        [1, 2, 3].map(() => {
          const host = new TransformStream<Uint8Array, Uint8Array>();
          return startServerGate(HELLO_COMMAND, { sandbox: true }, {
            source,
            audit: undefined,
            log: (line) => lines.push(line),
            graceMs: 1000,
            readable: host.readable,
            writable: new WritableStream(),
            closeShared: false,
          });
        }),
      );
      assert.equal(source.listening(), 3);
      await gates[0].close();
      await gates[1].close();
      assert.equal(source.listening(), 1, lines.join("\n"));
      await gates[2].close();
      assert.equal(source.listening(), 0, lines.join("\n"));
    } finally {
      await source.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("watchPolicy() stops telling a reload listener once it is removed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "forge_server_gate_" });
  const path = `${dir}/policy.yaml`;
  await Deno.writeTextFile(path, `allow: ["read:**"]\n`);
  const source = await watchPolicy(path, {
    unprobed: "allow",
    tools: new Map(),
    log: () => {},
    debounceMs: 0,
  });
  try {
    const told: string[] = [];
    const stopA = source.onReload!(() => told.push("a"));
    const listener = () => told.push("b");
    // The same function twice is two listeners, each removed on its own.
    const stopB = source.onReload!(listener);
    source.onReload!(listener);
    stopA();
    stopB();
    await Deno.writeTextFile(path, `allow: ["write:**"]\n`);
    const fresh = await source.fresh();
    assert.equal(fresh.policy.evaluate(["write:x"]).decision, "allow");
    assert.deepEqual(told, ["b"]);
  } finally {
    await source.close();
    await Deno.remove(dir, { recursive: true });
  }
});
