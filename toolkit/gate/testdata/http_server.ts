// Test helper: a server script run with `--http 127.0.0.1:0` (the
// examples' flag), its URL read from its stderr.

/** Starts an HTTP server (`--http 127.0.0.1:0`, or the port given) and reads its URL from stderr. */
export async function httpServer(
  script: string,
  env: Record<string, string> = {},
  options: { port?: number } = {},
) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, "--http", `127.0.0.1:${options.port ?? 0}`],
    env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const lines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  let url: string | undefined;
  while (url === undefined) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`The server did not start: ${seen}`);
    seen += value;
    url = seen.match(/(http:\/\/127\.0\.0\.1:\d+\/mcp)/)?.[1];
  }
  // Keep reading its stderr, so that it never blocks on a full pipe.
  (async () => {
    while (!(await lines.read()).done);
  })().catch(() => {});
  return {
    url,
    pid: child.pid,
    async [Symbol.asyncDispose]() {
      // A stopped server would not see the SIGTERM.
      child.kill("SIGCONT");
      child.kill("SIGTERM");
      await child.status;
    },
  };
}
