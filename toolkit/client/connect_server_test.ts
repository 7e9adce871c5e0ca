// connectServer(): the options it refuses, and a server that cannot be
// started, exits before it answers, or does not answer in time, each an
// Error naming the server and why.

import assert from "node:assert/strict";
import { connectServer } from "./connect_server.ts";
import { messageChannel } from "../jsonrpc/_message_channel.ts";

Deno.test("connectServer refuses options that name no server or two", async () => {
  await assert.rejects(
    connectServer({}),
    TypeError,
    "expected exactly one of command, url and transport",
  );
  const [ours] = messageChannel();
  await assert.rejects(
    connectServer({ command: ["x"], transport: ours }),
    TypeError,
    "expected exactly one of command, url and transport",
  );
  await assert.rejects(
    connectServer({ command: [] }),
    TypeError,
    "command: expected a non-empty array of strings",
  );
  await assert.rejects(
    connectServer({ transport: ours, timeoutMs: 0 }),
    RangeError,
    "timeoutMs must be > 0, got 0",
  );
});

Deno.test("connectServer says why a server did not connect", async (t) => {
  await t.step("a command that does not exist", async () => {
    await assert.rejects(
      connectServer({ command: ["/nonexistent/forge-server"] }),
      /Cannot connect to server \/nonexistent\/forge-server: cannot start "\/nonexistent\/forge-server"/,
    );
  });
  await t.step("a server that exits before it answers", async () => {
    await assert.rejects(
      connectServer({ command: ["sh", "-c", "exit 3"], name: "quitter" }),
      /Cannot connect to server quitter: Server "quitter" is not available: it exited with code 3/,
    );
  });
  await t.step("a server that does not answer initialize in time", async () => {
    const [ours, theirs] = messageChannel();
    await theirs.start();
    let cancelled: unknown;
    theirs.onmessage = (message) => {
      if ("method" in message && message.method === "notifications/cancelled") {
        cancelled = message.params?.requestId;
      }
    };
    await assert.rejects(
      connectServer({ transport: ours, name: "mute", timeoutMs: 20 }),
      /Cannot connect to server mute: it did not answer initialize within 20 ms/,
    );
    assert.equal(cancelled, 1);
  });
  await t.step("a server whose initialize result is not one", async () => {
    const [ours, theirs] = messageChannel();
    theirs.onmessage = (message) => {
      if ("id" in message && "method" in message) {
        theirs.send({ jsonrpc: "2.0", id: message.id, result: {} });
      }
    };
    await theirs.start();
    await assert.rejects(
      connectServer({ transport: ours, name: "odd" }),
      /Cannot connect to server odd: its initialize result has no protocolVersion string/,
    );
  });
});
