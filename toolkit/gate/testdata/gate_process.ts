// Test helper: runs gate/main.ts as a real child process in front of a real
// server, and speaks raw newline-delimited JSON-RPC to it as a host would.

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const HELLO = new URL("../../../examples/hello-tool/main.ts", import.meta.url)
  .pathname;
const FAKE = new URL("./fake_server.ts", import.meta.url).pathname;
const DECODER = new TextDecoder();
const ENCODER = new TextEncoder();

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

// deno-lint-ignore no-explicit-any
export type Message = Record<string, any>;

/** A gate process and what it said. */
export interface GateSession extends AsyncDisposable {
  readonly child: Deno.ChildProcess;
  /** Every message the gate wrote to stdout, in order. */
  readonly messages: Message[];
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Waits for stderr to match. */
  waitStderr(pattern: RegExp, timeoutMs?: number): Promise<string>;
  send(message: Message): Promise<void>;
  /** Writes raw bytes to the gate's stdin. */
  sendRaw(text: string): Promise<void>;
  /** Sends a request under `id` (default: the next number) and waits for its answer. */
  request(
    method: string,
    params?: Message,
    id?: string | number,
  ): Promise<Message>;
  /** A `tools/call`. */
  call(
    name: string,
    args?: Message,
    meta?: Message,
    id?: string | number,
  ): Promise<Message>;
  /** The first message (already received or to come) that matches. */
  next(
    match: (message: Message) => boolean,
    timeoutMs?: number,
  ): Promise<Message>;
  /** Closes stdin and resolves with the exit status. */
  close(): Promise<Deno.CommandStatus>;
}

/** Options for {@linkcode startGateProcess}. */
export interface GateSessionOptions {
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
  options: GateSessionOptions = {},
): Promise<GateSession> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", options.entry ?? MAIN, ...gateArgs, "--", ...server],
    cwd: options.cwd,
    env: { NO_COLOR: "1", ...options.env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const messages: Message[] = [];
  const waiters = new Set<() => void>();
  // Answers awaited by request(), by id: a flood of calls must not make
  // every message scan every waiter.
  const answers = new Map<unknown, (message: Message) => void>();
  let stderr = "";
  let nextId = 1;
  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };
  const reading = (async () => {
    let buffer = "";
    for await (const chunk of child.stdout) {
      buffer += DECODER.decode(chunk, { stream: true });
      let newline;
      while ((newline = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.trim() === "") continue;
        let message: Message;
        try {
          message = JSON.parse(line);
        } catch {
          message = { notJson: line };
        }
        messages.push(message);
        if (!("method" in message) && answers.has(message.id)) {
          answers.get(message.id)!(message);
          answers.delete(message.id);
        } else {
          wake();
        }
      }
    }
  })().finally(wake);
  const readingErr = (async () => {
    for await (const chunk of child.stderr) {
      stderr += DECODER.decode(chunk, { stream: true });
      wake();
    }
  })();

  function waitFor<T>(
    check: () => T | undefined,
    what: () => string,
    timeoutMs = 10_000,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(poll);
        reject(
          new Error(`Timed out waiting for ${what()}\nstderr:\n${stderr}`),
        );
      }, timeoutMs);
      const poll = () => {
        const found = check();
        if (found !== undefined) {
          clearTimeout(timer);
          waiters.delete(poll);
          resolve(found);
        }
      };
      waiters.add(poll);
      poll();
    });
  }

  async function send(message: Message): Promise<void> {
    await writer.write(ENCODER.encode(JSON.stringify(message) + "\n"));
  }

  function next(
    match: (message: Message) => boolean,
    timeoutMs?: number,
  ): Promise<Message> {
    return waitFor(
      () => messages.find(match),
      () => `a message; got ${JSON.stringify(messages)}`,
      timeoutMs,
    );
  }

  async function request(
    method: string,
    params: Message = {},
    id: string | number = nextId++,
  ): Promise<Message> {
    const answered = new Promise<Message>((resolve) =>
      answers.set(id, resolve)
    );
    await send({ jsonrpc: "2.0", id, method, params });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) =>
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `Timed out waiting for the answer to ${id}\nstderr:\n${stderr}`,
            ),
          ),
        20_000,
      )
    );
    try {
      return await Promise.race([answered, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  let closed: Promise<Deno.CommandStatus> | undefined;
  const session: GateSession = {
    child,
    messages,
    stderr: () => stderr,
    waitStderr: (pattern, timeoutMs) =>
      waitFor(
        () => pattern.test(stderr) ? stderr : undefined,
        () => `stderr to match ${pattern}`,
        timeoutMs,
      ),
    send,
    sendRaw: (text) => writer.write(ENCODER.encode(text)),
    request,
    call: (name, args = {}, meta, id) =>
      request("tools/call", {
        name,
        arguments: args,
        ...(meta === undefined ? {} : { _meta: meta }),
      }, id),
    next,
    close() {
      closed ??= (async () => {
        await writer.close().catch(() => {});
        const status = await child.status;
        await Promise.all([reading.catch(() => {}), readingErr]);
        return status;
      })();
      return closed;
    },
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGKILL");
      } catch {
        // It has exited.
      }
      await session.close();
    },
  };
  if (options.capabilities !== null) {
    const init = await request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: options.capabilities ?? {},
      clientInfo: { name: "gate-test", version: "1" },
    });
    if (init.result === undefined) {
      throw new Error(`initialize failed: ${JSON.stringify(init)}\n${stderr}`);
    }
    await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  }
  return session;
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
