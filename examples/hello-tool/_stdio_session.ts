// Test helper: runs main.ts as a real child process and speaks raw
// newline-delimited JSON-RPC to it, so tests see exactly what a host sees.

const MAIN = decodeURIComponent(new URL("./main.ts", import.meta.url).pathname);
const DECODER = new TextDecoder();
const ENCODER = new TextEncoder();

/** The permissions `deno task example` grants. */
export const EXAMPLE_PERMISSIONS: readonly string[] = [
  "--allow-read",
  "--allow-write",
  "--allow-env=HELLO_ROOT,HELLO_CONFIG",
];

/** A JSON-RPC response as it came off the wire. */
export interface RpcResponse {
  jsonrpc: "2.0";
  id: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** A `tools/call` result. */
export interface CallResult {
  content: { type: string; text?: string }[];
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** A running hello-tool process. */
export interface StdioSession extends AsyncDisposable {
  /** What the server answered to `initialize`. */
  readonly initializeResult: Record<string, unknown>;
  /** Everything the server wrote to stderr so far, one entry per line. */
  readonly stderr: string[];
  /** Sends a request and resolves with the raw response. */
  request(
    method: string,
    params?: Record<string, unknown>,
  ): Promise<RpcResponse>;
  /** Calls a tool; a JSON-RPC error rejects with its message and code. */
  call(
    name: string,
    args: Record<string, unknown>,
    meta?: Record<string, unknown>,
  ): Promise<CallResult>;
  /** Closes stdin and resolves with the exit status. */
  close(): Promise<Deno.CommandStatus>;
}

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

function command(
  env: Record<string, string>,
  args: readonly string[],
  options: RunOptions,
  stdin: "null" | "piped",
): Deno.Command {
  const kept: Record<string, string> = {};
  if (options.clearEnv) {
    for (const name of ["HOME", "DENO_DIR"]) {
      const value = Deno.env.get(name);
      if (value !== undefined) kept[name] = value;
    }
  }
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...EXAMPLE_PERMISSIONS, options.script ?? MAIN, ...args],
    cwd: options.cwd,
    clearEnv: options.clearEnv ?? false,
    env: { ...kept, NO_COLOR: "1", ...env },
    stdin,
    stdout: "piped",
    stderr: "piped",
  });
}

/** Runs main.ts with `env` and `args`, unconnected, and collects its output. */
export async function runOnce(
  env: Record<string, string>,
  args: readonly string[] = [],
  options: RunOptions = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await command(env, args, options, "null").output();
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
): Promise<StdioSession> {
  const child = command(env, [], options, "piped").spawn();
  const writer = child.stdin.getWriter();
  const pending = new Map<
    number,
    { resolve: (response: RpcResponse) => void; reject: (e: Error) => void }
  >();
  const stderr: string[] = [];
  let nextId = 1;

  const reading = (async () => {
    let buffer = "";
    for await (const chunk of child.stdout) {
      buffer += DECODER.decode(chunk, { stream: true });
      let newline;
      while ((newline = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.trim() === "") continue;
        let message: RpcResponse;
        try {
          message = JSON.parse(line);
        } catch {
          throw new Error(
            `hello-tool wrote a non-JSON line to stdout: ${line}`,
          );
        }
        if (typeof message.id === "number") {
          pending.get(message.id)?.resolve(message);
        }
      }
    }
  })().finally(() => {
    // A request still waiting now will never be answered: fail, do not hang.
    for (const { reject } of pending.values()) {
      reject(
        new Error(`hello-tool exited before answering:\n${stderr.join("\n")}`),
      );
    }
  });
  const readingErr = (async () => {
    let buffer = "";
    for await (const chunk of child.stderr) {
      buffer += DECODER.decode(chunk, { stream: true });
      const lines = buffer.split("\n");
      buffer = lines.pop()!;
      stderr.push(...lines);
    }
    if (buffer !== "") stderr.push(buffer);
  })();

  async function send(message: Record<string, unknown>): Promise<void> {
    await writer.write(ENCODER.encode(JSON.stringify(message) + "\n"));
  }

  async function request(
    method: string,
    params: Record<string, unknown> = {},
  ): Promise<RpcResponse> {
    const id = nextId++;
    const answered = new Promise<RpcResponse>((resolve, reject) =>
      pending.set(id, { resolve, reject })
    );
    await send({ jsonrpc: "2.0", id, method, params });
    const response = await answered;
    pending.delete(id);
    return response;
  }

  let closed: Promise<Deno.CommandStatus> | undefined;
  function close(): Promise<Deno.CommandStatus> {
    closed ??= (async () => {
      await writer.close().catch(() => {});
      const status = await child.status;
      await Promise.all([reading.catch(() => {}), readingErr]);
      return status;
    })();
    return closed;
  }

  const init = await request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "hello-tool-test", version: "0.1.0" },
  });
  if (init.result === undefined) {
    await close();
    throw new Error(
      `hello-tool did not initialise: ${JSON.stringify(init)}\n${
        stderr.join("\n")
      }`,
    );
  }
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });

  return {
    initializeResult: init.result,
    stderr,
    request,
    async call(name, args, meta) {
      const response = await request("tools/call", {
        name,
        arguments: args,
        ...(meta === undefined ? {} : { _meta: meta }),
      });
      if (response.error !== undefined) {
        throw Object.assign(new Error(response.error.message), {
          code: response.error.code,
        });
      }
      return response.result as unknown as CallResult;
    },
    close,
    async [Symbol.asyncDispose]() {
      await close();
    },
  };
}

/** The text of a result's content, joined. */
export function textOf(result: CallResult): string {
  return result.content.map((item) => item.text ?? "").join("\n");
}
