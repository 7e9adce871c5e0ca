// Internal, for tests: a real redis-server on a free loopback port, with its
// own temporary directory, stopped by its pid. Without the Debian package
// the tests that need it are ignored, with the line that installs it.

import { type Link, openLink } from "./_link.ts";

/** The one line that installs what the Redis tests need. */
export const INSTALL_HINT =
  "apt-get update && apt-get install -y redis-server nginx";

/** Whether `command` is on PATH. */
export function installed(command: string): boolean {
  try {
    const { success } = new Deno.Command("sh", {
      args: ["-c", `command -v ${command}`],
      stdout: "null",
      stderr: "null",
    }).outputSync();
    return success;
  } catch {
    return false;
  }
}

/** Whether redis-server is here; if not, says how to get it, once. */
export function haveRedis(): boolean {
  const here = installed("redis-server");
  if (!here) {
    console.error(
      `redis-server is not installed: the Redis tests are ignored. Install it with: ${INSTALL_HINT}`,
    );
  }
  return here;
}

/** A free TCP port on 127.0.0.1 (closed again at once; the caller binds it). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** A redis-server of a test. */
export interface TestRedis extends AsyncDisposable {
  readonly url: string;
  readonly port: number;
  /** Stops it (SIGKILL: no goodbye to the clients) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port and directory (its append-only file replayed). */
  start(): Promise<void>;
  /** What it printed. */
  log(): string;
}

/** Starts a redis-server; resolves once it accepts connections. */
export async function startRedis(): Promise<TestRedis> {
  const dir = await Deno.makeTempDir({ prefix: "forge_redis_" });
  const port = freePort();
  let child: Deno.ChildProcess | undefined;
  let log = "";
  const start = async () => {
    child = new Deno.Command("redis-server", {
      args: [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        dir,
        "--save",
        "",
        // Every write on disk before it is answered: a restart loses nothing.
        "--appendonly",
        "yes",
        "--appendfsync",
        "always",
        "--notify-keyspace-events",
        "",
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const ready = Promise.withResolvers<void>();
    const decoder = new TextDecoder();
    const read = async (stream: ReadableStream<Uint8Array>) => {
      for await (const chunk of stream) {
        log += decoder.decode(chunk, { stream: true });
        if (log.includes("Ready to accept connections")) ready.resolve();
      }
    };
    read(child.stdout);
    read(child.stderr);
    child.status.then(() =>
      ready.reject(new Error(`redis-server exited:\n${log}`))
    );
    await ready.promise;
  };
  const stop = async () => {
    if (child === undefined) return;
    const running = child;
    child = undefined;
    try {
      running.kill("SIGKILL");
    } catch {
      // Already gone.
    }
    await running.status;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start: async () => {
      log = "";
      await start();
    },
    log: () => log,
    [Symbol.asyncDispose]: async () => {
      await stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

/** A link to the test's redis-server at `url`, with the gate's bounds and no error lines. */
export function testLink(url: string): Promise<Link> {
  return openLink(url, {
    timeoutMs: 1_000,
    connectTimeoutMs: 5_000,
    onError: () => {},
  });
}
