// Test helpers: a runtime process started with piped output, read line by
// line until a line says it listens, and stopped by its pid.

/** A started process, its output so far, and how to stop it. */
export interface Started {
  readonly child: Deno.ChildProcess;
  /** What it printed on stdout and stderr so far. */
  output(): string;
  /** Stops it (SIGTERM) and waits for it. */
  stop(): Promise<void>;
}

/**
 * Spawns `command` with `args` and resolves with the first line (of stdout
 * or stderr) that `match` maps to a value, rejecting when the process ends
 * first.
 */
export async function spawnUntil<T>(
  command: string,
  args: string[],
  match: (line: string) => T | undefined,
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ started: Started; value: T }> {
  const child = new Deno.Command(command, {
    args,
    cwd: options.cwd,
    env: options.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let text = "";
  const drain = async (
    stream: ReadableStream<Uint8Array>,
    each?: (line: string) => void,
  ) => {
    let rest = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      text += chunk;
      const lines = (rest + chunk).split("\n");
      rest = lines.pop()!;
      for (const line of lines) each?.(line);
    }
    if (rest !== "") each?.(rest);
  };
  const { promise, resolve, reject } = Promise.withResolvers<T>();
  const each = (line: string) => {
    const value = match(line);
    if (value !== undefined) resolve(value);
  };
  const out = drain(child.stdout, each);
  const err = drain(child.stderr, each);
  const ended = Promise.all([out, err, child.status]);
  ended.then(() =>
    reject(new Error(`${command} ended before it listened:\n${text}`))
  );
  const started: Started = {
    child,
    output: () => text,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        // already gone
      }
      await ended;
    },
  };
  try {
    return { started, value: await promise };
  } catch (error) {
    await started.stop();
    throw error;
  }
}
