/**
 * `deno task demo`: spawns hello-tool and drives a real MCP session with the
 * official SDK's client over stdio, printing a transcript of the whole
 * contract — initialize, tools/list, a call, a probe that writes nothing,
 * the real write, domain errors, an unknown tool, a live config change and
 * the shutdown. It works in a temporary directory with a temporary copy of
 * the config, so it never touches the repository's files.
 *
 * @example
 * ```sh
 * deno task demo
 * ```
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { META_PATTERNS, META_PERMISSION_PATTERNS } from "@forge/toolkit/probe";

const MAIN = decodeURIComponent(new URL("./main.ts", import.meta.url).pathname);
const PERMISSIONS = [
  "--allow-read",
  "--allow-write",
  "--allow-env=HELLO_ROOT,HELLO_CONFIG",
];
// How long a config edit may take to show: the watcher debounces ~150 ms.
const RELOAD_DEADLINE_MS = 5000;

interface ToolResult {
  content?: { type: string; text?: string }[];
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

const started = performance.now();
let step = 0;

function heading(title: string): void {
  console.log(`\n${++step}. ${title}`);
}

function say(line: string): void {
  console.log(`   ${line}`);
}

function textOf(result: ToolResult): string {
  return (result.content ?? []).map((item) => item.text ?? "").join("\n");
}

/** Indents continuation lines so multi-line answers stay in the transcript. */
function quote(text: string): string {
  return text.replaceAll("\n", "\n     ");
}

/** The SDK's McpError, as the code and message the server sent. */
function rpcError(error: unknown): string {
  const { code, message } = error as { code?: number; message: string };
  if (typeof code !== "number") throw error;
  return `JSON-RPC error ${code}: ${message.replace(/^MCP error -?\d+: /, "")}`;
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

async function demo(): Promise<void> {
  const work = await Deno.makeTempDir({ prefix: "hello-demo-" });
  // The config lives outside the root, so write_file cannot reach it.
  const root = `${work}/root`;
  const config = `${work}/config.json`;
  await Deno.mkdir(root);
  await Deno.writeTextFile(config, '{ "greeting": "Hello" }\n');

  console.log(
    "hello-tool demo: a real MCP session over stdio, driven by the official SDK client",
  );
  heading("Spawn the server");
  say(`$ deno run ${PERMISSIONS.join(" ")} examples/hello-tool/main.ts`);
  say(`  with HELLO_ROOT=${root}`);
  say(`       HELLO_CONFIG=${config} (a copy: the repository is not touched)`);
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", ...PERMISSIONS, MAIN],
    env: {
      HELLO_ROOT: root,
      HELLO_CONFIG: config,
      NO_COLOR: "1",
      // The child needs the same module cache to start offline.
      ...(Deno.env.get("DENO_DIR")
        ? { DENO_DIR: Deno.env.get("DENO_DIR") }
        : {}),
    },
    stderr: "pipe",
  });
  const stderr: string[] = [];
  let partial = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => {
    partial += new TextDecoder().decode(chunk);
    const lines = partial.split("\n");
    partial = lines.pop() ?? "";
    stderr.push(...lines);
  });

  const client = new Client({ name: "hello-demo", version: "0.1.0" });
  heading("initialize");
  await client.connect(transport);
  const info = client.getServerVersion();
  const capabilities = Object.keys(client.getServerCapabilities() ?? {});
  say(`→ client hello-demo 0.1.0`);
  say(
    `← server ${info?.name} ${info?.version}, capabilities: ${
      capabilities.join(", ")
    }`,
  );
  await waitFor(() => stderr.length > 0, 2000);
  say(`  stderr: ${stderr[0]?.slice(0, 100)}…`);

  heading("tools/list");
  const { tools } = await client.listTools();
  for (const tool of tools) {
    const traits = [
      tool.annotations?.readOnlyHint ? "read-only" : "side effects",
      tool._meta?.["forge.supports_permission_patterns"]
        ? "answers probes"
        : "",
    ].filter(Boolean).join(", ");
    say(`← ${tool.name.padEnd(12)} ${traits}`);
  }

  heading("tools/call hello");
  const hello = { name: "hello", arguments: { name: "Ada" } };
  say(`→ ${JSON.stringify(hello.arguments)}`);
  say(
    `← ${JSON.stringify(textOf(await client.callTool(hello) as ToolResult))}`,
  );

  heading("Probe write_file: what would it touch?");
  const write = {
    name: "write_file",
    arguments: { path: "./notes//draft/../today.md", content: "# Today\n" },
  };
  say(
    `→ ${
      JSON.stringify(write.arguments)
    }, _meta: {"${META_PERMISSION_PATTERNS}": true}`,
  );
  const probe = await client.callTool({
    ...write,
    _meta: { [META_PERMISSION_PATTERNS]: true },
  }) as ToolResult;
  say(`← _meta: ${JSON.stringify(probe._meta)}`);
  say(
    `  The path is canonical (${
      JSON.stringify((probe._meta?.[META_PATTERNS] as string[])[0])
    }), and notes/today.md exists: ${await exists(
      `${root}/notes/today.md`,
    )} — the probe ran nothing.`,
  );

  heading("tools/call write_file, for real");
  say(`→ the same arguments, no _meta`);
  say(
    `← ${JSON.stringify(textOf(await client.callTool(write) as ToolResult))}`,
  );
  say(
    `  notes/today.md now holds ${
      JSON.stringify(await Deno.readTextFile(`${root}/notes/today.md`))
    }`,
  );

  heading("Domain errors: isError results the model reads and fixes");
  const mistakes = [
    { name: "write_file", arguments: { path: "../escape.txt", content: "x" } },
    {
      name: "write_file",
      arguments: { path: "data.json", content: '{"a": }' },
    },
    { name: "delete_file", arguments: { path: "missing.txt" } },
    { name: "write_file", arguments: { path: "a.txt" } },
  ];
  for (const call of mistakes) {
    const result = await client.callTool(call) as ToolResult;
    say(`→ ${call.name} ${JSON.stringify(call.arguments)}`);
    say(`← isError: ${result.isError}, ${quote(textOf(result))}`);
  }
  say(`  data.json exists: ${await exists(`${root}/data.json`)}`);

  heading("Protocol errors: JSON-RPC errors, not results");
  try {
    await client.callTool({ name: "no_such_tool", arguments: {} });
    throw new Error("Demo failed: an unknown tool was answered");
  } catch (error) {
    say(`→ tools/call no_such_tool`);
    say(`← ${rpcError(error)}`);
  }
  try {
    await client.callTool({
      ...hello,
      _meta: { [META_PERMISSION_PATTERNS]: true },
    });
    throw new Error("Demo failed: a read-only tool answered a probe");
  } catch (error) {
    say(`→ probe hello (a read-only tool)`);
    say(`← ${rpcError(error)}`);
  }

  heading("Change the greeting live");
  say(`$ edit ${config}: { "greeting": "Bonjour" }`);
  await Deno.writeTextFile(config, '{ "greeting": "Bonjour" }\n');
  const edited = performance.now();
  let answer = "";
  await waitFor(async () => {
    answer = textOf(await client.callTool(hello) as ToolResult);
    return answer.startsWith("Bonjour");
  }, RELOAD_DEADLINE_MS);
  say(
    `← ${JSON.stringify(answer)} after ${
      Math.round(performance.now() - edited)
    } ms, no restart`,
  );
  say(`$ edit ${config}: { "greeting": 42 }  (invalid)`);
  const before = stderr.length;
  await Deno.writeTextFile(config, '{ "greeting": 42 }\n');
  await waitFor(() => stderr.length > before, RELOAD_DEADLINE_MS);
  say(`  stderr: ${stderr[before]}`);
  say(
    `← ${JSON.stringify(textOf(await client.callTool(hello) as ToolResult))}`,
  );

  heading("Shut down");
  const closing = performance.now();
  await client.close();
  say(
    `→ stdin closed; the server finished and exited in ${
      Math.round(performance.now() - closing)
    } ms`,
  );
  await Deno.remove(work, { recursive: true });
  console.log(
    `\nDone in ${((performance.now() - started) / 1000).toFixed(1)} s.`,
  );
}

async function waitFor(
  condition: () => boolean | Promise<boolean>,
  deadlineMs: number,
): Promise<void> {
  const end = performance.now() + deadlineMs;
  while (!(await condition())) {
    if (performance.now() > end) {
      throw new Error(`Demo failed: nothing happened within ${deadlineMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

if (import.meta.main) await demo();
