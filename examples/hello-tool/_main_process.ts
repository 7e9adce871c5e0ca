// Test helper: runs main.ts as a real child process, as `deno task example`
// does, either once and unconnected or spoken to over stdio by spawnStdio(),
// so tests see exactly what a host sees.

import type { CallToolResult } from "@forge/toolkit";
import { spawnStdio, type StdioClient } from "@forge/toolkit/testing";

const MAIN = decodeURIComponent(new URL("./main.ts", import.meta.url).pathname);
const DECODER = new TextDecoder();

/** The permissions `deno task example` grants. */
export const EXAMPLE_PERMISSIONS: readonly string[] = [
  "--allow-read",
  "--allow-write",
  "--allow-env=HELLO_ROOT,HELLO_CONFIG",
];

/** Where and what a test runs instead of main.ts in this directory. */
export interface RunOptions {
  /**
   * The script to run (a bundle of main.ts, say).
   *
   * @default {main.ts beside this file}
   */
  script?: string;
  /**
   * The child's working directory.
   *
   * @default {the test's}
   */
  cwd?: string;
  /**
   * Start from an empty environment (keeping HOME and DENO_DIR) instead of
   * the test's.
   *
   * @default {false}
   */
  clearEnv?: boolean;
}

function commandArgs(args: readonly string[], options: RunOptions): string[] {
  return ["run", ...EXAMPLE_PERMISSIONS, options.script ?? MAIN, ...args];
}

function environment(
  env: Record<string, string>,
  options: RunOptions,
): Record<string, string> {
  const kept: Record<string, string> = {};
  if (options.clearEnv) {
    for (const name of ["HOME", "DENO_DIR"]) {
      const value = Deno.env.get(name);
      if (value !== undefined) kept[name] = value;
    }
  }
  return { ...kept, NO_COLOR: "1", ...env };
}

/** Runs main.ts with `env` and `args`, unconnected, and collects its output. */
export async function runOnce(
  env: Record<string, string>,
  args: readonly string[] = [],
  options: RunOptions = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: commandArgs(args, options),
    cwd: options.cwd,
    clearEnv: options.clearEnv ?? false,
    env: environment(env, options),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: output.code,
    stdout: DECODER.decode(output.stdout),
    stderr: DECODER.decode(output.stderr),
  };
}

/** Starts main.ts and performs the `initialize` handshake. */
export async function startSession(
  env: Record<string, string>,
  options: RunOptions = {},
): Promise<StdioClient> {
  const server = spawnStdio(Deno.execPath(), commandArgs([], options), {
    cwd: options.cwd,
    clearEnv: options.clearEnv ?? false,
    env: environment(env, options),
  });
  try {
    await server.initialize({
      clientInfo: { name: "hello-tool-test", version: "0.1.0" },
    });
  } catch (error) {
    await server.close();
    throw new Error(
      `hello-tool did not initialise: ${
        (error as Error).message
      }\n${server.stderr}`,
    );
  }
  return server;
}

/** The text of a result's content, joined. */
export function textOf(result: CallToolResult): string {
  return result.content.map((item) => item.type === "text" ? item.text : "")
    .join("\n");
}
