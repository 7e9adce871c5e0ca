// Shared by the examples' smoke tests: the MCP Inspector's CLI mode, a real
// MCP client, run under Deno (it needs Node 22 APIs) with its own HOME so it
// writes nothing of the user's, and DENO_DIR kept so nothing is fetched again.
// It runs with .ci/tools.json, not the library's config: no lock (its ~170
// packages stay out of deno.lock) and its install script denied (Deno would
// otherwise print a warning box for it).
import assert from "node:assert/strict";

const INSPECTOR = "npm:@modelcontextprotocol/inspector@2.12.0";
const TOOLS_CONFIG = new URL("../.ci/tools.json", import.meta.url).pathname;

/** Where Deno caches packages. */
export async function denoDir(): Promise<string> {
  const { stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  return JSON.parse(new TextDecoder().decode(stdout)).denoDir;
}

/** Options for {@linkcode inspect}. */
export interface InspectOptions {
  /**
   * The exit status the run must end with: the Inspector exits 5 after
   * printing a result that is `isError`.
   *
   * @default {0}
   */
  exitCode?: number;
}

/** Runs the Inspector CLI against `target` (a command line or a URL) and parses its JSON output. */
export async function inspect(
  target: string[],
  args: string[],
  options: InspectOptions = {},
): Promise<unknown> {
  const exitCode = options.exitCode ?? 0;
  const home = await Deno.makeTempDir({ prefix: "inspector-home-" });
  try {
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--config",
        TOOLS_CONFIG,
        INSPECTOR,
        "--cli",
        ...args,
        "--",
        ...target,
      ],
      env: { HOME: home, DENO_DIR: await denoDir(), NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const out = new TextDecoder().decode(stdout);
    assert.equal(
      code,
      exitCode,
      `inspector exited ${code}, expected ${exitCode}:\n${out}\n${
        new TextDecoder().decode(stderr)
      }`,
    );
    return JSON.parse(out);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

/** The tool names of a `tools/list` answer. */
export function toolNames(listing: unknown): string[] {
  return (listing as { tools: { name: string }[] }).tools.map((t) => t.name);
}

/** A server started with `--http 127.0.0.1:0`, once it has printed its URL. */
export interface HttpChild extends AsyncDisposable {
  /** The MCP endpoint. */
  url: string;
}

/** Spawns `args` (which must serve HTTP on loopback) and waits for the URL on stderr. */
export async function spawnHttp(
  args: string[],
  env: Record<string, string> = {},
): Promise<HttpChild> {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    env,
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const stop = async () => {
    child.kill("SIGTERM");
    await child.status;
    await reader.cancel();
  };
  let log = "";
  try {
    for (;;) {
      const url = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(log)?.[0];
      if (url !== undefined) return { url, [Symbol.asyncDispose]: stop };
      const { value, done } = await reader.read();
      if (done) throw new Error(`server exited before listening:\n${log}`);
      log += value;
    }
  } catch (error) {
    await stop();
    throw error;
  }
}
