// For the tests and the bench of the gate as a service: gate instances
// serving HTTP (gate/main.ts --http 127.0.0.1:0, their URL read from
// stderr), and a real nginx running deploy/nginx.conf with its ports and
// files moved. Every process is started here and stopped by its own
// handle (its pid), never by name.

import { until } from "../../testing/_until.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

/** The nginx config the gate ships, for two instances. */
export const GATE_NGINX_CONF: string =
  new URL("../deploy/nginx.conf", import.meta.url).pathname;

/** The instance addresses deploy/nginx.conf is written for. */
const CONF_INSTANCES = ["127.0.0.1:8081", "127.0.0.1:8082"] as const;
const CONF_LISTEN = "listen 127.0.0.1:8080;";

/**
 * `conf` (deploy/nginx.conf's text) listening on `port`, its two instances
 * at `instances` (`host:port` each), nginx's temporary files under `dir`.
 * A `TypeError` when the config no longer has the lines it replaces.
 */
export function gateNginxConf(
  conf: string,
  options: { port: number; instances: readonly [string, string]; dir: string },
): string {
  for (const needle of [CONF_LISTEN, ...CONF_INSTANCES, "http {"]) {
    if (!conf.includes(needle)) {
      throw new TypeError(
        `Cannot rewrite deploy/nginx.conf: it no longer has ${needle}`,
      );
    }
  }
  return conf
    .replaceAll(CONF_INSTANCES[0], options.instances[0])
    .replaceAll(CONF_INSTANCES[1], options.instances[1])
    .replace(CONF_LISTEN, `listen 127.0.0.1:${options.port};`)
    .replace(
      "http {",
      `http {\n    client_body_temp_path ${options.dir}/body;\n    proxy_temp_path ${options.dir}/proxy;\n    fastcgi_temp_path ${options.dir}/fastcgi;\n    uwsgi_temp_path ${options.dir}/uwsgi;\n    scgi_temp_path ${options.dir}/scgi;`,
    );
}

/** A free TCP port on 127.0.0.1 (closed again at once; the caller binds it). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** A process started here. */
export interface Running extends AsyncDisposable {
  /** Where it answers MCP: `http://…/mcp`. */
  readonly url: string;
  readonly pid: number;
  /** Its stderr so far. */
  log(): string;
  /** SIGKILL: it stops dead, as a crashed machine would. */
  kill(): Promise<void>;
  /** SIGTERM, then its exit. */
  stop(): Promise<void>;
}

function spawn(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): {
  child: Deno.ChildProcess;
  log: () => string;
  exited: () => boolean;
  signal: (name: Deno.Signal) => Promise<void>;
  onOutput: (listener: () => void) => void;
} {
  const child = new Deno.Command(command, {
    args,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let log = "";
  let exited = false;
  const listeners: (() => void)[] = [];
  // Drained to the end, so that the child never blocks on a full pipe.
  (async () => {
    for await (
      const chunk of child.stderr.pipeThrough(new TextDecoderStream())
    ) {
      log += chunk;
      for (const listener of listeners) listener();
    }
  })();
  const status = child.status.then(() => {
    exited = true;
    for (const listener of listeners) listener();
  });
  return {
    child,
    log: () => log,
    exited: () => exited,
    onOutput: (listener) => listeners.push(listener),
    signal: async (name) => {
      if (!exited) {
        try {
          child.kill(name);
        } catch {
          // Already gone.
        }
      }
      await status;
    },
  };
}

/**
 * gate/main.ts `--http 127.0.0.1:0` with `args` (the policy, the upstream);
 * resolves with the URL it prints once it listens.
 */
export async function startHttpGate(
  args: readonly string[],
  options: { env?: Record<string, string> } = {},
): Promise<Running> {
  const process = spawn(Deno.execPath(), [
    "run",
    "-A",
    MAIN,
    "--http",
    "127.0.0.1:0",
    ...args,
  ], options.env);
  const listening = Promise.withResolvers<string>();
  const look = () => {
    const found = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(
      process.log(),
    );
    if (found !== null) listening.resolve(found[1]);
    else if (process.exited()) {
      listening.reject(new Error(`The gate exited:\n${process.log()}`));
    }
  };
  process.onOutput(look);
  const timer = setTimeout(
    () =>
      listening.reject(new Error(`The gate did not listen:\n${process.log()}`)),
    30_000,
  );
  let url: string;
  try {
    url = await listening.promise;
  } catch (error) {
    await process.signal("SIGKILL");
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return {
    url,
    pid: process.child.pid,
    log: process.log,
    kill: () => process.signal("SIGKILL"),
    stop: () => process.signal("SIGTERM"),
    [Symbol.asyncDispose]: () => process.signal("SIGTERM"),
  };
}

/**
 * nginx running deploy/nginx.conf in front of two instances' URLs, on
 * `options.port` (a free one by default; a policy's `auth.resource` may
 * have to name it before the instances start).
 */
export async function startGateNginx(
  instances: readonly [string, string],
  options: { port?: number } = {},
): Promise<Running> {
  const dir = await Deno.makeTempDir({ prefix: "forge_gate_nginx_" });
  const port = options.port ?? freePort();
  const conf = gateNginxConf(await Deno.readTextFile(GATE_NGINX_CONF), {
    port,
    instances: [new URL(instances[0]).host, new URL(instances[1]).host],
    dir,
  });
  await Deno.writeTextFile(`${dir}/nginx.conf`, conf);
  const process = spawn("nginx", [
    "-p",
    dir,
    "-c",
    `${dir}/nginx.conf`,
    "-g",
    `daemon off; master_process off; pid ${dir}/nginx.pid;`,
  ]);
  const stop = async (name: Deno.Signal) => {
    await process.signal(name);
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  // nginx prints nothing once it is up: wait until it accepts.
  try {
    await until("nginx accepts connections", async () => {
      if (process.exited()) throw new Error(`nginx exited:\n${process.log()}`);
      try {
        (await Deno.connect({ hostname: "127.0.0.1", port })).close();
        return true;
      } catch {
        return false;
      }
    }, { timeoutMs: 10_000, intervalMs: 20 });
  } catch (error) {
    await stop("SIGKILL");
    throw error;
  }
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    pid: process.child.pid,
    log: process.log,
    kill: () => stop("SIGKILL"),
    stop: () => stop("SIGTERM"),
    [Symbol.asyncDispose]: () => stop("SIGTERM"),
  };
}
