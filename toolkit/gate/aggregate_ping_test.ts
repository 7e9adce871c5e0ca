// A gate of many servers pings each server that is up (`ping` seconds of
// its entry): one that hangs once up answers no ping and is taken down
// and started again alone. In process over a pair of streams, in front of
// testdata/hanging_server.ts run as real processes.

import assert from "node:assert/strict";
import { startGate } from "./gate.ts";
import { hostStreams } from "./testdata/host_streams.ts";
import { until } from "../testing/_until.ts";
import { httpServer } from "./testdata/http_server.ts";
import { processEnded } from "./testdata/process_ended.ts";

// deno-lint-ignore no-explicit-any
type Message = Record<string, any>;

const HANGING = new URL("./testdata/hanging_server.ts", import.meta.url)
  .pathname;
const EVERYTHING = new URL("../../examples/everything/main.ts", import.meta.url)
  .pathname;
/** What the everything example's test_simple_text answers. */
const SIMPLE_TEXT = "This is a simple text response for testing.";
/** The longest any one wait of these tests may take. */
const WAIT_MS = 20_000;

/** An entry of a hanging server labelled `label`, logging to `dir/label.log`. */
function hanging(
  dir: string,
  label: string,
  entry: Record<string, unknown>,
  env: Record<string, string> = {},
): Record<string, unknown> {
  return {
    command: [Deno.execPath(), "run", "--allow-env", "--allow-write", HANGING],
    env: { HANGING_LABEL: label, HANGING_LOG: `${dir}/${label}.log`, ...env },
    ...entry,
  };
}

/** What the server labelled `label` wrote to its log: its starts' pids and its pings. */
async function logOf(dir: string, label: string) {
  const lines = (await Deno.readTextFile(`${dir}/${label}.log`)).trim()
    .split("\n");
  return {
    starts: lines.filter((l) => l.startsWith("start ")).map((l) =>
      Number(l.slice(6))
    ),
    pings: lines.filter((l) => l === "ping").length,
  };
}

/** Rejects after `ms`, naming `what`, unless `promise` settles first. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`Timed out waiting for ${what}`)),
          WAIT_MS,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Starts a gate of `servers` (written with `dir`) and initializes. */
async function startPinged(
  servers: (dir: string) => Record<string, unknown>,
  pingTimeoutMs = 500,
) {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/gate.json`;
  await Deno.writeTextFile(
    path,
    JSON.stringify({ unprobed: "allow", servers: servers(dir) }),
  );
  const host = hostStreams();
  const lines: string[] = [];
  const gate = await startGate([], {
    policy: path,
    readable: host.readable,
    writable: host.writable,
    log: (line) => lines.push(line),
    graceMs: 200,
    pingTimeoutMs,
  });
  const messages: Message[] = [];
  /** The next message `match` takes, among those not yet taken. */
  const next = (what: string, match: (m: Message) => boolean) =>
    within(
      (async () => {
        for (;;) {
          const index = messages.findIndex(match);
          if (index !== -1) return messages.splice(index, 1)[0];
          messages.push(await host.next());
        }
      })(),
      what,
    );
  let nextId = 0;
  const call = async (name: string) => {
    const id = ++nextId;
    await host.call(id, name);
    return id;
  };
  const answer = (id: number) =>
    next(`the answer to ${id}`, (m) => m.id === id && m.method === undefined);
  await host.send({
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    },
  });
  await next("initialize", (m) => m.id === "init");
  await host.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return {
    dir,
    lines,
    next,
    call,
    answer,
    /** Whether a message `match` takes has arrived (it stays to be taken). */
    seen: (match: (m: Message) => boolean) => messages.some(match),
    /** Puts a taken message back, to be taken again. */
    put: (message: Message) => void messages.unshift(message),
    async [Symbol.asyncDispose]() {
      await host.end().catch(() => {});
      // Pinged servers keep saying so: the host reads on while the gate
      // closes, or what it left unread would hold the gate's output open.
      const reading = (async () => {
        for (;;) await host.next();
      })().catch(() => {});
      await gate.close();
      await host.drain().catch(() => {});
      await reading;
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const textOf = (answer: Message): string => answer.result?.content?.[0]?.text;

Deno.test("a server that hangs once up misses a ping and goes down alone: its call fails, the host hears it, and it comes back", async () => {
  await using gate = await startPinged((dir) => ({
    a: hanging(dir, "a", { ping: 0.2 }),
    b: hanging(dir, "b", { ping: 0.05 }),
  }));
  assert.equal(textOf(await gate.answer(await gate.call("a_echo"))), "a echo");
  const [first] = (await logOf(gate.dir, "a")).starts;
  const hung = await gate.call("a_hang");
  // The host calls the other server, pinged too, after each of its pings
  // while a hangs: every call is answered, until a's call is.
  const answered = (m: Message) => m.id === hung && m.method === undefined;
  let calls = 0;
  for (let ping = 1; !gate.seen(answered); ping++) {
    assert.equal(
      textOf(await gate.answer(await gate.call("b_echo"))),
      "b echo",
    );
    calls++;
    await gate.next(
      `b's ping ${ping} or a's answer`,
      (m) => answered(m) || m.params?.data === `b ping ${ping}`,
    ).then((m) => answered(m) ? gate.put(m) : undefined);
  }
  assert.ok(calls > 1, `${calls} calls`);
  const failed = await gate.answer(hung);
  assert.equal(failed.result.isError, true);
  assert.match(
    textOf(failed),
    /^Server "a" is not available: it did not answer a ping within 500 ms; the gate starts it again in 250 ms$/,
  );
  assert.ok(
    gate.lines.includes(
      'server "a" is down: it did not answer a ping within 500 ms; the gate starts it again in 250 ms',
    ),
    gate.lines.join("\n"),
  );
  // The host hears the change twice: a went, and a came back.
  const changed = (m: Message) =>
    m.method === "notifications/tools/list_changed";
  await gate.next("a's tools going", changed);
  await gate.next("a's tools coming back", changed);
  assert.equal(textOf(await gate.answer(await gate.call("a_echo"))), "a echo");
  assert.equal(textOf(await gate.answer(await gate.call("b_echo"))), "b echo");
  // A new process; the hung one, which ignores SIGTERM, was killed.
  const { starts } = await logOf(gate.dir, "a");
  assert.equal(starts.length, 2);
  assert.notEqual(starts[1], first);
  await until("the hung server's end", () => processEnded(first));
  // b was never taken down.
  assert.equal((await logOf(gate.dir, "b")).starts.length, 1);
  assert.ok(!gate.lines.some((l) => l.startsWith('server "b" is down')));
});

Deno.test("a server with ping: 0 is never pinged, while another is", async () => {
  await using gate = await startPinged((dir) => ({
    quiet: hanging(dir, "quiet", { ping: 0 }),
    busy: hanging(dir, "busy", { ping: 0.05 }),
  }));
  // Five of the other's intervals have passed.
  await gate.next(
    "the fifth ping of busy",
    (m) =>
      m.method === "notifications/message" && m.params.data === "busy ping 5",
  );
  assert.deepEqual((await logOf(gate.dir, "quiet")).pings, 0);
  assert.ok(!gate.seen((m) => /^quiet ping/.test(m.params?.data)));
  assert.equal(
    textOf(await gate.answer(await gate.call("quiet_echo"))),
    "quiet echo",
  );
});

Deno.test("a server that answers ping with -32601 stays up", async () => {
  await using gate = await startPinged((dir) => ({
    old: hanging(dir, "old", { ping: 0.05 }, { HANGING_PING: "error" }),
  }));
  // A ping is sent only once the one before was answered: three error
  // answers have each kept it up.
  await gate.next(
    "the fourth ping",
    (m) =>
      m.method === "notifications/message" && m.params.data === "old ping 4",
  );
  const { starts, pings } = await logOf(gate.dir, "old");
  assert.equal(starts.length, 1);
  assert.ok(pings >= 4);
  assert.ok(!gate.lines.some((l) => l.includes("is down")), gate.lines.join());
  assert.equal(
    textOf(await gate.answer(await gate.call("old_echo"))),
    "old echo",
  );
});

Deno.test("startGate() refuses a pingTimeoutMs that is not a positive number", async () => {
  for (const pingTimeoutMs of [0, -1, Infinity, NaN]) {
    await assert.rejects(
      startGate([], { policy: "unused.yaml", pingTimeoutMs }),
      RangeError,
      `pingTimeoutMs must be a number of milliseconds > 0, got ${pingTimeoutMs}`,
    );
  }
});

Deno.test("a server by URL that stops answering misses a ping, goes down alone, and comes back", async () => {
  await using everything = await httpServer(EVERYTHING);
  await using gate = await startPinged((dir) => ({
    web: { url: everything.url, ping: 0.2 },
    b: hanging(dir, "b", { ping: 0 }),
  }));
  const simple = async () =>
    textOf(await gate.answer(await gate.call("web_test_simple_text")));
  assert.equal(await simple(), SIMPLE_TEXT);
  Deno.kill(everything.pid, "SIGSTOP");
  try {
    const waiting = await gate.call("web_test_simple_text");
    // The other server answers while this one is stopped.
    assert.equal(
      textOf(await gate.answer(await gate.call("b_echo"))),
      "b echo",
    );
    const failed = await gate.answer(waiting);
    assert.equal(failed.result.isError, true);
    assert.match(
      textOf(failed),
      /^Server "web" is not available: it did not answer a ping within 500 ms; the gate starts it again in 250 ms$/,
    );
    await gate.next(
      "web's tools going",
      (m) => m.method === "notifications/tools/list_changed",
    );
  } finally {
    Deno.kill(everything.pid, "SIGCONT");
  }
  await gate.next(
    "web's tools coming back",
    (m) => m.method === "notifications/tools/list_changed",
  );
  assert.equal(await simple(), SIMPLE_TEXT);
  assert.ok(!gate.lines.some((l) => l.startsWith('server "b" is down')));
});
