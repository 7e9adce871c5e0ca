/**
 * The edge server (`examples/edge`) on each runtime, side by side, in one
 * run: its cold start and its calls per second. serve.ts builds the same
 * source for each runtime once (`--dry-run`); then, per runtime:
 *
 * - **cold start**: from spawning the runtime on the built file to the
 *   answer of the first `server/discover`, the median of `--starts` starts;
 * - **calls/s**: `tools/call test_simple_text` (a 2026-07-28 stateless
 *   request each) from `--clients` concurrent clients for `--seconds`,
 *   after a half-second warm-up, every answer checked.
 *
 * One load generator (this process's `fetch`) for every runtime, so it
 * costs each the same. Runtimes that are not installed are listed as such
 * (`deno run -A examples/edge/install.ts` installs them).
 *
 * ```sh
 * cd bench
 * deno task edge                      # about 40 s
 * deno task edge --starts=3 --seconds=2
 * ```
 *
 * @module
 */

import { REPO_ROOT } from "./_servers.ts";
import { median } from "./_stats.ts";

const SERVE = `${REPO_ROOT}/examples/edge/serve.ts`;
const INSTALL = `${REPO_ROOT}/examples/edge/install.ts`;
const VERSION = "2026-07-28";
const EXPECTED = "This is a simple text response for testing.";

interface Target {
  label: string;
  runtime: string;
  bin?: string;
  missing?: string;
}

interface Launch {
  command: string;
  args: string[];
  cwd: string;
}

/** One figure row. */
export interface EdgeFigures {
  label: string;
  coldStartMs?: number;
  callsPerSecond?: number;
  note?: string;
}

function option(name: string, fallback: number): number {
  const given = Deno.args.find((a) => a.startsWith(`--${name}=`));
  const value = given === undefined ? fallback : Number(given.split("=")[1]);
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(
      `Invalid --${name}: expected a positive integer, got ${given}`,
    );
  }
  return value;
}

async function json<T>(args: string[]): Promise<T> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (code !== 0) {
    throw new Error(
      `${args.join(" ")} failed: ${new TextDecoder().decode(stderr)}`,
    );
  }
  return JSON.parse(new TextDecoder().decode(stdout));
}

function request(method: string, params: Record<string, unknown>): RequestInit {
  return {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": VERSION,
      "mcp-method": method,
      ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": VERSION,
          "io.modelcontextprotocol/clientCapabilities": {},
        },
        ...params,
      },
    }),
  };
}

const DISCOVER = request("server/discover", {});
const CALL = request("tools/call", { name: "test_simple_text", arguments: {} });

/** The URL in the runtime's listening line or workerd's listen event. */
function urlIn(line: string): string | undefined {
  const printed = /^listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/.exec(line);
  if (printed !== null) return printed[1];
  const event = /^\{"event":"listen","socket":"http","port":(\d+)\}$/.exec(
    line,
  );
  return event === null ? undefined : `http://127.0.0.1:${event[1]}/mcp`;
}

interface Running {
  url: string;
  stop(): Promise<void>;
}

async function launch(how: Launch): Promise<Running> {
  const child = new Deno.Command(how.command, {
    args: how.args,
    cwd: how.cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  let url: string | undefined;
  while (url === undefined) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`${how.command} ended before it listened`);
    buffered += value;
    const lines = buffered.split("\n");
    buffered = lines.pop()!;
    url = lines.map(urlIn).find((u) => u !== undefined);
  }
  // Keep reading, so that a runtime writing to stdout never blocks.
  const drained = (async () => {
    while (!(await reader.read()).done);
  })();
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      await Promise.all([child.status, drained]);
    },
  };
}

async function answer(url: string, init: RequestInit): Promise<string> {
  const response = await fetch(url, init);
  const body = await response.json();
  if (response.status !== 200 || body.error !== undefined) {
    throw new Error(
      `Unexpected answer ${response.status}: ${JSON.stringify(body)}`,
    );
  }
  return body.result?.content?.[0]?.text ?? "";
}

async function coldStart(how: Launch): Promise<number> {
  const start = performance.now();
  const running = await launch(how);
  try {
    await answer(running.url, DISCOVER);
    return performance.now() - start;
  } finally {
    await running.stop();
  }
}

async function callsPerSecond(
  how: Launch,
  clients: number,
  seconds: number,
): Promise<number> {
  const running = await launch(how);
  try {
    let counting = false;
    let calls = 0;
    let end = performance.now() + 500;
    const client = async () => {
      while (performance.now() < end) {
        const text = await answer(running.url, CALL);
        if (text !== EXPECTED) throw new Error(`Wrong answer: ${text}`);
        if (counting) calls++;
      }
    };
    await Promise.all(Array.from({ length: clients }, client));
    counting = true;
    const start = performance.now();
    end = start + seconds * 1000;
    await Promise.all(Array.from({ length: clients }, client));
    return calls / ((performance.now() - start) / 1000);
  } finally {
    await running.stop();
  }
}

/** Measures every installed runtime; the rows in the order of the targets. */
export async function measureEdge(
  options: { starts: number; clients: number; seconds: number },
): Promise<EdgeFigures[]> {
  const targets = await json<Target[]>(["run", "-A", INSTALL, "--list"]);
  const dir = await Deno.makeTempDir({ prefix: "bench-edge-" });
  const rows: EdgeFigures[] = [];
  try {
    for (const [index, target] of targets.entries()) {
      if (target.missing !== undefined) {
        rows.push({ label: target.label, note: "not installed" });
        continue;
      }
      const how = await json<Launch>([
        "run",
        "-A",
        SERVE,
        "--runtime",
        target.runtime,
        "--port",
        "0",
        "--out",
        `${dir}/${index}`,
        "--dry-run",
        ...(target.bin === undefined ? [] : ["--bin", target.bin]),
      ]);
      const starts: number[] = [];
      for (let i = 0; i < options.starts; i++) {
        starts.push(await coldStart(how));
      }
      rows.push({
        label: target.label,
        coldStartMs: median(starts),
        callsPerSecond: await callsPerSecond(
          how,
          options.clients,
          options.seconds,
        ),
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  return rows;
}

/** The rows as a Markdown table. */
export function edgeTable(rows: readonly EdgeFigures[]): string {
  const lines = [
    "| runtime | cold start (ms, median) | calls/s |",
    "| ------- | ----------------------: | ------: |",
  ];
  for (const row of rows) {
    lines.push(
      row.note === undefined
        ? `| ${row.label} | ${row.coldStartMs!.toFixed(0)} | ${
          row.callsPerSecond!.toFixed(0)
        } |`
        : `| ${row.label} | ${row.note} | |`,
    );
  }
  return lines.join("\n");
}

if (import.meta.main) {
  const options = {
    starts: option("starts", 5),
    clients: option("clients", 8),
    seconds: option("seconds", 3),
  };
  console.error(
    `edge: ${options.starts} starts, ${options.clients} clients for ${options.seconds} s per runtime`,
  );
  const rows = await measureEdge(options);
  const load = Deno.loadavg().map((n) => n.toFixed(2)).join(", ");
  console.log(
    `${navigator.hardwareConcurrency} cores, load average ${load} (after the run)\n`,
  );
  console.log(edgeTable(rows));
}
