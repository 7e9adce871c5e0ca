// Test helpers: gate/main.ts as a real child process in front of a real
// server, spoken to by spawnStdio() as a host would; the commands of the two
// servers; and what the tests look at on disk and in /proc.

import { createHash } from "node:crypto";
import { spawnStdio, type StdioClient } from "../../testing/stdio_client.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const HELLO = new URL("../../../examples/hello-tool/main.ts", import.meta.url)
  .pathname;
const FAKE = new URL("./fake_server.ts", import.meta.url).pathname;
const STUBBORN = new URL("./stubborn_server.ts", import.meta.url).pathname;

/** The command that runs hello-tool. */
export const HELLO_COMMAND: readonly string[] = [
  Deno.execPath(),
  "run",
  "--allow-read",
  "--allow-write",
  "--allow-env=HELLO_ROOT,HELLO_CONFIG",
  HELLO,
];

/** The command that runs the fake server. */
export const FAKE_COMMAND: readonly string[] = [
  Deno.execPath(),
  "run",
  FAKE,
];

/** The command that runs a server that ignores EOF and SIGTERM (stubborn_server.ts). */
export const STUBBORN_COMMAND: readonly string[] = [
  Deno.execPath(),
  "run",
  "--allow-run=sleep",
  STUBBORN,
];

// deno-lint-ignore no-explicit-any
export type Message = Record<string, any>;

/**
 * The audit log at `path`, line by line, parsed, each with `digest`: the
 * SHA-256 of its bytes, which the next line's `prev` and a flow's `since`
 * name. No lines while the file is missing.
 */
export async function auditLines(path: string): Promise<Message[]> {
  const text = await Deno.readTextFile(path).catch((error) => {
    if (error instanceof Deno.errors.NotFound) return "";
    throw error;
  });
  return text.split("\n").filter((l) => l !== "").map((line) => ({
    ...JSON.parse(line),
    digest: createHash("sha256").update(line).digest("hex"),
  }));
}

/** Options for {@linkcode startGateProcess}. */
export interface GateProcessOptions {
  env?: Record<string, string>;
  /** Capabilities to initialize with; `null` skips initialize. */
  capabilities?: Message | null;
  /** The gate's script: gate/main.ts unless a build of it is tested. */
  entry?: string;
  /** The gate's working directory. */
  cwd?: string;
}

/** Starts `gate/main.ts gateArgs -- server` (or `entry`'s) and performs `initialize`. */
export async function startGateProcess(
  gateArgs: readonly string[],
  server: readonly string[],
  options: GateProcessOptions = {},
): Promise<StdioClient> {
  const gate = spawnStdio(
    Deno.execPath(),
    ["run", "-A", options.entry ?? MAIN, ...gateArgs, "--", ...server],
    {
      cwd: options.cwd,
      env: { NO_COLOR: "1", ...options.env },
      // A flood of calls through two processes: more than the default.
      timeoutMs: 20_000,
    },
  );
  if (options.capabilities !== null) {
    try {
      await gate.initialize({
        protocolVersion: "2025-06-18",
        capabilities: options.capabilities ?? {},
        clientInfo: { name: "gate-test", version: "1" },
      });
    } catch (error) {
      await gate[Symbol.asyncDispose]();
      throw error;
    }
  }
  return gate;
}

/** Sends `method` under `id` (default: the next number); resolves with the answer as received. */
export async function rpc(
  gate: StdioClient,
  method: string,
  params: Message = {},
  id?: string | number,
): Promise<Message> {
  return await gate.exchange(method, params, { id });
}

/** A `tools/call`, answered as received (result or error). */
export function callTool(
  gate: StdioClient,
  name: string,
  args: Message = {},
  meta?: Message,
  id?: string | number,
): Promise<Message> {
  return rpc(gate, "tools/call", {
    name,
    arguments: args,
    ...(meta === undefined ? {} : { _meta: meta }),
  }, id);
}

/** The text of a call result. */
export function textOf(answer: Message): string {
  return (answer.result?.content ?? []).map((c: Message) => c.text).join("\n");
}

/** Writes `text` to `path` atomically (temporary file, then rename). */
export async function writeAtomic(path: string, text: string): Promise<void> {
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  await Deno.writeTextFile(temporary, text);
  await Deno.rename(temporary, path);
}

/** The ids of the live processes whose parent is `pid` (Linux /proc). */
export async function childrenOf(pid: number): Promise<number[]> {
  const found: number[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = await Deno.readTextFile(`/proc/${entry.name}/stat`);
      // pid (comm) state ppid …; comm may hold spaces, so split after ")".
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === pid && fields[0] !== "Z") {
        found.push(Number(entry.name));
      }
    } catch {
      // The process exited while we looked.
    }
  }
  return found;
}

/** Whether process `pid` is alive (not a zombie). */
export async function alive(pid: number): Promise<boolean> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** The gate's server among its children (the other is its watchdog, a /bin/sh). */
export async function serverOf(gatePid: number): Promise<number | undefined> {
  for (const pid of await childrenOf(gatePid)) {
    try {
      const cmdline = await Deno.readTextFile(`/proc/${pid}/cmdline`);
      if (!cmdline.startsWith("/bin/sh\0")) return pid;
    } catch {
      // It exited while we looked.
    }
  }
  return undefined;
}

/** What a finished run of gate/main.ts printed, and its exit code. */
export interface GateRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs gate/main.ts with `args` (a subcommand such as `pins accept`, or a
 * command line it should refuse) to its end, stdin closed.
 */
export async function runGate(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<GateRun> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}
