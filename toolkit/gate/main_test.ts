// The gate's command line and lifecycle, as real processes.

import assert from "node:assert/strict";
import {
  alive,
  callTool,
  HELLO_COMMAND,
  runGate,
  serverOf,
  startGateProcess,
  STUBBORN_COMMAND,
  textOf,
  writeAtomic,
} from "./testdata/gate_process.ts";
import { until } from "../testing/_until.ts";

Deno.test("gate/main.ts refuses a bad command line with exit 2", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    await t.step("without --policy", async () => {
      const result = await runGate(["--", "true"]);
      assert.equal(result.code, 2);
      // One line, and a hint where the usage is.
      assert.equal(
        result.stderr,
        "forge gate: Missing --policy: expected --policy FILE (see --help)\n",
      );
      assert.equal(result.stdout, "");
    });
    await t.step("without a server command", async () => {
      await Deno.writeTextFile(`${dir}/p.yaml`, 'allow: ["read:**"]\n');
      const result = await runGate(["--policy", `${dir}/p.yaml`]);
      assert.equal(result.code, 2);
      assert.match(
        result.stderr,
        /expected the server command, a url, or a policy that names its servers/,
      );
      assert.equal(result.stderr.trimEnd().split("\n").length, 1);
    });
    await t.step("with a missing policy file", async () => {
      const result = await runGate([
        "--policy",
        `${dir}/nope.yaml`,
        "--",
        "true",
      ]);
      assert.equal(result.code, 2);
      assert.match(
        result.stderr,
        /forge gate: Cannot load the policy: file not found: .*nope\.yaml\n/,
      );
    });
    await t.step(
      "with an invalid policy file, naming file:line:column",
      async () => {
        const path = `${dir}/bad.yaml`;
        await Deno.writeTextFile(
          path,
          'allow: ["read:**"]\ndeny:\n  - "write:a"\n  - "WRITE:b"\n',
        );
        const result = await runGate(["--policy", path, "--", "true"]);
        assert.equal(result.code, 2);
        assert.match(
          result.stderr,
          new RegExp(`${path}:4:6: deny\\[1\\]: unknown verb "WRITE"`),
        );
      },
    );
    await t.step("with a server that cannot start", async () => {
      const path = `${dir}/ok.yaml`;
      await Deno.writeTextFile(path, "unprobed: deny\n");
      const result = await runGate(["--policy", path, "--", "/no/such/server"]);
      assert.equal(result.code, 2);
      assert.match(
        result.stderr,
        /Cannot start the server: command not found: \/no\/such\/server/,
      );
    });
    await t.step("--help prints the usage and exits 0", async () => {
      const result = await runGate(["--help"]);
      assert.equal(result.code, 0);
      assert.match(result.stdout, /^Usage:/);
      assert.equal(result.stderr, "");
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("gate follows an atomic rewrite of its policy file, and keeps the last good one when the rewrite is invalid", async () => {
  const dir = await Deno.makeTempDir();
  const root = `${dir}/root`;
  await Deno.mkdir(root);
  const policy = `${dir}/policy.json`;
  await Deno.writeTextFile(policy, '{ "deny": ["write:**"] }\n');
  try {
    await using gate = await startGateProcess(
      ["--policy", policy],
      HELLO_COMMAND,
      {
        env: { HELLO_ROOT: root },
      },
    );
    const write = () =>
      callTool(gate, "write_file", { path: "a.txt", content: "a" });
    assert.equal((await write()).result.isError, true);

    await writeAtomic(policy, '{ "allow": ["write:**"] }\n');
    await gate.waitForStderr(
      /policy reloaded from .*policy\.json: 1 allow, 0 ask, 0 deny rules/,
    );
    assert.equal(textOf(await write()), "Wrote 1 byte to a.txt");

    await writeAtomic(
      policy,
      '{\n  "allow": ["write:**"],\n  "deny": [42]\n}\n',
    );
    await gate.waitForStderr(
      /policy\.json:3:12: deny\[0\]: expected a rule string, got number \(keeping the last good policy\)/,
    );
    assert.equal(textOf(await write()), "Wrote 1 byte to a.txt");

    await writeAtomic(policy, '{ "allow": ["write:**"], }\n');
    await gate.waitForStderr(
      /policy\.json:1:\d+: .*\(keeping the last good policy\)/,
    );
    assert.equal(textOf(await write()), "Wrote 1 byte to a.txt");
    assert.equal((await gate.close()).code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("gate stops both processes on SIGTERM", async () => {
  const dir = await Deno.makeTempDir();
  const policy = `${dir}/policy.toml`;
  await Deno.writeTextFile(
    policy,
    'allow = ["write:**"]\nunprobed = "allow"\n',
  );
  try {
    await using gate = await startGateProcess(
      ["--policy", policy],
      HELLO_COMMAND,
      {
        env: { HELLO_ROOT: dir },
      },
    );
    assert.equal(
      textOf(await callTool(gate, "hello", { name: "T" })),
      "Hello, T!",
    );
    const server = await serverOf(gate.pid);
    assert.ok(server !== undefined && await alive(server), "no server process");
    gate.kill("SIGTERM");
    const status = await gate.status;
    assert.equal(status.code, 0, gate.stderr);
    assert.equal(await alive(server), false, "the server outlived the gate");
    await gate.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("gate answers calls still in flight at host EOF before exiting", async () => {
  const dir = await Deno.makeTempDir();
  const policy = `${dir}/policy.yaml`;
  await Deno.writeTextFile(policy, 'allow: ["write:**"]\n');
  try {
    await using gate = await startGateProcess(
      ["--policy", policy],
      HELLO_COMMAND,
      {
        env: { HELLO_ROOT: dir },
      },
    );
    await gate.sendMessage({
      jsonrpc: "2.0",
      id: 9,
      method: "tools/call",
      params: {
        name: "write_file",
        arguments: { path: "late.txt", content: "z" },
      },
    });
    const status = await gate.close();
    assert.equal(status.code, 0);
    const answer = gate.messages.find((m) => m.id === 9);
    assert.equal(textOf(answer!), "Wrote 1 byte to late.txt");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A wait whose length is what the test is about: a host's timing. */
function hostWaits(ms: number, done: Promise<unknown>): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    done.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

async function stubbornGate(dir: string) {
  const policy = `${dir}/policy.yaml`;
  await Deno.writeTextFile(policy, "unprobed: allow\n");
  const gate = await startGateProcess(["--policy", policy], STUBBORN_COMMAND);
  const server = await serverOf(gate.pid);
  assert.ok(server !== undefined, "no server process");
  const child = (gate.initializeResult?.serverInfo as { child: number }).child;
  assert.ok(await alive(child), "the server's own child is not running");
  return { gate, server, child };
}

/** Kills what a failed test left running, so that the gate's output ends. */
async function cleanUp(pids: readonly number[]): Promise<void> {
  for (const pid of pids) {
    if (await alive(pid)) Deno.kill(pid, "SIGKILL");
  }
}

Deno.test("a host that closes the usual way leaves no server behind, even one that ignores EOF and SIGTERM", async () => {
  const dir = await Deno.makeTempDir();
  const { gate, server, child } = await stubbornGate(dir);
  try {
    // The SDK's client: end stdin, 2 s, SIGTERM, 2 s, SIGKILL. These waits
    // are the host's timing, which is what is under test.
    const closed = gate.close();
    if (!await hostWaits(2000, gate.status)) {
      gate.kill("SIGTERM");
      if (!await hostWaits(2000, gate.status)) gate.kill("SIGKILL");
    }
    const status = await gate.status;
    assert.notEqual(status.signal, "SIGKILL", "the host had to kill the gate");
    assert.match(gate.stderr, /sending SIGTERM/);
    assert.equal(await alive(server), false, "the server outlived the gate");
    await until("the server's child to go", async () => !await alive(child));
    await closed;
  } finally {
    await cleanUp([server, child]);
    await gate.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the server dies with a gate killed with SIGKILL", async () => {
  const dir = await Deno.makeTempDir();
  const { gate, server, child } = await stubbornGate(dir);
  try {
    gate.kill("SIGKILL");
    assert.equal((await gate.status).signal, "SIGKILL");
    await until("the server to go", async () => !await alive(server));
    await until("the server's child to go", async () => !await alive(child));
  } finally {
    await cleanUp([server, child]);
    await gate.close();
    await Deno.remove(dir, { recursive: true });
  }
});
