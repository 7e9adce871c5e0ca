// For the scale-out tests: everything-server instances (`main.ts --http
// --redis`), a real nginx in front of them run from `nginx.conf` beside
// this file (its ports and files moved to a temporary directory), and a
// small 2026-07-28 HTTP client. Every process is started here and stopped
// by its own handle (its pid), never by name.

import { freePort } from "../../toolkit/redis/_test_redis.ts";
import { until } from "../../toolkit/testing/_until.ts";
import { LEASE_MS_VARIABLE, REQUEST_STATE_KEY_VARIABLE } from "./main.ts";

const MAIN = new URL("./main.ts", import.meta.url).pathname;
const NGINX_CONF = new URL("./nginx.conf", import.meta.url).pathname;

/** One running everything server. */
export interface Instance {
  readonly origin: string;
  readonly child: Deno.ChildProcess;
  log(): string;
  /** SIGKILL: the instance stops dead, as a crashed machine would. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** A key all instances of a test share. */
export function sharedKey(): string {
  return btoa(
    String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))),
  );
}

/** Starts `main.ts --http 127.0.0.1:<port> --redis <url>`; resolves once it listens. */
export async function startInstance(options: {
  redis?: string;
  key: string;
  leaseMs?: number;
  port?: number;
}): Promise<Instance> {
  const port = options.port ?? freePort();
  const args = ["run", "-A", MAIN, "--http", `127.0.0.1:${port}`];
  if (options.redis !== undefined) args.push("--redis", options.redis);
  const child = new Deno.Command(Deno.execPath(), {
    args,
    env: {
      [REQUEST_STATE_KEY_VARIABLE]: options.key,
      [LEASE_MS_VARIABLE]: String(options.leaseMs ?? 10_000),
      NO_COLOR: "1",
    },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let log = "";
  const listening = Promise.withResolvers<void>();
  const decoder = new TextDecoder();
  // Drained to the end, so that the child never blocks on a full pipe.
  (async () => {
    for await (const chunk of child.stderr) {
      log += decoder.decode(chunk, { stream: true });
      if (log.includes(`127.0.0.1:${port}/mcp`)) listening.resolve();
    }
  })();
  child.status.then((status) =>
    listening.reject(
      new Error(`The everything server exited (${status.code}):\n${log}`),
    )
  );
  await withTimeout(listening.promise, 30_000, () => `no listen:\n${log}`);
  let exited = false;
  child.status.then(() => exited = true);
  const signal = async (name: Deno.Signal) => {
    if (!exited) {
      try {
        child.kill(name);
      } catch {
        // Already gone.
      }
    }
    await child.status;
  };
  return {
    origin: `http://127.0.0.1:${port}`,
    child,
    log: () => log,
    kill: () => signal("SIGKILL"),
    stop: () => signal("SIGTERM"),
  };
}

/** A running nginx. */
export interface Nginx extends AsyncDisposable {
  readonly url: string;
  log(): string;
}

/** Runs nginx.conf with its listen port and upstream servers replaced. */
export async function startNginx(upstreams: string[]): Promise<Nginx> {
  const dir = await Deno.makeTempDir({ prefix: "forge_nginx_" });
  const port = freePort();
  let conf = await Deno.readTextFile(NGINX_CONF);
  const servers = upstreams.map((origin) =>
    `server ${new URL(origin).host} max_fails=1 fail_timeout=2s;`
  ).join("\n        ");
  conf = conf
    .replace(
      /(upstream everything \{[^}]*?)(server [^\n]+\n\s*)+/,
      `$1${servers}\n        `,
    )
    .replace(/listen 127\.0\.0\.1:\d+;/, `listen 127.0.0.1:${port};`)
    // nginx's own files in the test's directory, not /var/lib/nginx.
    .replace(
      /http \{/,
      `http {\n    client_body_temp_path ${dir}/body;\n    proxy_temp_path ${dir}/proxy;\n    fastcgi_temp_path ${dir}/fastcgi;\n    uwsgi_temp_path ${dir}/uwsgi;\n    scgi_temp_path ${dir}/scgi;`,
    );
  if (!conf.includes(`listen 127.0.0.1:${port};`) || !conf.includes(servers)) {
    throw new Error(`nginx.conf no longer has the lines this test replaces`);
  }
  await Deno.writeTextFile(`${dir}/nginx.conf`, conf);
  const child = new Deno.Command("nginx", {
    args: [
      "-p",
      dir,
      "-c",
      `${dir}/nginx.conf`,
      "-g",
      `daemon off; master_process off; pid ${dir}/nginx.pid;`,
    ],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let log = "";
  const decoder = new TextDecoder();
  (async () => {
    for await (const chunk of child.stderr) {
      log += decoder.decode(chunk, { stream: true });
    }
  })();
  let exited = false;
  child.status.then(() => exited = true);
  const url = `http://127.0.0.1:${port}/mcp`;
  // nginx prints nothing when it is up: wait until it accepts.
  await until("nginx accepts connections", async () => {
    if (exited) throw new Error(`nginx exited:\n${log}`);
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      return true;
    } catch {
      return false;
    }
  }, { timeoutMs: 10_000, intervalMs: 20 });
  return {
    url,
    log: () => log,
    [Symbol.asyncDispose]: async () => {
      if (!exited) child.kill("SIGTERM");
      await child.status;
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

/** Rejects after `ms` with `message()`. */
export async function withTimeout<T>(
  promise: Promise<T>,
  ms: number,
  message: () => string,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message())), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The capabilities the tests' client declares. */
export const CAPABILITIES = {
  elicitation: {},
  extensions: { "io.modelcontextprotocol/tasks": {} },
};

/** A JSON-RPC answer: `result` or `error`. */
export interface Answer {
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

let nextId = 0;

/** The headers and body of a 2026-07-28 request. */
function request2026(method: string, params: Record<string, unknown>) {
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": method,
  };
  if (method === "tools/call") headers["Mcp-Name"] = String(params.name);
  if (method.startsWith("tasks/")) headers["Mcp-Name"] = String(params.taskId);
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: ++nextId,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": CAPABILITIES,
      },
    },
  });
  return { headers, body };
}

/** Sends one 2026-07-28 request; the answer from a JSON body or the SSE stream's last message. */
export async function rpc(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
): Promise<Answer> {
  const response = await fetch(url, {
    method: "POST",
    ...request2026(method, params),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.headers.get("content-type")?.includes("text/event-stream")) {
    const messages = text.split("\n").filter((line) =>
      line.startsWith("data: ")
    ).map((line) => JSON.parse(line.slice(6)));
    return messages.findLast((m) => "result" in m || "error" in m) ?? {};
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${method}: HTTP ${response.status}: ${text}`);
  }
}

/** `rpc` that expects a result. */
export async function call(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const answer = await rpc(url, method, params);
  if (answer.result === undefined) {
    throw new Error(`${method}: ${JSON.stringify(answer.error ?? answer)}`);
  }
  return answer.result;
}

/** An open `subscriptions/listen` stream and what it heard. */
export interface Listen extends AsyncDisposable {
  readonly heard: Record<string, unknown>[];
}

/** Opens a listen stream at `url`; resolves once it is acknowledged. */
export async function listen(
  url: string,
  notifications: Record<string, unknown>,
): Promise<Listen> {
  const abort = new AbortController();
  const response = await fetch(url, {
    method: "POST",
    ...request2026("subscriptions/listen", { notifications }),
    signal: abort.signal,
  });
  const heard: Record<string, unknown>[] = [];
  const acknowledged = Promise.withResolvers<void>();
  const reading = (async () => {
    let buffer = "";
    for await (
      const chunk of response.body!.pipeThrough(new TextDecoderStream())
    ) {
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        if (!line.startsWith("data: ")) continue;
        const message = JSON.parse(line.slice(6));
        heard.push(message);
        if (message.method === "notifications/subscriptions/acknowledged") {
          acknowledged.resolve();
        }
      }
    }
  })().catch(() => {});
  await withTimeout(acknowledged.promise, 5_000, () => "no acknowledgement");
  return {
    heard,
    [Symbol.asyncDispose]: async () => {
      abort.abort();
      await reading;
    },
  };
}
