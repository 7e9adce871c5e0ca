/**
 * The processes of the scale-out harness, each on a free loopback port with
 * its files in a temporary directory, each stopped by its own handle (its
 * pid), never by name: a redis-server, everything-server instances
 * (`examples/everything/main.ts --http`, with or without `--redis`) and
 * nginx running `examples/everything/nginx.conf` with its port and
 * upstreams replaced.
 *
 * @module
 */

import { REPO_ROOT } from "./_servers.ts";

const MAIN = `${REPO_ROOT}/examples/everything/main.ts`;

/** The nginx config the harness runs, as the example ships it. */
export const NGINX_CONF: string = `${REPO_ROOT}/examples/everything/nginx.conf`;

/** A process the harness started; `stop()` ends it and waits for its exit. */
export interface Started {
  /** Where it answers: `redis://…` or `http://…/mcp`. */
  readonly url: string;
  /** Its process id. */
  readonly pid: number;
  /** What it printed so far (stderr, and stdout for redis-server). */
  log(): string;
  /** SIGTERM by pid, then its exit and temporary files. */
  stop(): Promise<void>;
}

/**
 * A free TCP port on 127.0.0.1 (closed again at once; the caller binds it).
 *
 * @example
 * ```ts
 * import { freePort } from "./_cluster.ts";
 *
 * freePort() > 0; // true
 * ```
 */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/**
 * Whether `command` is on PATH.
 *
 * @example
 * ```ts
 * import { installed } from "./_cluster.ts";
 *
 * installed("sh"); // true
 * ```
 */
export function installed(command: string): boolean {
  try {
    return new Deno.Command("sh", {
      args: ["-c", `command -v ${command}`],
      stdout: "null",
      stderr: "null",
    }).outputSync().success;
  } catch {
    return false;
  }
}

/**
 * `conf` (nginx.conf's text) listening on `port`, proxying to `upstreams`
 * (`host:port` each), with nginx's temporary files under `dir`. Throws a
 * `TypeError` when the config no longer has the lines it replaces.
 *
 * @example
 * ```ts
 * import { nginxConf } from "./_cluster.ts";
 *
 * const conf = "http {\n  upstream everything {\n    server 127.0.0.1:3001;\n    keepalive 32;\n  }\n  server {\n    listen 127.0.0.1:8080;\n  }\n}\n";
 * nginxConf(conf, { port: 9000, upstreams: ["127.0.0.1:4000"], dir: "/tmp/n" })
 *   .includes("server 127.0.0.1:4000;"); // true
 * ```
 */
export function nginxConf(
  conf: string,
  options: { port: number; upstreams: readonly string[]; dir: string },
): string {
  // Each upstream keeps the parameters the config gives its first server.
  const params = /upstream everything \{[^}]*?server \S+?( [^;\n]*)?;/
    .exec(conf)?.[1] ?? "";
  const servers = options.upstreams.map((host) => `server ${host}${params};`)
    .join("\n        ");
  const out = conf
    .replace(
      /(upstream everything \{[^}]*?)(server [^\n]+\n\s*)+/,
      `$1${servers}\n        `,
    )
    .replace(/listen 127\.0\.0\.1:\d+;/, `listen 127.0.0.1:${options.port};`)
    // Its own files in the run's directory, not /var/lib/nginx.
    .replace(
      /http \{/,
      `http {\n    client_body_temp_path ${options.dir}/body;\n    proxy_temp_path ${options.dir}/proxy;\n    fastcgi_temp_path ${options.dir}/fastcgi;\n    uwsgi_temp_path ${options.dir}/uwsgi;\n    scgi_temp_path ${options.dir}/scgi;`,
    );
  if (
    !out.includes(`listen 127.0.0.1:${options.port};`) ||
    !out.includes(servers) || !out.includes(`${options.dir}/body`)
  ) {
    throw new TypeError(
      "Cannot rewrite nginx.conf: it no longer has the listen, upstream or http lines the harness replaces",
    );
  }
  return out;
}

/** Spawns `command`, keeps its output, resolves once `ready(log)` holds. */
async function spawn(
  command: string,
  options: {
    args: string[];
    cwd?: string;
    env?: Record<string, string>;
    url: string;
    ready: (log: string) => boolean | Promise<boolean>;
    cleanup?: () => Promise<void>;
  },
): Promise<Started> {
  const child = new Deno.Command(command, {
    args: options.args,
    cwd: options.cwd,
    env: options.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let log = "";
  let exited = false;
  const decoder = new TextDecoder();
  // Drained to the end, so that the child never blocks on a full pipe.
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) {
      log += decoder.decode(chunk, { stream: true });
    }
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
  child.status.then(() => exited = true);
  const stop = async () => {
    if (!exited) {
      try {
        child.kill("SIGTERM");
      } catch {
        // Already gone.
      }
    }
    await child.status;
    await drained;
    await options.cleanup?.();
  };
  const deadline = performance.now() + 30_000;
  // Bounded: 30 s, then the child is stopped and the harness fails.
  while (!(await options.ready(log))) {
    if (exited || performance.now() > deadline) {
      await stop();
      throw new Error(`${command} did not start:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { url: options.url, pid: child.pid, log: () => log, stop };
}

/**
 * A redis-server with no persistence (nothing on disk: the figures are the
 * network and the store, not the disk of a shared machine).
 *
 * @example
 * ```ts ignore
 * import { startRedis } from "./_cluster.ts";
 *
 * const redis = await startRedis();
 * await redis.stop();
 * ```
 */
export async function startRedis(): Promise<Started> {
  const dir = await Deno.makeTempDir({ prefix: "forge_bench_redis_" });
  const port = freePort();
  return await spawn("redis-server", {
    args: [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--dir",
      dir,
      "--save",
      "",
      "--appendonly",
      "no",
    ],
    url: `redis://127.0.0.1:${port}`,
    ready: (log) => log.includes("Ready to accept connections"),
    cleanup: () => Deno.remove(dir, { recursive: true }).catch(() => {}),
  });
}

/**
 * One everything server, run from the repository root as docs/http.md
 * runs it, with `--redis` when `redis` is given. `key` is the shared
 * request-state key (Base64), the same in every instance.
 *
 * @example
 * ```ts ignore
 * import { startInstance } from "./_cluster.ts";
 *
 * const instance = await startInstance({ key: btoa("k".repeat(32)) });
 * await instance.stop();
 * ```
 */
export async function startInstance(
  options: { key: string; redis?: string },
): Promise<Started> {
  const port = freePort();
  const args = ["run", "-A", MAIN, "--http", `127.0.0.1:${port}`];
  if (options.redis !== undefined) args.push("--redis", options.redis);
  return await spawn(Deno.execPath(), {
    args,
    cwd: REPO_ROOT,
    env: { EVERYTHING_REQUEST_STATE_KEY: options.key, NO_COLOR: "1" },
    url: `http://127.0.0.1:${port}/mcp`,
    ready: (log) => log.includes(`127.0.0.1:${port}/mcp`),
  });
}

/**
 * nginx from {@linkcode NGINX_CONF} in front of `upstreams` (`http://…`
 * origins or URLs), in the foreground, one process (no master).
 *
 * @example
 * ```ts ignore
 * import { startNginx } from "./_cluster.ts";
 *
 * const nginx = await startNginx(["http://127.0.0.1:3001/mcp"]);
 * await nginx.stop();
 * ```
 */
export async function startNginx(
  upstreams: readonly string[],
): Promise<Started> {
  const dir = await Deno.makeTempDir({ prefix: "forge_bench_nginx_" });
  const port = freePort();
  const conf = nginxConf(await Deno.readTextFile(NGINX_CONF), {
    port,
    upstreams: upstreams.map((url) => new URL(url).host),
    dir,
  });
  return await runNginx(conf, { dir, port });
}

/**
 * nginx with `conf`, written to `dir`, in the foreground, one process (no
 * master), ready once it accepts on `port`; `dir` goes when it stops.
 */
async function runNginx(
  conf: string,
  { dir, port }: { dir: string; port: number },
): Promise<Started> {
  await Deno.writeTextFile(`${dir}/nginx.conf`, conf);
  return await spawn("nginx", {
    args: [
      "-p",
      dir,
      "-c",
      `${dir}/nginx.conf`,
      "-g",
      `daemon off; master_process off; pid ${dir}/nginx.pid;`,
    ],
    url: `http://127.0.0.1:${port}/mcp`,
    // nginx prints nothing once it is up: ready when it accepts.
    ready: async () => {
      try {
        (await Deno.connect({ hostname: "127.0.0.1", port })).close();
        return true;
      } catch {
        return false;
      }
    },
    cleanup: () => Deno.remove(dir, { recursive: true }).catch(() => {}),
  });
}

/** The nginx config the gate ships for two instances. */
export const GATE_NGINX_CONF: string =
  `${REPO_ROOT}/toolkit/gate/deploy/nginx.conf`;

const GATE_MAIN = `${REPO_ROOT}/toolkit/gate/main.ts`;
/** The instance addresses the gate's nginx.conf is written for. */
const GATE_CONF_INSTANCES = ["127.0.0.1:8081", "127.0.0.1:8082"] as const;
const GATE_CONF_LISTEN = "listen 127.0.0.1:8080;";

/**
 * `conf` (the gate's deploy/nginx.conf) listening on `port`, its two
 * instances at `instances` (`host:port` each, every place they are named),
 * nginx's temporary files under `dir`. A `TypeError` when the config no
 * longer has the lines it replaces.
 *
 * @example
 * ```ts
 * import { gateNginxConf } from "./_cluster.ts";
 *
 * const conf = "http {\n  upstream gates {\n    server 127.0.0.1:8081;\n    server 127.0.0.1:8082;\n  }\n  server {\n    listen 127.0.0.1:8080;\n  }\n}\n";
 * gateNginxConf(conf, { port: 9000, instances: ["127.0.0.1:4001", "127.0.0.1:4002"], dir: "/tmp/n" })
 *   .includes("server 127.0.0.1:4002;"); // true
 * ```
 */
export function gateNginxConf(
  conf: string,
  options: { port: number; instances: readonly [string, string]; dir: string },
): string {
  for (const needle of [GATE_CONF_LISTEN, ...GATE_CONF_INSTANCES, "http {"]) {
    if (!conf.includes(needle)) {
      throw new TypeError(
        `Cannot rewrite the gate's nginx.conf: it no longer has ${needle}`,
      );
    }
  }
  return conf
    .replaceAll(GATE_CONF_INSTANCES[0], options.instances[0])
    .replaceAll(GATE_CONF_INSTANCES[1], options.instances[1])
    .replace(GATE_CONF_LISTEN, `listen 127.0.0.1:${options.port};`)
    .replace(
      "http {",
      `http {\n    client_body_temp_path ${options.dir}/body;\n    proxy_temp_path ${options.dir}/proxy;\n    fastcgi_temp_path ${options.dir}/fastcgi;\n    uwsgi_temp_path ${options.dir}/uwsgi;\n    scgi_temp_path ${options.dir}/scgi;`,
    );
}

/**
 * One gate instance serving HTTP (`toolkit/gate/main.ts --http
 * 127.0.0.1:0`), run from the repository root with `args` (the policy, the
 * upstream); its URL is the one it prints once it listens. `root` runs
 * another checkout's gate instead (its main.ts, from its root).
 *
 * @example
 * ```ts ignore
 * import { startGate } from "./_cluster.ts";
 *
 * const gate = await startGate(["--policy", "gate.yaml", "--url", "http://127.0.0.1:3001/mcp"]);
 * await gate.stop();
 * ```
 */
export async function startGate(
  args: readonly string[],
  options: { root?: string } = {},
): Promise<Started> {
  const listening = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/;
  let url = "";
  const root = options.root ?? REPO_ROOT;
  const main = options.root === undefined
    ? GATE_MAIN
    : `${root}/toolkit/gate/main.ts`;
  const started = await spawn(Deno.execPath(), {
    args: ["run", "-A", main, "--http", "127.0.0.1:0", ...args],
    cwd: root,
    env: { NO_COLOR: "1" },
    url: "",
    ready: (log) => {
      url = listening.exec(log)?.[1] ?? "";
      return url !== "";
    },
  });
  return { ...started, url };
}

/**
 * nginx from {@linkcode GATE_NGINX_CONF} in front of two gate instances'
 * URLs, in the foreground, one process (no master).
 *
 * @example
 * ```ts ignore
 * import { startGateNginx } from "./_cluster.ts";
 *
 * const nginx = await startGateNginx(["http://127.0.0.1:3001/mcp", "http://127.0.0.1:3002/mcp"]);
 * await nginx.stop();
 * ```
 */
export async function startGateNginx(
  instances: readonly [string, string],
): Promise<Started> {
  const dir = await Deno.makeTempDir({ prefix: "forge_bench_gate_nginx_" });
  const port = freePort();
  const conf = gateNginxConf(await Deno.readTextFile(GATE_NGINX_CONF), {
    port,
    instances: [new URL(instances[0]).host, new URL(instances[1]).host],
    dir,
  });
  return await runNginx(conf, { dir, port });
}
