/**
 * hello-tool, the runnable example of `@forge/toolkit`: a stdio MCP server
 * (or Streamable HTTP with `--http [host:]port`) whose three tools show the
 * toolkit's parts at work — typed environment configuration, a config file
 * reloaded live, a read-only tool, and two side-effecting tools with the
 * permission-pattern probe, syntax validation and atomic writes.
 *
 * Run it with `deno task example`; see `README.md` beside this file. The
 * file tools work in `HELLO_ROOT`; without it, in a new empty directory that
 * a stderr line names at start (never the current directory, which for a
 * host-started server is wherever the host runs).
 *
 * @example Connect from a host: the `mcpServers` entry
 * ```json
 * { "mcpServers": { "hello-tool": {
 *   "command": "deno",
 *   "args": ["run", "--allow-read", "--allow-write",
 *            "--allow-env=HELLO_ROOT,HELLO_CONFIG",
 *            "/path/to/examples/hello-tool/main.ts"] } } }
 * ```
 *
 * @module
 */

import { env, EnvError, readEnv } from "@forge/toolkit/env";
import { ConfigError, watchConfig } from "@forge/toolkit/configreload";
import { streamableHttp } from "@forge/toolkit/http";
import { otel } from "@forge/toolkit/otel";
import { z } from "zod";
import { parseCommandLine, USAGE, UsageError } from "./cli.ts";
import { createHelloServer, SERVER_INFO } from "./server.ts";
// A module import, so `deno bundle` and `deno compile` carry the default
// inside the artefact, where no config.json sits beside the script.
import BUILT_IN_CONFIG from "./config.json" with { type: "json" };

/** The shape of the config file. */
const CONFIG_SCHEMA = z.object({
  greeting: z.string().min(1).describe("The word hello answers with"),
});

/** What the `hello` tool reads its greeting from. */
interface GreetingSource {
  greeting(): string;
  close(): Promise<void>;
}

/** The permissions the server needs, as a host's command line gives them. */
const PERMISSIONS = [
  "--allow-read",
  "--allow-write",
  "--allow-env=HELLO_ROOT,HELLO_CONFIG",
];

/**
 * Starts hello-tool from the command line and the environment; returns the
 * exit status for start-up failures (the server itself exits when served).
 */
async function main(args: readonly string[]): Promise<number> {
  let command;
  try {
    command = parseCommandLine(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`hello-tool: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (command.kind === "help") {
    console.error(USAGE);
    return 0;
  }

  let settings;
  try {
    settings = readEnv({
      root: env.optional(env.string("HELLO_ROOT")),
      config: env.optional(env.string("HELLO_CONFIG")),
    });
  } catch (error) {
    if (!(error instanceof EnvError)) throw error;
    console.error(`hello-tool: ${error.message}`);
    return 1;
  }

  // Hosts such as the Inspector start servers without the user's
  // environment, so the current directory would be wherever the host was
  // started: without HELLO_ROOT the file tools get a new empty directory.
  const scratch = settings.root === undefined;
  const root = settings.root === undefined
    ? await Deno.realPath(
      await Deno.makeTempDir({ prefix: "hello-tool-root-" }),
    )
    : absolute(settings.root);
  if (scratch) {
    console.error(
      `hello-tool: HELLO_ROOT is not set: the file tools work in a new empty directory, ${root}; set HELLO_ROOT to choose the directory`,
    );
    // Kept once it holds a file: those are the user's.
    globalThis.addEventListener("unload", () => removeIfEmpty(root));
  }
  const problem = scratch ? undefined : await checkRoot(root);
  if (problem !== undefined) {
    console.error(`hello-tool: Cannot start: HELLO_ROOT ${problem}`);
    return 1;
  }

  let config;
  try {
    config = await openConfig(settings.config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`hello-tool: Cannot start: ${error.message}`);
    return 1;
  }

  const server = await createHelloServer({
    root,
    greeting: () => config.greeting(),
  });
  // A span per request; exported only under OTEL_DENO=true (docs/observability.md).
  server.use(
    otel({ networkTransport: command.kind === "http" ? "tcp" : "pipe" }),
  );

  if (command.kind === "http") {
    const { hostname, port } = command.address;
    const host = hostname.includes(":") ? `[${hostname}]` : hostname;
    const wanted = port === 0 ? host : `${host}:${port}`;
    // In a terminal Deno asks the user; elsewhere this answers at once.
    const net = await Deno.permissions.request({ name: "net", host: wanted });
    if (net.state !== "granted") {
      console.error(
        `hello-tool: Cannot serve HTTP: no network permission for ${wanted}: run with --allow-net=${wanted}`,
      );
      await config.close();
      return 1;
    }
    await server.serve({
      exit: false,
      transport: streamableHttp({
        hostname,
        port,
        onListen: (url) =>
          console.error(
            `hello-tool: serving MCP over Streamable HTTP (root ${root}); connect a host to ${url}`,
          ),
      }),
    });
    await config.close();
    return 0;
  }

  const entry = {
    mcpServers: {
      [SERVER_INFO.name]: {
        command: Deno.execPath(),
        // A `deno compile` binary is the command, its permissions built in.
        args: Deno.build.standalone ? [] : [
          "run",
          ...PERMISSIONS,
          decodeURIComponent(
            new URL(import.meta.url).pathname,
          ),
        ],
        // A host that starts it so gets a new directory of its own too.
        ...(scratch ? {} : { env: { HELLO_ROOT: root } }),
      },
    },
  };
  console.error(
    `hello-tool: serving MCP on stdio (root ${root}); connect a host with: ${
      JSON.stringify(entry)
    }`,
  );
  await server.serve({ exit: false });
  await config.close();
  return 0;
}

/**
 * The config `HELLO_CONFIG` names, else the config.json beside the script
 * (a clone), both watched live; else the built-in default (a bundle, a
 * compiled binary, a remote URL), which has no file to watch.
 */
async function openConfig(named: string | undefined): Promise<GreetingSource> {
  const path = named ?? await configBesideScript();
  if (path === undefined) {
    const { greeting } = CONFIG_SCHEMA.parse(BUILT_IN_CONFIG);
    console.error(
      `hello-tool: no config.json beside the script: using the built-in default config (greeting ${
        JSON.stringify(greeting)
      }); set HELLO_CONFIG to a file to reload it live`,
    );
    return { greeting: () => greeting, close: () => Promise.resolve() };
  }
  const config = await watchConfig(path, { schema: CONFIG_SCHEMA });
  config.subscribe((event) => {
    if (event.type === "change") {
      console.error(
        `hello-tool: config reloaded: greeting is now ${
          JSON.stringify(event.value.greeting)
        }`,
      );
    } else {
      console.error(
        `hello-tool: config change ignored, keeping greeting ${
          JSON.stringify(config.current.greeting)
        }: ${event.error.message}`,
      );
    }
  });
  return {
    greeting: () => config.current.greeting,
    close: () => config.close(),
  };
}

/** The path of config.json beside this script, when there is one. */
async function configBesideScript(): Promise<string | undefined> {
  const url = new URL("./config.json", import.meta.url);
  if (url.protocol !== "file:") return undefined;
  const path = decodeURIComponent(url.pathname);
  try {
    await Deno.stat(path);
  } catch (error) {
    // Any other failure is the file's to report, through watchConfig().
    if (error instanceof Deno.errors.NotFound) return undefined;
  }
  return path;
}

function removeIfEmpty(dir: string): void {
  try {
    Deno.removeSync(dir);
  } catch {
    // Not empty, or gone already: nothing to tidy.
  }
}

function absolute(path: string): string {
  if (path.startsWith("/")) return path;
  const cwd = Deno.cwd();
  return path === "." ? cwd : `${cwd === "/" ? "" : cwd}/${path}`;
}

/** Why `root` cannot be the root, or `undefined` when it can. */
async function checkRoot(root: string): Promise<string | undefined> {
  try {
    const info = await Deno.stat(root);
    return info.isDirectory ? undefined : `is not a directory: ${root}`;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return `does not exist: ${root}: expected an existing directory`;
    }
    return `cannot be read: ${root}: ${(error as Error).message}`;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
