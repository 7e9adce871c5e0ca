// The gate of many servers as the host runs it: gate/main.ts with
// a policy naming three real servers (the official filesystem server with
// its preset, hello-tool, and examples/everything over Streamable HTTP by
// URL), one of them killed mid-session; one stopped (SIGSTOP), found by
// its missed ping; and flows across two servers.

import assert from "node:assert/strict";
import {
  callTool,
  childrenOf,
  HELLO_COMMAND,
  type Message,
  startGateProcess,
  textOf,
} from "./testdata/gate_process.ts";
import { httpServer } from "./testdata/http_server.ts";
import { until } from "../testing/_until.ts";
import { processEnded } from "./testdata/process_ended.ts";

const FILESYSTEM = "npm:@modelcontextprotocol/server-filesystem@2026.8.31";
const EVERYTHING = new URL("../../examples/everything/main.ts", import.meta.url)
  .pathname;
const FAKE = new URL("./testdata/fake_server.ts", import.meta.url).pathname;
const HANGING = new URL("./testdata/hanging_server.ts", import.meta.url)
  .pathname;

/** The process under the gate (at any depth) whose command line holds `marker`. */
async function processWith(
  gatePid: number,
  marker: string,
): Promise<number | undefined> {
  const queue = [gatePid];
  while (queue.length > 0) {
    for (const pid of await childrenOf(queue.shift()!)) {
      const cmdline = await Deno.readTextFile(`/proc/${pid}/cmdline`).catch(
        () => "",
      );
      if (cmdline.includes(marker) && !cmdline.startsWith("/bin/sh\0")) {
        return pid;
      }
      queue.push(pid);
    }
  }
  return undefined;
}

Deno.test("one gate fronts the filesystem server, hello-tool and everything by URL, and outlives one of them", async (t) => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const work = `${dir}/work`;
  await Deno.mkdir(`${work}/notes`, { recursive: true });
  await Deno.writeTextFile(`${work}/notes/a.txt`, "from the files server");
  await using everything = await httpServer(EVERYTHING);
  const policy = `${dir}/gate.yaml`;
  await Deno.writeTextFile(
    policy,
    `
allow: ["read:**", "write:notes/**"]
deny: ["write:secrets/**"]
unprobed: allow
servers:
  files:
    command: ["deno", "run", "-A", "--no-lock", "--quiet", "${FILESYSTEM}", "${work}"]
    presets: [filesystem]
    roots: ["${work}"]
  notes:
    command: ${JSON.stringify(HELLO_COMMAND)}
    env: { HELLO_ROOT: "${work}" }
  web:
    url: "${everything.url}"
    tools: { test_error_handling: deny }
`,
  );
  await using gate = await startGateProcess(
    ["--policy", policy, "--audit", `${dir}/audit.jsonl`],
    [],
  );
  try {
    await t.step(
      "the host sees every server's tools under its prefix",
      async () => {
        const { tools } = await gate.request("tools/list") as {
          tools: Message[];
        };
        const names = tools.map((tool) => tool.name as string);
        for (
          const name of [
            "files_read_text_file",
            "notes_hello",
            "web_test_simple_text",
          ]
        ) {
          assert.ok(names.includes(name), `${name} in ${names.join(", ")}`);
        }
      },
    );

    await t.step("a call of each server is decided and answered", async () => {
      const read = await callTool(gate, "files_read_text_file", {
        path: `${work}/notes/a.txt`,
      });
      assert.equal(textOf(read), "from the files server");
      const hello = await callTool(gate, "notes_hello", { name: "T" });
      assert.match(textOf(hello), /T/);
      const simple = await callTool(gate, "web_test_simple_text");
      assert.equal(simple.result.isError, undefined);
      const denied = await callTool(gate, "web_test_error_handling");
      assert.match(textOf(denied), /^Server "web": .*test_error_handling/);
      const audit = (await Deno.readTextFile(`${dir}/audit.jsonl`)).trim()
        .split("\n").map((line) => JSON.parse(line));
      assert.deepEqual(
        audit.map((line) => [line.server, line.tool, line.outcome]),
        [
          ["files", "read_text_file", "forwarded"],
          ["notes", "hello", "forwarded"],
          ["web", "test_simple_text", "forwarded"],
          ["web", "test_error_handling", "denied"],
        ],
      );
    });

    await t.step(
      "a killed server goes and comes back; the others answer meanwhile",
      async () => {
        const pid = await processWith(gate.pid, FILESYSTEM);
        assert.ok(
          pid !== undefined,
          "the filesystem server runs under the gate",
        );
        const changes = () =>
          gate.messages.filter((m) =>
            m.method === "notifications/tools/list_changed"
          ).length;
        const before = changes();
        Deno.kill(pid, "SIGKILL");
        await gate.next((m) => m.method === "notifications/tools/list_changed");
        const hello = await callTool(gate, "notes_hello", { name: "U" });
        assert.match(textOf(hello), /U/);
        const simple = await callTool(gate, "web_test_simple_text");
        assert.equal(simple.result.isError, undefined);
        // Back once the host hears the second change.
        await gate.next(() => changes() >= before + 2, { timeoutMs: 60_000 });
        const read = await callTool(gate, "files_read_text_file", {
          path: `${work}/notes/a.txt`,
        });
        assert.equal(textOf(read), "from the files server");
        assert.match(gate.stderr, /server "files" is down: its server exited/);
      },
    );
  } finally {
    await gate.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("flows span servers: after files read a secret, another server's network call is refused", async (t) => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const work = `${dir}/work`;
  await Deno.mkdir(`${work}/secrets`, { recursive: true });
  await Deno.writeTextFile(`${work}/secrets/key`, "sk-top-secret");
  const policy = `${dir}/gate.yaml`;
  await Deno.writeTextFile(
    policy,
    `
allow: ["read:**", "net:**", "x-fake:**"]
servers:
  files:
    command: ["deno", "run", "-A", "--no-lock", "--quiet", "${FILESYSTEM}", "${work}"]
    presets: [filesystem]
    roots: ["${work}"]
  fetch:
    command: ["${Deno.execPath()}", "run", "${FAKE}"]
flows:
  - after: ["read:secrets/**"]
    deny: ["net:**", "exec:**"]
  - after: ["net:**"]
    ask: ["write:**", "exec:**", unprobed]
`,
  );
  const audit = `${dir}/audit.jsonl`;
  const fetchCall = (gate: Awaited<ReturnType<typeof startGateProcess>>) =>
    callTool(gate, "fetch_probed", {
      patterns: ["net:https://evil.example"],
    });
  try {
    await t.step(
      "in a session that read the secret, the fetch is refused and audited with the flow",
      async () => {
        await using gate = await startGateProcess(
          ["--policy", policy, "--audit", audit],
          [],
        );
        const read = await callTool(gate, "files_read_text_file", {
          path: `${work}/secrets/key`,
        });
        assert.equal(textOf(read), "sk-top-secret");
        const refused = await fetchCall(gate);
        assert.equal(refused.result.isError, true);
        assert.match(
          textOf(refused),
          /net:https:\/\/evil\.example denied by flows\[0\] \(net:\*\*\), since this session read secrets\/key with files_read_text_file/,
        );
        await gate.close();
        const lines = (await Deno.readTextFile(audit)).trim().split("\n").map(
          (line) => JSON.parse(line),
        );
        const last = lines.at(-1);
        assert.equal(last.server, "fetch");
        assert.equal(last.flow, "flows[0]");
        assert.equal(last.outcome, "denied");
        // `since` names the line of the read that set the flow off.
        const readLine = lines.findIndex((l) => l.tool === "read_text_file");
        assert.equal(lines[readLine + 1].prev, last.since);
      },
    );

    await t.step(
      "a fresh session starts clean: the same call is allowed",
      async () => {
        await using gate = await startGateProcess(
          ["--policy", policy, "--audit", `${dir}/audit2.jsonl`],
          [],
        );
        const allowed = await fetchCall(gate);
        assert.equal(allowed.result.isError, undefined);
        await gate.close();
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a stopped filesystem server misses its ping and comes back, while the other server answers every call", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const work = `${dir}/work`;
  await Deno.mkdir(work);
  await Deno.writeTextFile(`${work}/a.txt`, "from the files server");
  const policy = `${dir}/gate.yaml`;
  await Deno.writeTextFile(
    policy,
    `
allow: ["read:**"]
unprobed: allow
servers:
  files:
    command: ["deno", "run", "-A", "--no-lock", "--quiet", "${FILESYSTEM}", "${work}"]
    presets: [filesystem]
    roots: ["${work}"]
    ping: 0.5
  notes:
    command: ["${Deno.execPath()}", "run", "--allow-env", "--allow-write", "${HANGING}"]
    env: { HANGING_LABEL: notes, HANGING_LOG: "${dir}/notes.log" }
    ping: 0.2
`,
  );
  await using gate = await startGateProcess(["--policy", policy], []);
  let stopped: number | undefined;
  const read = () =>
    callTool(gate, "files_read_text_file", { path: `${work}/a.txt` });
  try {
    assert.equal(textOf(await read()), "from the files server");
    stopped = await processWith(gate.pid, FILESYSTEM);
    assert.ok(
      stopped !== undefined,
      "the filesystem server runs under the gate",
    );
    const changed = (m: Message) =>
      m.method === "notifications/tools/list_changed";
    const changes = () => gate.messages.filter(changed).length;
    const before = changes();
    Deno.kill(stopped, "SIGSTOP");
    // A read sent to the stopped server waits for it.
    await gate.sendMessage({
      jsonrpc: "2.0",
      id: "stuck",
      method: "tools/call",
      params: {
        name: "files_read_text_file",
        arguments: { path: `${work}/a.txt` },
      },
    });
    // The host calls notes after each of its pings until it hears files go
    // (the default pingTimeoutMs, 10 s, after the ping files missed).
    let ping = gate.messages.filter((m) =>
      String(m.params?.data).startsWith("notes ping ")
    ).length;
    let calls = 0;
    while (changes() === before) {
      const since = gate.messages.length;
      const echo = await callTool(gate, "notes_echo");
      assert.equal(textOf(echo), "notes echo");
      calls++;
      ping++;
      await gate.next(
        (m) =>
          changed(m) || m.params?.data === `notes ping ${ping}`,
        { since, timeoutMs: 20_000 },
      );
    }
    assert.ok(calls > 1, `${calls} calls`);
    const stuck = await gate.response("stuck");
    assert.equal(stuck.result?.isError, true, JSON.stringify(stuck));
    assert.match(
      textOf(stuck),
      /^Server "files" is not available: it did not answer a ping within 10 s; the gate starts it again in 250 ms$/,
    );
    assert.match(
      gate.stderr,
      /server "files" is down: it did not answer a ping within 10 s; the gate starts it again in 250 ms/,
    );
    // Back once the host hears the second change: a new process, and the
    // stopped one killed.
    await gate.next(() => changes() >= before + 2, { timeoutMs: 60_000 });
    assert.equal(textOf(await read()), "from the files server");
    await until("the stopped server's end", () => processEnded(stopped!), {
      timeoutMs: 20_000,
    });
    const again = await processWith(gate.pid, FILESYSTEM);
    assert.ok(again !== undefined && again !== stopped);
    assert.equal(textOf(await callTool(gate, "notes_echo")), "notes echo");
  } finally {
    if (stopped !== undefined) {
      try {
        Deno.kill(stopped, "SIGCONT");
      } catch {
        // It was killed.
      }
    }
    await gate.close();
    await Deno.remove(dir, { recursive: true });
  }
});
