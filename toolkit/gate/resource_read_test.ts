// A host's resources/read of a file:// URI, decided as a read of that file.

import assert from "node:assert/strict";
import { startGate } from "./gate.ts";
import { hostStreams } from "./testdata/host_streams.ts";
import { FAKE_COMMAND } from "./testdata/gate_process.ts";

Deno.test("the gate decides resources/read of a file:// URI as read: of that file", async (t) => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  await Deno.mkdir(`${dir}/work/secrets`, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/gate.json`,
    JSON.stringify({
      allow: ["read:**"],
      deny: ["read:secrets/**"],
      roots: [`${dir}/work`],
    }),
  );
  const host = hostStreams();
  const gate = await startGate(FAKE_COMMAND, {
    policy: `${dir}/gate.json`,
    audit: `${dir}/audit.jsonl`,
    readable: host.readable,
    writable: host.writable,
    log: () => {},
  });
  const read = async (id: number, uri: string) => {
    await host.send({
      jsonrpc: "2.0",
      id,
      method: "resources/read",
      params: { uri },
    });
    for (;;) {
      const message = await host.next();
      if (message.id === id) return message;
    }
  };
  try {
    await t.step(
      "a denied file is refused before the server sees it",
      async () => {
        const answer = await read(1, `file://${dir}/work/secrets/key`);
        assert.match(
          answer.error.message,
          /refuses this call of resources\/read: read:secrets\/key denied by read:secrets\/\*\*/,
        );
      },
    );
    await t.step("a link cannot smuggle the read past the rule", async () => {
      await Deno.symlink(`${dir}/work/secrets`, `${dir}/work/notes`);
      const answer = await read(2, `file://${dir}/work/notes/key`);
      assert.match(answer.error.message, /read:secrets\/key denied/);
    });
    await t.step("an allowed file reaches the server", async () => {
      // The fake server has no resources: its own error says it got the read.
      const answer = await read(3, `file://${dir}/work/a.txt`);
      assert.match(answer.error.message, /^Method not found: resources\/read/);
    });
    await t.step("a URI of another scheme passes as it is", async () => {
      const answer = await read(4, "test://static/1");
      assert.match(answer.error.message, /^Method not found/);
    });
    await t.step("each decided read is audited", async () => {
      const lines = (await Deno.readTextFile(`${dir}/audit.jsonl`)).trim()
        .split("\n").map((line) => JSON.parse(line));
      assert.deepEqual(
        lines.map((l) => [l.tool, l.patterns, l.outcome]),
        [
          ["resources/read", ["read:secrets/key"], "denied"],
          // The link's name and the file it reaches.
          ["resources/read", ["read:notes/key", "read:secrets/key"], "denied"],
          ["resources/read", ["read:a.txt"], "forwarded"],
        ],
      );
    });
  } finally {
    await host.end();
    await gate.close();
    await host.drain().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});
