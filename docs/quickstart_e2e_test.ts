// docs/quickstart.md, run as written, outside this repository: the page's
// `template/init/main.ts` makes the project in a temporary directory (its deno.json
// links `jsr:@forge/toolkit` to this clone, so nothing is fetched from JSR),
// then the page is followed top to bottom — every `sh` command runs in the
// project, every block marked `<!-- file: name -->` is written there and
// every `<!-- tasks: deno.json -->` block replaces its tasks, and every
// `<!-- host entry: name -->` block is started as a host starts it (its
// command, args and env, from a directory outside the project) — so the
// template's tests, its stdio server, a host's entry and `deno bundle` are
// all exercised.

import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
const PAGE = new URL("docs/quickstart.md", ROOT);
const FILE_MARKER = /^<!-- file: (\S+) -->$/;
const TASKS_MARKER = /^<!-- tasks: deno\.json -->$/;
const HOST_MARKER = /^<!-- host entry: (\S+) -->$/;
/** Where the page's host entries put the project. */
const PAGE_PROJECT = "/Users/me/my-server";
const INIT =
  "deno run --allow-read --allow-write template/init/main.ts ~/my-server";

/**
 * Commands the page shows that cannot run on an offline test machine, and
 * why. Every entry must still be on the page, and every other command runs.
 */
const NOT_RUN: ReadonlyMap<string, string> = new Map([
  [
    "curl -fsSL https://deno.land/install.sh | sh",
    "installs Deno, which is already running this test",
  ],
  [
    "claude mcp add my-server -- deno run --allow-env=GREETING ~/my-server/main.ts",
    "needs a host's CLI",
  ],
  [
    "npx @modelcontextprotocol/inspector deno run --allow-env=GREETING main.ts",
    "opens a browser UI and runs until stopped",
  ],
  [
    "deno task compile",
    "downloads denort from dl.deno.land; `deno bundle` below builds the same graph",
  ],
  ["./dist/my-server", "the binary `deno task compile` would have built"],
]);

/** Commands the page shows that the test performs its own way, and how. */
const SUBSTITUTED: ReadonlyMap<string, string> = new Map([
  [INIT, "runs with a temporary directory in place of ~/my-server"],
  ["cd ~/my-server", "runs the following commands in that project"],
]);

/** What a command's output must show, where the page says what it shows. */
const EXPECTED: ReadonlyMap<string, RegExp> = new Map([
  ["deno --version", /^deno 2\./],
  ["deno task test", /ok \| \d+ passed \| 0 failed/],
]);

type Step =
  | { kind: "command"; command: string; line: number }
  | { kind: "file"; name: string; content: string; line: number }
  | { kind: "tasks"; content: string; line: number }
  | { kind: "host"; name: string; content: string; line: number };

/** The page's commands and files, in reading order. */
function steps(markdown: string): Step[] {
  const lines = markdown.split("\n");
  const out: Step[] = [];
  let pendingFile: string | undefined;
  let pendingTasks = false;
  let pendingHost: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    const host = HOST_MARKER.exec(line);
    if (host !== null) {
      pendingHost = host[1];
      continue;
    }
    const marker = FILE_MARKER.exec(line);
    if (marker !== null) {
      pendingFile = marker[1];
      continue;
    }
    if (TASKS_MARKER.test(line)) {
      pendingTasks = true;
      continue;
    }
    if (!line.startsWith("```")) continue;
    const language = line.slice(3).split(/\s+/)[0];
    const indent = lines[i].indexOf("```");
    const body: string[] = [];
    const start = i + 1;
    for (i++; i < lines.length && lines[i].trim() !== "```"; i++) {
      body.push(lines[i].slice(indent));
    }
    if (pendingHost !== undefined) {
      out.push({
        kind: "host",
        name: pendingHost,
        content: body.join("\n"),
        line: start,
      });
      pendingHost = undefined;
    } else if (pendingTasks) {
      out.push({ kind: "tasks", content: body.join("\n"), line: start });
      pendingTasks = false;
    } else if (pendingFile !== undefined) {
      out.push({
        kind: "file",
        name: pendingFile,
        content: body.join("\n") + "\n",
        line: start,
      });
      pendingFile = undefined;
    } else if (language === "sh") {
      // A trailing backslash continues a command on the next line.
      const joined = body.join("\n").replace(/\\\n\s*/g, "");
      for (const command of joined.split("\n")) {
        if (command.trim() !== "" && !command.trim().startsWith("#")) {
          out.push({ kind: "command", command: command.trim(), line: start });
        }
      }
    }
  }
  return out;
}

async function run(
  command: string,
  cwd: string,
): Promise<{ code: number; output: string }> {
  const result = await new Deno.Command("sh", {
    args: ["-c", command],
    cwd,
    // The server's stdin closes at once unless the command pipes into it.
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const decoder = new TextDecoder();
  return {
    code: result.code,
    output: decoder.decode(result.stdout) + decoder.decode(result.stderr),
  };
}

Deno.test("docs/quickstart.md works as written, in a project made by init/main.ts outside the repository", async (t) => {
  const page = await Deno.readTextFile(PAGE);
  const all = steps(page);
  const commands = all.flatMap((s) => s.kind === "command" ? [s.command] : []);
  for (const known of [...NOT_RUN.keys(), ...SUBSTITUTED.keys()]) {
    assert.ok(commands.includes(known), `no longer on the page: ${known}`);
  }

  const home = await Deno.makeTempDir({ prefix: "forge-quickstart-" });
  const copy = `${home}/my-server`;
  try {
    let cwd = ROOT.pathname;
    for (const step of all) {
      const where = `quickstart.md:${step.line}`;
      if (step.kind === "file") {
        await t.step(`${where}: write ${step.name}`, async () => {
          await Deno.writeTextFile(`${copy}/${step.name}`, step.content);
        });
        continue;
      }
      if (step.kind === "tasks") {
        await t.step(`${where}: replace the tasks of deno.json`, async () => {
          const path = `${copy}/deno.json`;
          const config = JSON.parse(await Deno.readTextFile(path));
          config.tasks = JSON.parse(step.content).tasks;
          await Deno.writeTextFile(path, JSON.stringify(config, null, 2));
        });
        continue;
      }
      if (step.kind === "host") {
        await t.step(`${where}: the host entry saves a note`, async () => {
          const output = await startAsHost(step.content, step.name, {
            project: copy,
            cwd: home,
          });
          assert.match(output, /Saved from-host\.md/, output);
          assert.equal(
            await Deno.readTextFile(`${copy}/notes/from-host.md`),
            "from the host",
          );
        });
        continue;
      }
      const { command } = step;
      if (NOT_RUN.has(command)) continue;
      if (command === INIT) {
        await t.step(`${where}: ${command}`, async () => {
          const { code, output } = await run(
            command.replace("~/my-server", copy),
            cwd,
          );
          assert.equal(code, 0, output);
          assert.match(output, /Created /);
        });
        continue;
      }
      if (command === "cd ~/my-server") {
        cwd = copy;
        continue;
      }
      await t.step(`${where}: ${command.slice(0, 70)}`, async () => {
        const { code, output } = await run(command, cwd);
        assert.equal(code, 0, `${command}\n${output}`);
        const expected = EXPECTED.get(command) ?? expectationFor(command);
        if (expected !== undefined) assert.match(output, expected);
      });
    }
    assert.equal(cwd, copy, "the page never changed into the project");
    // The last steps saved a note through the server: it must be on disk.
    assert.equal(await Deno.readTextFile(`${copy}/notes/first.md`), "hi");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

/**
 * Starts the server as a host would from the page's entry `name`: its
 * command (this Deno), args and env only, the project's path in place of the
 * page's, from `cwd` outside the project; sends initialize and a save_note
 * call, and returns what the server wrote.
 */
async function startAsHost(
  json: string,
  name: string,
  where: { project: string; cwd: string },
): Promise<string> {
  const entry = JSON.parse(json.replaceAll(PAGE_PROJECT, where.project))
    .mcpServers[name] as {
      command: string;
      args: string[];
      env?: Record<string, string>;
    };
  assert.equal(entry.command, "deno");
  const child = new Deno.Command(Deno.execPath(), {
    args: entry.args,
    cwd: where.cwd,
    // A host passes its entry's env, not the user's shell: nothing else.
    clearEnv: true,
    env: { ...entry.env, NO_COLOR: "1", HOME: Deno.env.get("HOME") ?? "" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(
    new TextEncoder().encode(
      [
        {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "host", version: "1" },
          },
        },
        {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: {
            name: "save_note",
            arguments: { path: "from-host.md", text: "from the host" },
          },
        },
      ].map((message) => JSON.stringify(message) + "\n").join(""),
    ),
  );
  await writer.close();
  const result = await child.output();
  const decoder = new TextDecoder();
  return decoder.decode(result.stdout) + decoder.decode(result.stderr);
}

/** Expectations for the long JSON-RPC commands, by what they call. */
function expectationFor(command: string): RegExp | undefined {
  if (command.includes('"name":"hello"')) {
    return /\{"jsonrpc":"2\.0","id":2,"result":\{"content":\[\{"type":"text","text":"Hello, Ada!"\}\]\}\}/;
  }
  if (command.includes('"method":"ping"')) {
    return /\{"jsonrpc":"2\.0","id":1,"result":\{\}\}/;
  }
  if (command.includes('"name":"save_note"')) return /Saved first\.md/;
  if (command.startsWith("deno bundle")) return /Bundled \d+ modules/;
  return undefined;
}
