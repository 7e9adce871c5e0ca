import assert from "node:assert/strict";
import type { ServerProcess } from "./_server_process.ts";
import { serverExit, stopServer } from "./_shutdown.ts";
import { messageChannel } from "../../jsonrpc/_message_channel.ts";

function status(code: number, signal: Deno.Signal | null = null) {
  return { success: code === 0, code, signal };
}

Deno.test("serverExit() keeps a clean stop quiet, and reports any other exit", () => {
  assert.deepEqual(serverExit(status(0), false), {
    code: 0,
    reason: "The gate stopped before the server answered",
  });
  assert.deepEqual(serverExit(status(3), false), {
    code: 3,
    reason: "The gate stopped before the server answered",
    logLine: "the server exited with status 3",
  });
});

Deno.test("serverExit() makes an exit while the host is connected a failure", () => {
  assert.deepEqual(serverExit(status(0), true), {
    code: 1,
    reason: "The server exited with status 0 before answering",
    logLine: "the server exited with status 0",
  });
  assert.deepEqual(serverExit(status(143, "SIGTERM"), true), {
    code: 143,
    reason: "The server exited with signal SIGTERM before answering",
    logLine: "the server exited with signal SIGTERM",
  });
});

/** A server that exits when it is signalled, or when `exit` is called. */
function fakeServer() {
  const signals: Deno.Signal[] = [];
  let exit!: (status: Deno.CommandStatus) => void;
  const child: ServerProcess = {
    pid: 1,
    transport: messageChannel()[0],
    closeStdin: () => Promise.resolve(),
    dispose: () => {},
    status: new Promise((resolve) => exit = resolve),
    kill(signal) {
      signals.push(signal);
      exit(status(143, signal));
    },
  };
  return { child, signals, exit };
}

Deno.test("stopServer() leaves a server that exits in its grace alone", async () => {
  const { child, signals, exit } = fakeServer();
  const lines: string[] = [];
  const stopped = stopServer(child, {
    graceMs: 60_000,
    log: (line) => lines.push(line),
  });
  exit(status(0));
  await stopped;
  assert.deepEqual(signals, []);
  assert.deepEqual(lines, []);
});

Deno.test("stopServer() sends SIGTERM once the grace is over", async () => {
  const { child, signals } = fakeServer();
  const lines: string[] = [];
  await stopServer(child, { graceMs: 0, log: (line) => lines.push(line) });
  assert.deepEqual(signals, ["SIGTERM"]);
  assert.deepEqual(lines, [
    "the server did not exit within 0 ms of its stdin closing: sending SIGTERM",
  ]);
});
