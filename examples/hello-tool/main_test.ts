// End-to-end tests of hello-tool: every behaviour is checked from outside,
// over real stdio, against a child process started as `deno task example`
// starts it.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@forge/toolkit";
import type { StdioClient } from "@forge/toolkit/testing";
import {
  EXAMPLE_PERMISSIONS,
  runOnce,
  startSession,
  textOf,
} from "./_main_process.ts";

const PROBE_META = { "forge.permission_patterns": true };
const PROBE = { meta: PROBE_META };

interface Workspace extends AsyncDisposable {
  /** The HELLO_ROOT directory. */
  root: string;
  /** The HELLO_CONFIG file, outside the root. */
  config: string;
  /** A directory beside the root, for escapes to aim at. */
  outside: string;
  env: Record<string, string>;
}

async function workspace(greeting = "Hello"): Promise<Workspace> {
  const base = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "hello-test-" }),
  );
  const root = `${base}/root`;
  const outside = `${base}/outside`;
  const config = `${base}/config.json`;
  await Deno.mkdir(root);
  await Deno.mkdir(outside);
  await Deno.writeTextFile(config, JSON.stringify({ greeting }) + "\n");
  return {
    root,
    config,
    outside,
    env: { HELLO_ROOT: root, HELLO_CONFIG: config },
    async [Symbol.asyncDispose]() {
      await Deno.remove(base, { recursive: true });
    },
  };
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

async function listing(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

async function rejectsWith(
  promise: Promise<unknown>,
  code: number,
  message: RegExp,
): Promise<void> {
  await assert.rejects(promise, (error: Error & { code?: number }) => {
    assert.equal(error.code, code);
    assert.match(error.message, message);
    return true;
  });
}

function assertDomainError(result: CallToolResult, message: RegExp): void {
  assert.equal(result.isError, true, `expected isError, got ${textOf(result)}`);
  assert.match(textOf(result), message);
}

Deno.test("hello-tool lists its three tools and prints one stderr line saying how to connect", async () => {
  await using ws = await workspace();
  await using server = await startSession(ws.env);

  assert.deepEqual(server.initializeResult?.serverInfo, {
    name: "hello-tool",
    version: "0.1.0",
  });
  const listed = await server.request("tools/list");
  const tools = listed.tools as {
    name: string;
    annotations?: Record<string, boolean>;
    inputSchema: Record<string, unknown>;
    _meta?: Record<string, unknown>;
  }[];
  assert.deepEqual(tools.map((tool: { name: string }) => tool.name), [
    "hello",
    "write_file",
    "delete_file",
  ]);
  const [hello, write, remove] = tools;
  assert.equal(hello.annotations?.readOnlyHint, true);
  assert.equal(hello._meta?.["forge.supports_permission_patterns"], undefined);
  for (const tool of [write, remove]) {
    assert.equal(tool._meta?.["forge.supports_permission_patterns"], true);
    assert.equal(tool.annotations?.destructiveHint, true);
    assert.equal(
      tool.inputSchema.$schema,
      "https://json-schema.org/draft/2020-12/schema",
    );
  }
  assert.deepEqual(write.inputSchema.required, ["path", "content"]);

  const status = await server.close();
  assert.equal(status.code, 0, "stdin EOF ends the server with status 0");
  assert.equal(server.stderrLines.length, 1, server.stderr);
  const [line] = server.stderrLines;
  const snippet = JSON.parse(line.slice(line.indexOf("{")));
  const entry = snippet.mcpServers["hello-tool"];
  assert.equal(entry.command, Deno.execPath());
  assert.deepEqual(entry.args.slice(0, -1), ["run", ...EXAMPLE_PERMISSIONS]);
  assert.match(entry.args.at(-1), /examples\/hello-tool\/main\.ts$/);
  assert.equal(entry.env.HELLO_ROOT, ws.root);
});

Deno.test("hello greets with the config's greeting and follows edits without a restart", async (t) => {
  await using ws = await workspace("Hello");
  await using server = await startSession(ws.env);
  const greet = async () => textOf(await server.call("hello", { name: "Ada" }));

  await t.step("answers <greeting>, <name>!", async () => {
    const result = await server.call("hello", { name: "Ada" });
    assert.deepEqual(result, {
      content: [{ type: "text", text: "Hello, Ada!" }],
    });
  });

  await t.step("a valid edit changes the next answer", async () => {
    await Deno.writeTextFile(ws.config, '{ "greeting": "Bonjour" }\n');
    await server.waitForStderr(/greeting is now "Bonjour"/);
    assert.equal(await greet(), "Bonjour, Ada!");
  });

  await t.step(
    "an edit that does not parse keeps the greeting and logs where it broke",
    async () => {
      const since = server.stderrLines.length;
      await Deno.writeTextFile(ws.config, '{ "greeting": "Hi", }\n');
      await server.waitForStderr(/config change ignored/, { since });
      const logged = server.stderrLines.slice(since).join("\n");
      assert.match(logged, /config change ignored, keeping greeting "Bonjour"/);
      assert.match(logged, /config\.json:1:\d+: /);
      assert.equal(await greet(), "Bonjour, Ada!");
    },
  );

  await t.step(
    "an edit that fails the schema keeps the greeting and logs the field",
    async () => {
      const since = server.stderrLines.length;
      await Deno.writeTextFile(ws.config, '{ "greeting": 42 }\n');
      await server.waitForStderr(/config change ignored/, { since });
      assert.match(
        server.stderrLines.slice(since).join("\n"),
        /greeting: .*string/,
      );
      assert.equal(await greet(), "Bonjour, Ada!");
    },
  );

  await t.step("a later valid edit applies again", async () => {
    await Deno.writeTextFile(ws.config, '{ "greeting": "Hej" }\n');
    await server.waitForStderr(/greeting is now "Hej"/);
    assert.equal(await greet(), "Hej, Ada!");
  });

  await t.step(
    "a probe is refused with a JSON-RPC error: hello has no side effects",
    async () => {
      await rejectsWith(
        server.call("hello", { name: "Ada" }, PROBE),
        -32602,
        /does not support permission-pattern probes/,
      );
    },
  );
});

Deno.test("write_file writes under the root, refuses escapes and broken syntax, and its probe writes nothing", async (t) => {
  await using ws = await workspace();
  await using server = await startSession(ws.env);

  await t.step(
    "writes, creating parents, and answers the canonical path",
    async () => {
      const result = await server.call("write_file", {
        path: "./notes//draft/../today.md",
        content: "# Today\n",
      });
      assert.deepEqual(result, {
        content: [{ type: "text", text: "Wrote 8 bytes to notes/today.md" }],
      });
      assert.equal(
        await Deno.readTextFile(`${ws.root}/notes/today.md`),
        "# Today\n",
      );
    },
  );

  await t.step(
    "replaces an existing file whole, keeping its permission bits",
    async () => {
      await Deno.chmod(`${ws.root}/notes/today.md`, 0o600);
      await server.call("write_file", {
        path: "notes/today.md",
        content: "new",
      });
      assert.equal(await Deno.readTextFile(`${ws.root}/notes/today.md`), "new");
      const info = await Deno.stat(`${ws.root}/notes/today.md`);
      assert.equal(info.mode! & 0o777, 0o600);
    },
  );

  await t.step(
    "a probe answers write:<canonical path> and creates nothing",
    async () => {
      const result = await server.call(
        "write_file",
        { path: "drafts/./x/../plan.txt", content: "plan" },
        PROBE,
      );
      assert.deepEqual(result, {
        content: [],
        _meta: {
          "forge.patterns": ["write:drafts/plan.txt"],
          "forge.always": [],
        },
      });
      assert.equal(await exists(`${ws.root}/drafts`), false);
    },
  );

  await t.step(
    "a probe names glob characters escaped, and the real call writes that file",
    async () => {
      const probe = await server.call("write_file", {
        path: "a[1].txt",
        content: "x",
      }, PROBE);
      assert.deepEqual(probe._meta?.["forge.patterns"], ["write:a\\[1\\].txt"]);
      assert.equal(await exists(`${ws.root}/a[1].txt`), false);
      await server.call("write_file", { path: "a[1].txt", content: "x" });
      assert.equal(await Deno.readTextFile(`${ws.root}/a[1].txt`), "x");
    },
  );

  await t.step(
    "paths that leave the root are domain errors, for the probe and the call",
    async () => {
      await Deno.symlink(ws.outside, `${ws.root}/link`);
      for (
        const path of ["../outside/x.txt", `${ws.outside}/x.txt`, "link/x.txt"]
      ) {
        for (const meta of [PROBE, undefined]) {
          const result = await server.call(
            "write_file",
            { path, content: "x" },
            meta,
          );
          assertDomainError(result, /path: .*(leaves|outside) the root/);
        }
      }
      assert.deepEqual(await listing(ws.outside), []);
    },
  );

  await t.step(
    "an absolute path inside the root is fine and named root-relative",
    async () => {
      const result = await server.call("write_file", {
        path: `${ws.root}/abs.txt`,
        content: "ok",
      });
      assert.equal(textOf(result), "Wrote 2 bytes to abs.txt");
    },
  );

  await t.step(
    "broken syntax is refused with path:line:column and nothing is written",
    async (t) => {
      const cases = [
        [
          "conf/app.json",
          '{"port": 80,\n "name": }',
          /^conf\/app\.json:2:10: /,
        ],
        ["conf/app.yaml", "name: a\n  bad: [\n", /^conf\/app\.yaml:\d+:\d+: /],
        ["conf/app.toml", 'name = "a"\nport = \n', /^conf\/app\.toml:2:\d+: /],
        ["conf/app.xml", "<a><b></a>", /^conf\/app\.xml:1:\d+: /],
      ] as const;
      for (const [path, content, where] of cases) {
        await t.step(path, async () => {
          const result = await server.call("write_file", { path, content });
          assertDomainError(result, where);
          assert.match(textOf(result), /Nothing was written/);
          assert.equal(await exists(`${ws.root}/conf`), false);
        });
      }
    },
  );

  await t.step("broken syntax leaves an existing file untouched", async () => {
    await server.call("write_file", { path: "good.json", content: '{"a": 1}' });
    const result = await server.call("write_file", {
      path: "good.json",
      content: '{"a": ',
    });
    assertDomainError(result, /^good\.json:1:7: /);
    assert.equal(await Deno.readTextFile(`${ws.root}/good.json`), '{"a": 1}');
  });

  await t.step(
    "valid structured content and unknown extensions are written",
    async () => {
      await server.call("write_file", { path: "ok.yaml", content: "a: 1\n" });
      await server.call("write_file", {
        path: "notes.txt",
        content: "{ not json",
      });
      assert.equal(await Deno.readTextFile(`${ws.root}/ok.yaml`), "a: 1\n");
      assert.equal(
        await Deno.readTextFile(`${ws.root}/notes.txt`),
        "{ not json",
      );
    },
  );

  await t.step("warnings do not block the write but are shown", async () => {
    const result = await server.call("write_file", {
      path: "dup.json",
      content: '{"a": 1, "a": 2}',
    });
    assert.equal(result.isError, undefined);
    assert.match(
      textOf(result),
      /^Wrote 16 bytes to dup\.json\ndup\.json:1:\d+: warning: /,
    );
  });

  await t.step("a directory in the way is a domain error", async () => {
    assertDomainError(
      await server.call("write_file", { path: "notes", content: "x" }),
      /notes is a directory/,
    );
    assertDomainError(
      await server.call("write_file", {
        path: "notes.txt/inner.txt",
        content: "x",
      }),
      /parent of notes\.txt\/inner\.txt is a file/,
    );
  });

  await t.step(
    "missing or mistyped arguments are domain errors naming the argument",
    async () => {
      assertDomainError(
        await server.call("write_file", { path: "a.txt" }),
        /content/,
      );
      assertDomainError(
        await server.call("write_file", { path: 7, content: "x" }),
        /path: .*string/,
      );
    },
  );

  await t.step("no temporary files are left behind", async () => {
    const names = await listing(ws.root);
    assert.deepEqual(names.filter((name) => name.endsWith(".tmp")), []);
    assert.deepEqual(
      (await listing(`${ws.root}/notes`)).filter((name) =>
        name.startsWith(".")
      ),
      [],
    );
  });
});

Deno.test("delete_file deletes one file, answers delete:<canonical path> to a probe, and reports a missing file", async (t) => {
  await using ws = await workspace();
  await using server = await startSession(ws.env);
  await Deno.mkdir(`${ws.root}/old`);
  await Deno.writeTextFile(`${ws.root}/old/a.log`, "log");

  await t.step("a probe names the file and deletes nothing", async () => {
    const result = await server.call(
      "delete_file",
      { path: "old//./a.log" },
      PROBE,
    );
    assert.deepEqual(result._meta, {
      "forge.patterns": ["delete:old/a.log"],
      "forge.always": [],
    });
    assert.equal(await exists(`${ws.root}/old/a.log`), true);
  });

  await t.step("deletes the file", async () => {
    const result = await server.call("delete_file", { path: "old/a.log" });
    assert.equal(textOf(result), "Deleted old/a.log");
    assert.equal(await exists(`${ws.root}/old/a.log`), false);
  });

  await t.step("a missing file is a domain error", async () => {
    assertDomainError(
      await server.call("delete_file", { path: "old/a.log" }),
      /^path: no such file: old\/a\.log$/,
    );
  });

  await t.step("a directory is refused", async () => {
    assertDomainError(
      await server.call("delete_file", { path: "old" }),
      /old is a directory: expected a file/,
    );
    assert.equal(await exists(`${ws.root}/old`), true);
  });

  await t.step(
    "a path outside the root is refused and nothing is deleted",
    async () => {
      await Deno.writeTextFile(`${ws.outside}/keep.txt`, "keep");
      assertDomainError(
        await server.call("delete_file", { path: "../outside/keep.txt" }),
        /leaves the root/,
      );
      assert.equal(await exists(`${ws.outside}/keep.txt`), true);
    },
  );

  await t.step(
    "a symbolic link is deleted itself, not its target",
    async () => {
      await Deno.writeTextFile(`${ws.root}/target.txt`, "t");
      await Deno.symlink(`${ws.root}/target.txt`, `${ws.root}/alias.txt`);
      await server.call("delete_file", { path: "alias.txt" });
      assert.equal(await exists(`${ws.root}/alias.txt`), false);
      assert.equal(await exists(`${ws.root}/target.txt`), true);
    },
  );
});

Deno.test("hello-tool answers protocol mistakes with JSON-RPC errors and keeps serving", async () => {
  await using ws = await workspace();
  await using server: StdioClient = await startSession(ws.env);
  await rejectsWith(
    server.call("no_such_tool", {}),
    -32602,
    /Unknown tool: "no_such_tool"/,
  );
  await rejectsWith(
    server.call("write_file", { path: "a.txt", content: "x" }, {
      meta: { "forge.permission_patterns": "yes" },
    }),
    -32602,
    /must be true/,
  );
  assert.equal(await exists(`${ws.root}/a.txt`), false);
  assert.equal(
    textOf(await server.call("hello", { name: "Ada" })),
    "Hello, Ada!",
  );
});

Deno.test("hello-tool refuses to start on bad configuration, saying what is wrong", async (t) => {
  await using ws = await workspace();

  await t.step("HELLO_ROOT that does not exist", async () => {
    const run = await runOnce({ ...ws.env, HELLO_ROOT: `${ws.root}/nope` });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, "");
    assert.match(
      run.stderr,
      /HELLO_ROOT does not exist: .*\/nope: expected an existing directory/,
    );
  });

  await t.step("HELLO_ROOT that is a file", async () => {
    const run = await runOnce({ ...ws.env, HELLO_ROOT: ws.config });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /HELLO_ROOT is not a directory/);
  });

  await t.step("HELLO_CONFIG whose syntax is broken", async () => {
    await Deno.writeTextFile(ws.config, '{ "greeting": }');
    const run = await runOnce(ws.env);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /Cannot start: .*config\.json:1:15: /);
  });

  await t.step("HELLO_CONFIG that is missing", async () => {
    const run = await runOnce({
      ...ws.env,
      HELLO_CONFIG: `${ws.root}/none.json`,
    });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /Cannot start: .*none\.json/);
  });

  await t.step("an unknown argument prints the usage", async () => {
    const run = await runOnce(ws.env, ["--verbose"]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /Invalid argument: "--verbose"/);
    assert.match(run.stderr, /Usage: /);
  });

  await t.step("--help prints the usage and exits 0", async () => {
    const run = await runOnce(ws.env, ["--help"]);
    assert.equal(run.code, 0);
    assert.match(run.stderr, /HELLO_ROOT/);
  });
});

Deno.test("hello-tool uses the config.json beside main.ts, and without HELLO_ROOT a new directory it names, never the current directory", async () => {
  await using ws = await workspace();
  // Neither HELLO_ROOT nor HELLO_CONFIG: a clean environment.
  await using server = await startSession({}, {
    cwd: ws.root,
    clearEnv: true,
  });
  const hello = await server.call("hello", { name: "Ada" });
  await server.call("write_file", { path: "here.txt", content: "x" });
  assert.equal((await server.close()).code, 0);
  const repoConfig = JSON.parse(
    await Deno.readTextFile(new URL("./config.json", import.meta.url)),
  );
  assert.equal(textOf(hello), `${repoConfig.greeting}, Ada!`);
  const stderr = server.stderr;
  const named = stderr.match(
    /^hello-tool: HELLO_ROOT is not set: the file tools work in a new empty directory, (\/\S+); set HELLO_ROOT to choose the directory$/m,
  );
  assert.ok(named, stderr);
  // From a clone the file beside main.ts is the config, watched live.
  assert.doesNotMatch(stderr, /built-in default config/);
  const root = named[1];
  try {
    assert.equal(await exists(`${ws.root}/here.txt`), false);
    assert.equal(await Deno.readTextFile(`${root}/here.txt`), "x");
    // The entry to paste gives a host that directory's rule, not the path.
    const line = stderr.split("\n").find((l) => l.includes("mcpServers"))!;
    const entry = JSON.parse(line.slice(line.indexOf("{"))).mcpServers;
    assert.equal(entry["hello-tool"].env, undefined);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("hello-tool without HELLO_ROOT removes its new directory at exit when nothing was written there", async () => {
  const run = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...EXAMPLE_PERMISSIONS,
      new URL("./main.ts", import.meta.url).pathname,
    ],
    clearEnv: true,
    env: { HOME: Deno.env.get("HOME") ?? "/", NO_COLOR: "1", ...denoDir() },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
  const output = await run.output();
  assert.equal(output.code, 0);
  const stderr = new TextDecoder().decode(output.stderr);
  const named = stderr.match(/a new empty directory, (\/\S+);/);
  assert.ok(named, stderr);
  assert.equal(await exists(named[1]), false, `${named[1]} is left behind`);
});

Deno.test("hello-tool --http serves the same tools over Streamable HTTP and stops on SIGTERM", async () => {
  await using ws = await workspace();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...EXAMPLE_PERMISSIONS,
      "--allow-net=127.0.0.1",
      new URL("./main.ts", import.meta.url).pathname,
      "--http",
      "127.0.0.1:0",
    ],
    env: { NO_COLOR: "1", ...ws.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let stderr = "";
  while (!/connect a host to (\S+)\n/.test(stderr)) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`hello-tool did not listen:\n${stderr}`);
    stderr += value;
  }
  const url = new URL(stderr.match(/connect a host to (\S+)\n/)![1]);
  assert.equal(url.hostname, "127.0.0.1");
  assert.equal(url.pathname, "/mcp");

  const client = new Client({ name: "hello-tool-test", version: "0.1.0" });
  await client.connect(new StreamableHTTPClientTransport(url));
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool: { name: string }) => tool.name), [
    "hello",
    "write_file",
    "delete_file",
  ]);
  assert.deepEqual(
    await client.callTool({ name: "hello", arguments: { name: "Ada" } }),
    { content: [{ type: "text", text: "Hello, Ada!" }] },
  );
  const probe = await client.callTool({
    name: "write_file",
    arguments: { path: "web/a.txt", content: "x" },
    _meta: PROBE_META,
  });
  assert.deepEqual(probe._meta?.["forge.patterns"], ["write:web/a.txt"]);
  assert.equal(await exists(`${ws.root}/web`), false);
  await client.callTool({
    name: "write_file",
    arguments: { path: "web/a.txt", content: "x" },
  });
  assert.equal(await Deno.readTextFile(`${ws.root}/web/a.txt`), "x");
  await client.close();

  child.kill("SIGTERM");
  const status = await child.status;
  await lines.cancel();
  await child.stdout.cancel();
  assert.equal(status.code, 0);
});

Deno.test("hello-tool --http without network permission says which flag to add", async () => {
  await using ws = await workspace();
  const run = await runOnce(ws.env, ["--http", "127.0.0.1:8123"]);
  assert.equal(run.code, 1);
  assert.match(
    run.stderr,
    /Cannot serve HTTP: no network permission for 127\.0\.0\.1:8123: run with --allow-net=127\.0\.0\.1:8123/,
  );
});

function denoDir(): Record<string, string> {
  const dir = Deno.env.get("DENO_DIR");
  return dir === undefined ? {} : { DENO_DIR: dir };
}
