/**
 * Builds the edge server for one runtime and starts it there: one
 * `deno bundle` of the same source (`server.ts`, behind the runtime's
 * entry: `_deno.ts`, `_node.ts`, `_bun.ts`, or `server.ts` itself for
 * workerd), then the runtime on the built file. Prints
 * `listening on http://127.0.0.1:N/mcp` on stdout once the runtime
 * listens; the runtime's own output goes to stderr. SIGINT or SIGTERM stop
 * the runtime too.
 *
 * ```sh
 * deno run -A examples/edge/serve.ts --runtime deno --port 8787
 * deno run -A examples/edge/serve.ts --runtime workerd --port 0   # any free port
 * MCP_TOKEN=secret deno run -A examples/edge/serve.ts --runtime bun --port 8787
 * ```
 *
 * `--bin PATH` runs another binary of the runtime (another Node, say);
 * `--out DIR` keeps the build there instead of in a temporary directory;
 * with `--dry-run` it only builds, and prints the command that would start
 * the runtime (JSON: `command`, `args`, `cwd`).
 * Bun, workerd and a current Node come from `install.ts`.
 *
 * @module
 */

import {
  defaultBinary,
  INSTALL_LINE,
  type Runtime,
  RUNTIMES,
} from "./_runtimes.ts";

/** What the command line asked for. */
export interface ServeCommand {
  /** The runtime to start. */
  runtime: Runtime;
  /** The loopback port; 0 for any free one. */
  port: number;
  /** The runtime's binary, when not the default one. */
  bin?: string;
  /** Where to build; a temporary directory when undefined. */
  out?: string;
  /** Build into `out` and print the command that starts the runtime, as JSON. */
  dryRun?: boolean;
}

/** The variables the edge server reads, handed to workerd as bindings. */
export const EDGE_VARIABLES = [
  "MCP_TOKEN",
  "MCP_ALLOWED_HOSTS",
  "MCP_REQUEST_STATE_KEY",
] as const;

const USAGE = `Usage: serve.ts --runtime ${
  RUNTIMES.join("|")
} [--port N] [--bin PATH] [--out DIR]`;

const HERE = new URL(".", import.meta.url);

/** Parses the command line; a `TypeError` names what was wrong. */
export function parseArgs(args: readonly string[]): ServeCommand {
  let runtime: Runtime | undefined;
  let port = 8787;
  let bin: string | undefined;
  let out: string | undefined;
  let dryRun = false;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--dry-run") {
      dryRun = true;
      continue;
    }
    const [flag, inline] = args[i].split(/=(.*)/s, 2);
    const value = () => {
      const v = inline ?? args[++i];
      if (v === undefined) {
        throw new TypeError(`Invalid arguments: ${flag} needs a value`);
      }
      return v;
    };
    if (flag === "--runtime") {
      const v = value();
      if (!(RUNTIMES as readonly string[]).includes(v)) {
        throw new TypeError(
          `Invalid arguments: --runtime expects one of ${
            RUNTIMES.join(", ")
          }, got ${JSON.stringify(v)}`,
        );
      }
      runtime = v as Runtime;
    } else if (flag === "--port") {
      const v = value();
      port = /^\d{1,5}$/.test(v) ? Number(v) : NaN;
      if (!(port <= 65535)) {
        throw new TypeError(
          `Invalid arguments: --port expects 0 to 65535, got ${
            JSON.stringify(v)
          }`,
        );
      }
    } else if (flag === "--bin") bin = value();
    else if (flag === "--out") out = value();
    else throw new TypeError(`Invalid arguments: unknown option: ${args[i]}`);
  }
  if (runtime === undefined) {
    throw new TypeError("Invalid arguments: --runtime is required");
  }
  if (dryRun && out === undefined) {
    throw new TypeError("Invalid arguments: --dry-run needs --out DIR");
  }
  return dryRun
    ? { runtime, port, bin, out, dryRun }
    : { runtime, port, bin, out };
}

/**
 * Bundles the edge server for `runtime` into `dir`; answers the built
 * file's path. workerd loads `server.ts`'s default export itself; the
 * others run an entry that listens.
 */
export async function build(runtime: Runtime, dir: string): Promise<string> {
  const entry = runtime === "workerd" ? "server.ts" : `_${runtime}.ts`;
  const file = `${dir}/${runtime === "workerd" ? "worker.js" : "server.mjs"}`;
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      // workerd is a browser-like platform; the others resolve node: themselves.
      `--platform=${runtime === "workerd" ? "browser" : "deno"}`,
      "--output",
      file,
      new URL(entry, HERE).pathname,
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== 0) {
    throw new Error(
      `Cannot build the edge server for ${runtime}: deno bundle failed: ${
        new TextDecoder().decode(stderr).trim()
      }`,
    );
  }
  return file;
}

/** The workerd configuration that serves `worker.js` on `port`. */
export function workerdConfig(
  port: number,
  env: Partial<Record<typeof EDGE_VARIABLES[number], string>>,
): string {
  const bindings = EDGE_VARIABLES.filter((name) => env[name] !== undefined)
    .map((name) => `(name = "${name}", text = ${JSON.stringify(env[name])})`);
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "edge", worker = .edge)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "edge")],
);
const edge :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = "2026-11-01",
  bindings = [${bindings.join(", ")}],
);
`;
}

function startArgs(runtime: Runtime, file: string, port: number): string[] {
  switch (runtime) {
    case "deno":
      return [
        "run",
        "--allow-net",
        "--allow-env",
        "--no-config",
        "--no-lock",
        file,
        String(port),
      ];
    case "node":
    case "bun":
      return [file, String(port)];
    case "workerd":
      // The control fd reports the bound port, also for port 0.
      return ["serve", "config.capnp", "--control-fd=1"];
  }
}

/** The URL in a line the runtime printed once listening, or undefined. */
export function listeningUrl(line: string): string | undefined {
  const printed = /^listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/.exec(line);
  if (printed !== null) return printed[1];
  if (line.startsWith("{")) {
    try {
      const event = JSON.parse(line);
      if (event.event === "listen" && event.socket === "http") {
        return `http://127.0.0.1:${event.port}/mcp`;
      }
    } catch {
      // not workerd's control message
    }
  }
  return undefined;
}

async function main(command: ServeCommand): Promise<number> {
  const bin = command.bin ?? defaultBinary(command.runtime);
  if (bin === undefined) {
    console.error(
      `Cannot start ${command.runtime}: not installed; run: ${INSTALL_LINE}`,
    );
    return 2;
  }
  const temporary = command.out === undefined;
  const dir = command.out ?? await Deno.makeTempDir({ prefix: "forge-edge-" });
  await Deno.mkdir(dir, { recursive: true });
  try {
    const file = await build(command.runtime, dir);
    if (command.runtime === "workerd") {
      await Deno.writeTextFile(
        `${dir}/config.capnp`,
        workerdConfig(command.port, Deno.env.toObject()),
      );
    }
    const args = startArgs(command.runtime, file, command.port);
    if (command.dryRun) {
      // The benchmark times the runtime's start alone, without this process.
      console.log(JSON.stringify({ command: bin, args, cwd: dir }));
      return 0;
    }
    const child = new Deno.Command(bin, {
      args,
      cwd: dir,
      stdin: "null",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const stop = () => {
      try {
        child.kill("SIGTERM");
      } catch {
        // already gone
      }
    };
    Deno.addSignalListener("SIGINT", stop);
    Deno.addSignalListener("SIGTERM", stop);
    // stdout: the listening line, once; everything else the runtime prints
    // goes to stderr.
    let said = false;
    const lines = child.stdout.pipeThrough(new TextDecoderStream())
      .pipeThrough(new LineStream());
    for await (const line of lines) {
      const url = said ? undefined : listeningUrl(line);
      if (url !== undefined) {
        said = true;
        console.log(`listening on ${url}`);
      } else if (!line.startsWith('{"event":')) console.error(line);
    }
    const status = await child.status;
    Deno.removeSignalListener("SIGINT", stop);
    Deno.removeSignalListener("SIGTERM", stop);
    return status.signal === "SIGTERM" || status.signal === "SIGINT"
      ? 0
      : status.code;
  } finally {
    if (temporary) await Deno.remove(dir, { recursive: true });
  }
}

/** Splits text into lines (without their ends). */
class LineStream extends TransformStream<string, string> {
  constructor() {
    let rest = "";
    super({
      transform(chunk, controller) {
        const parts = (rest + chunk).split("\n");
        rest = parts.pop()!;
        for (const part of parts) controller.enqueue(part.replace(/\r$/, ""));
      },
      flush(controller) {
        if (rest !== "") controller.enqueue(rest);
      },
    });
  }
}

if (import.meta.main) {
  let command: ServeCommand;
  try {
    command = parseArgs(Deno.args);
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    Deno.exit(2);
  }
  try {
    Deno.exit(await main(command));
  } catch (error) {
    console.error((error as Error).message);
    Deno.exit(1);
  }
}
