import assert from "node:assert/strict";
import * as gateEntry from "./mod.ts";
import { startGate } from "./mod.ts";
import { Policy } from "../policy/mod.ts";
import { FAKE_COMMAND, HELLO_COMMAND } from "./testdata/gate_process.ts";
import { hostStreams } from "./testdata/host_streams.ts";

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "t", version: "1" },
  },
};

Deno.test("startGate() serves a host over a pair of streams with a Policy object", async () => {
  const root = await Deno.makeTempDir();
  const host = hostStreams();
  const logged: string[] = [];
  const gate = await startGate(HELLO_COMMAND, {
    policy: new Policy({ allow: ["write:**"], deny: ["delete:**"] }),
    unprobed: "deny",
    readable: host.readable,
    writable: host.writable,
    env: { HELLO_ROOT: root },
    log: (line) => logged.push(line),
  });
  try {
    assert.equal(typeof gate.pid, "number");
    await host.send(INITIALIZE);
    assert.equal((await host.next()).id, 1);
    await host.call(2, "hello", { name: "x" });
    const answer = await host.next() as { result: { isError?: boolean } };
    assert.equal(answer.result.isError, true, "unprobed: deny refuses hello");
    await host.end();
    assert.equal(await gate.finished, 0);
  } finally {
    await host.drain();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("startGate()'s tools option decides tools by name beside a Policy object", async () => {
  const root = await Deno.makeTempDir();
  const host = hostStreams();
  const gate = await startGate(HELLO_COMMAND, {
    policy: new Policy({ allow: ["write:**"] }),
    unprobed: "deny",
    tools: { hello: "allow", write_file: "deny" },
    readable: host.readable,
    writable: host.writable,
    env: { HELLO_ROOT: root },
    log: () => {},
  });
  try {
    await host.send(INITIALIZE);
    await host.next();
    await host.call(2, "hello", { name: "Ada" });
    const hello = await host.next() as {
      result: { content: { text: string }[] };
    };
    assert.equal(hello.result.content[0].text, "Hello, Ada!");
    await host.call(3, "write_file", { path: "a.txt", content: "x" });
    const write = await host.next() as {
      result: { isError?: boolean; content: { text: string }[] };
    };
    assert.equal(write.result.isError, true);
    assert.match(write.result.content[0].text, /tools\.write_file: deny/);
    await host.end();
    assert.equal(await gate.finished, 0);
  } finally {
    await host.drain();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("startGate()'s close() stops the server and answers what is pending", async () => {
  const host = hostStreams();
  const gate = await startGate(FAKE_COMMAND, {
    policy: new Policy({}),
    readable: host.readable,
    writable: host.writable,
    graceMs: 100,
  });
  await host.send(INITIALIZE);
  await host.next();
  // A call whose probe never answers: close() must not wait for it.
  await host.call(2, "wait", { announce: "yes" });
  const probing = await host.next() as { params: { data: string } };
  assert.match(probing.params.data, /^probe of wait: /);
  const closed = gate.close();
  const answer = await host.next() as {
    id: number;
    error: { message: string };
  };
  assert.equal(answer.id, 2);
  assert.equal(answer.error.message, "The gate is shutting down");
  assert.equal(await closed, 0);
  assert.equal(await gate.finished, 0);
  await host.drain();
});

Deno.test("startGate() ends at host EOF even when a probe is never answered", async () => {
  const host = hostStreams();
  const gate = await startGate(FAKE_COMMAND, {
    policy: new Policy({}),
    readable: host.readable,
    writable: host.writable,
    graceMs: 200,
  });
  await host.send(INITIALIZE);
  await host.next();
  await host.call(2, "wait");
  await host.end();
  const answer = await host.next() as { id: number; error: { code: number } };
  assert.equal(answer.id, 2);
  assert.equal(answer.error.code, -32603);
  assert.equal(await gate.finished, 0);
  await host.drain();
});

Deno.test("startGate() refuses wrong options with TypeError or RangeError", async () => {
  const policy = new Policy({});
  await assert.rejects(
    () => startGate([], { policy }),
    TypeError,
    "expected the server command as a non-empty array of strings",
  );
  await assert.rejects(
    // @ts-expect-error: the wrong shape on purpose
    () => startGate(["x"], { policy: 42 }),
    TypeError,
    "policy must be a file path or a Policy",
  );
  await assert.rejects(
    // @ts-expect-error: the wrong value on purpose
    () => startGate(["x"], { policy, unprobed: "maybe" }),
    TypeError,
    'unprobed must be "allow", "ask" or "deny", got "maybe"',
  );
  await assert.rejects(
    // @ts-expect-error: the wrong value on purpose
    () => startGate(["x"], { policy, tools: { hello: "yes" } }),
    TypeError,
    'Cannot start the gate: tools.hello: expected "allow", "ask" or "deny", got "yes"',
  );
  await assert.rejects(
    // @ts-expect-error: the wrong shape on purpose
    () => startGate(["x"], { policy, tools: ["hello"] }),
    TypeError,
    'Cannot start the gate: tools: expected tool names with "allow", "ask" or "deny" (tools: { search: allow }), got an array',
  );
  await assert.rejects(
    () => startGate(["x"], { policy, graceMs: -1 }),
    RangeError,
  );
  await assert.rejects(
    () => startGate(["/no/such/program"], { policy }),
    /Cannot start the server: command not found: \/no\/such\/program/,
  );
});

Deno.test("@forge/toolkit/gate exports at most 40 names", () => {
  const names = Object.keys(gateEntry);
  assert.ok(names.length <= 40, `${names.length} names`);
  assert.ok(names.includes("startGate"));
});

/**
 * What this process holds open under `dir`: its files, and whether an
 * inotify watch (a policy file's watcher) is on `dir`, read from
 * /proc/self/fd and fdinfo (Deno keeps its inotify fd; a closed watcher
 * removes its watch).
 */
function heldOpen(dir: string): { files: string[]; watched: boolean } {
  const files: string[] = [];
  const inode = ` ino:${Deno.statSync(dir).ino!.toString(16)} `;
  let watched = false;
  for (const entry of Deno.readDirSync("/proc/self/fd")) {
    let target: string;
    try {
      target = Deno.readLinkSync(`/proc/self/fd/${entry.name}`);
      if (target === "anon_inode:inotify") {
        const info = Deno.readTextFileSync(`/proc/self/fdinfo/${entry.name}`);
        watched ||= info.includes(inode);
      }
    } catch {
      continue; // the directory listing's own fd, closed already
    }
    if (target.startsWith(`${dir}/`)) files.push(target);
  }
  return { files: files.sort(), watched };
}

Deno.test({
  name:
    "startGate() closes the policy watcher, audit log and pins it opened when a later option or the server is refused",
  ignore: Deno.build.os !== "linux",
  async fn(t) {
    const dir = await Deno.realPath(
      await Deno.makeTempDir({ prefix: "gate-refused-" }),
    );
    const policy = `${dir}/policy.yaml`;
    await Deno.writeTextFile(policy, "allow: []\n");
    const files = {
      policy,
      audit: `${dir}/audit.jsonl`,
      pins: `${dir}/pins.json`,
      log: () => {},
    };
    const before = heldOpen(dir);
    const refused = async (
      start: () => Promise<unknown>,
      error: RegExp,
    ) => {
      await assert.rejects(start, error);
      assert.deepEqual(heldOpen(dir), before);
    };
    try {
      await t.step("a wrong newTools", async () => {
        await refused(
          // @ts-expect-error: the wrong value on purpose
          () => startGate(["x"], { ...files, newTools: "maybe" }),
          /newTools must be "allow", "ask" or "deny", got "maybe"/,
        );
      });
      await t.step("an auditAnchor without audit", async () => {
        await refused(
          () =>
            startGate(["x"], {
              ...files,
              audit: undefined,
              auditAnchor: `${dir}/anchor.json`,
            }),
          /auditAnchor needs audit/,
        );
      });
      await t.step("a pins file that cannot be read", async () => {
        await Deno.writeTextFile(files.pins, "not json");
        await refused(() => startGate(["x"], files), /Cannot read the pins/);
        await Deno.remove(files.pins);
      });
      await t.step("a server that cannot be started", async () => {
        await refused(
          () => startGate(["/no/such/program"], files),
          /Cannot start the server: command not found/,
        );
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
