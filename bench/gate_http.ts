/**
 * The gate as a service: calls per second through one HTTP gate instance,
 * through two behind nginx, and to the upstream alone.
 *
 * Starts three `examples/everything/main.ts --http` upstreams (one for each
 * configuration, so that no upstream sees more new sessions a minute than
 * its per-address limit lets through), two gate instances
 * (`toolkit/gate/main.ts --http 127.0.0.1:0 --url …`, policy
 * `unprobed: allow`, no audit) in front of the second, one more in front of
 * the third and nginx running `toolkit/gate/deploy/nginx.conf` in front of
 * those two. Each configuration gets `--clients` 2025-11-25 sessions, made
 * once. Then, in `--rounds` rounds, each starting with the next
 * configuration, the sessions call `test_simple_text` until `--calls` calls
 * have been made (at most `--seconds`), each session one call at a time,
 * every answer checked. Prints the medians over the rounds and the ratios,
 * with the target: one instance ≥ 0.7× the upstream alone. Everything is on
 * 127.0.0.1; every process it started is stopped by its pid.
 *
 * ```sh
 * cd bench
 * deno task gate-http                 # 7 rounds, 50 sessions, 5000 calls a run
 * deno task gate-http --quick         # 3 rounds of 1500 calls: a check
 * deno task gate-http --rounds 5 --clients 20
 * # before and after a change, in one run: the old code's gate as a 4th
 * # configuration (a checkout of it, e.g. `git worktree add /tmp/before main`)
 * deno task gate-http --rounds 5 --baseline /tmp/before
 * ```
 *
 * @module
 */

import {
  installed,
  type Started,
  startGate,
  startGateNginx,
  startInstance,
} from "./_cluster.ts";
import { rotate } from "./_stats.ts";
import { cpuRow, type Run, summarize, summaryRow, ticks } from "./scale_out.ts";

/** What the command line asked for. */
export interface Options {
  /** Rounds; each measures every configuration once. */
  rounds: number;
  /** Sessions, each with one call in flight. */
  clients: number;
  /** `tools/call` requests per configuration and round. */
  calls: number;
  /** The longest a configuration's run may take, in seconds. */
  seconds: number;
  /**
   * Another checkout of the repository (the code before a change): its gate
   * is measured too, as one more configuration with an upstream of its own,
   * in the same rounds, so that before and after share one run.
   */
  baseline?: string;
}

/** The defaults of {@linkcode parseOptions}. */
export const DEFAULTS: Readonly<Options> = {
  rounds: 7,
  clients: 50,
  calls: 5000,
  seconds: 10,
};

/** What `--quick` sets (later options still override it). */
export const QUICK: Readonly<Partial<Options>> = { rounds: 3, calls: 1500 };

/**
 * Parses `--quick`, `--baseline DIR` and `--rounds N`, `--clients N`,
 * `--calls N`, `--seconds N` (also as `--name=N`). A `TypeError` for an
 * unknown option or a `--baseline` without its directory, a `RangeError`
 * for a value that is not a positive integer.
 *
 * @example
 * ```ts
 * import { parseOptions } from "./gate_http.ts";
 *
 * parseOptions(["--quick", "--clients=8"]).rounds; // 3
 * parseOptions(["--baseline", "../before"]).baseline; // "../before"
 * ```
 */
export function parseOptions(args: readonly string[]): Options {
  const options: Options = { ...DEFAULTS };
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--quick") {
      Object.assign(options, QUICK);
      continue;
    }
    const [flag, inline] = args[i].split(/=(.*)/s, 2);
    const name = flag.replace(/^--/, "");
    if (flag === "--baseline") {
      const dir = inline ?? args[++i];
      if (dir === undefined || dir === "") {
        throw new TypeError(
          "Invalid arguments: --baseline expects the directory of another checkout, got nothing",
        );
      }
      options.baseline = dir;
      continue;
    }
    if (!flag.startsWith("--") || !(name in DEFAULTS)) {
      throw new TypeError(`Invalid arguments: unknown option: ${args[i]}`);
    }
    const raw = inline ?? args[++i];
    const value = Number(raw);
    if (raw === undefined || !Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(
        `Invalid arguments: ${flag} expects a positive integer, got ${
          raw === undefined ? "nothing" : JSON.stringify(raw)
        }`,
      );
    }
    options[name as Exclude<keyof Options, "baseline">] = value;
  }
  return options;
}

/**
 * The JSON-RPC message of an answer's body: the JSON itself, or the last
 * `data:` line of an SSE stream that carries a `result` or an `error`.
 * `undefined` when there is none.
 *
 * @example
 * ```ts
 * import { answerOf } from "./gate_http.ts";
 *
 * answerOf('event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n', "text/event-stream")?.id; // 1
 * ```
 */
export function answerOf(
  body: string,
  contentType: string | null,
): Record<string, unknown> | undefined {
  const candidates = contentType?.includes("text/event-stream")
    ? body.split("\n").filter((line) => line.startsWith("data:")).map((
      line,
    ) => line.slice(5).trim()).reverse()
    : [body];
  for (const text of candidates) {
    try {
      const message = JSON.parse(text);
      if (
        typeof message === "object" && message !== null &&
        ("result" in message || "error" in message)
      ) {
        return message;
      }
    } catch {
      // Not JSON: the next line, or none.
    }
  }
  return undefined;
}

// A run and its summary are scale_out.ts's: the same calls per second,
// latencies and errors, folded the same way.
export type { Run, Summary } from "./scale_out.ts";
export { summarize };

/** The target: one gate instance at least this share of the upstream alone. */
export const TARGET = 0.7;

/**
 * The ratios line: one instance and two against the upstream alone, two
 * against one, and whether one instance meets {@linkcode TARGET}. A
 * `RangeError` for a rate that is not positive.
 *
 * @example
 * ```ts
 * import { ratios } from "./gate_http.ts";
 *
 * ratios({ upstream: 1000, one: 800, two: 1200 });
 * // "one instance / upstream alone: 0.80× (target ≥ 0.7×: met); two instances / upstream alone: 1.20×; two / one: 1.50×"
 * ```
 */
export function ratios(
  rates: { upstream: number; one: number; two: number },
): string {
  for (const [name, rate] of Object.entries(rates)) {
    if (!(rate > 0)) {
      throw new RangeError(
        `Cannot compare: the ${name} rate must be positive, got ${rate}`,
      );
    }
  }
  const one = rates.one / rates.upstream;
  return `one instance / upstream alone: ${
    one.toFixed(2)
  }× (target ≥ ${TARGET}×: ${
    one >= TARGET ? "met" : "not met"
  }); two instances / upstream alone: ${
    (rates.two / rates.upstream).toFixed(2)
  }×; two / one: ${(rates.two / rates.one).toFixed(2)}×`;
}

const PROTOCOL = "2025-11-25";
const ACCEPT = "application/json, text/event-stream";
const REQUEST_MS = 10_000;
const EXPECTED_TEXT = "This is a simple text response for testing.";

/** A 2025-11-25 session over plain fetch: the client costs the same everywhere. */
class Session {
  #url: string;
  #id = "";
  #next = 0;

  constructor(url: string) {
    this.#url = url;
  }

  async open(): Promise<void> {
    await this.request("initialize", {
      protocolVersion: PROTOCOL,
      capabilities: {},
      clientInfo: { name: "bench", version: "1" },
    });
    const response = await this.#post({
      jsonrpc: "2.0",
      method: "notifications/initialized",
    });
    await response.body?.cancel();
    if (response.status !== 202) {
      throw new Error(`initialized: HTTP ${response.status}`);
    }
  }

  /** Sends one request; its result, or an error naming what came back. */
  async request(
    method: string,
    params: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const id = ++this.#next;
    const response = await this.#post({ jsonrpc: "2.0", id, method, params });
    this.#id ||= response.headers.get("mcp-session-id") ?? "";
    const body = await response.text();
    const answer = answerOf(body, response.headers.get("content-type"));
    if (answer?.id !== id || !("result" in answer)) {
      throw new Error(
        `Unexpected answer to ${method} ${id}: ${response.status} ${body}`,
      );
    }
    return answer.result as Record<string, unknown>;
  }

  async close(): Promise<void> {
    if (this.#id === "") return;
    const response = await fetch(this.#url, {
      method: "DELETE",
      headers: { "mcp-session-id": this.#id },
      signal: AbortSignal.timeout(REQUEST_MS),
    }).catch(() => undefined);
    await response?.body?.cancel();
  }

  #post(message: Record<string, unknown>): Promise<Response> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: ACCEPT,
    };
    if (this.#id !== "") {
      headers["mcp-session-id"] = this.#id;
      headers["mcp-protocol-version"] = PROTOCOL;
    }
    return fetch(this.#url, {
      method: "POST",
      headers,
      body: JSON.stringify(message),
      signal: AbortSignal.timeout(REQUEST_MS),
    });
  }
}

/** `calls` checked calls over `sessions`, one in flight each, at most `seconds`. */
async function drive(
  sessions: readonly Session[],
  options: { calls: number; seconds: number },
): Promise<Run> {
  const run: Run = { calls: 0, errors: 0, ms: 0, latencies: [] };
  let issued = 0;
  const start = performance.now();
  const deadline = start + options.seconds * 1000;
  const client = async (session: Session) => {
    // Bounded by count and by time.
    while (issued < options.calls && performance.now() < deadline) {
      issued++;
      const sent = performance.now();
      try {
        const answer = await session.request("tools/call", {
          name: "test_simple_text",
          arguments: {},
        });
        const content = answer.content as { text?: string }[] | undefined;
        if (content?.[0]?.text !== EXPECTED_TEXT) {
          throw new Error(`Wrong answer: ${JSON.stringify(answer)}`);
        }
        run.latencies.push(performance.now() - sent);
        run.calls++;
      } catch (error) {
        if (run.errors++ === 0) console.error(String(error));
      }
    }
  };
  await Promise.all(sessions.map(client));
  run.ms = performance.now() - start;
  return run;
}

/** The configuration of the `--baseline` checkout's gate. */
const BASELINE_LABEL = "one gate baseline";

/** `dir` made absolute; a `TypeError` unless it holds the gate's main.ts. */
async function checkBaseline(dir: string): Promise<string> {
  try {
    const root = await Deno.realPath(dir);
    await Deno.stat(`${root}/toolkit/gate/main.ts`);
    return root;
  } catch {
    throw new TypeError(
      `Invalid arguments: --baseline expects a checkout of this repository, got ${
        JSON.stringify(dir)
      }, which has no toolkit/gate/main.ts`,
    );
  }
}

/** One of the configurations. */
interface Configuration {
  label: string;
  url: string;
  sessions: Session[];
  /** The pids a run is charged to: nginx, the gates, the upstream. */
  pids: { nginx: number[]; gates: number[]; upstream: number[] };
}

/** The process groups of a configuration, the client (this process) first. */
function groupsOf(c: Configuration): number[][] {
  return [[Deno.pid], c.pids.nginx, c.pids.gates, c.pids.upstream];
}

async function main(options: Options): Promise<void> {
  if (!installed("nginx")) {
    throw new Error("nginx is not installed: apt-get install -y nginx");
  }
  const started: Started[] = [];
  const keep = async <T extends Started>(starting: Promise<T>) => {
    const process = await starting;
    started.push(process);
    return process;
  };
  const dir = await Deno.makeTempDir({ prefix: "forge_bench_gate_http_" });
  const configurations: Configuration[] = [];
  try {
    const policy = `${dir}/gate.yaml`;
    await Deno.writeTextFile(policy, "unprobed: allow\n");
    const key = btoa(
      String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))),
    );
    const baseline = options.baseline === undefined
      ? undefined
      : await checkBaseline(options.baseline);
    const upstreams = [];
    for (let i = 0; i < (baseline === undefined ? 3 : 4); i++) {
      upstreams.push(await keep(startInstance({ key })));
    }
    const gate = (upstream: Started, root?: string) =>
      keep(startGate(["--policy", policy, "--url", upstream.url], { root }));
    const one = await gate(upstreams[1]);
    const pair = [await gate(upstreams[2]), await gate(upstreams[2])] as const;
    const nginx = await keep(startGateNginx([pair[0].url, pair[1].url]));
    const before = baseline === undefined
      ? undefined
      : await gate(upstreams[3], baseline);
    for (
      const [label, url, pids] of [
        ["upstream alone", upstreams[0].url, {
          nginx: [],
          gates: [],
          upstream: [upstreams[0].pid],
        }],
        ["one gate instance", one.url, {
          nginx: [],
          gates: [one.pid],
          upstream: [upstreams[1].pid],
        }],
        ["two behind nginx", nginx.url, {
          nginx: [nginx.pid],
          gates: pair.map((gate) => gate.pid),
          upstream: [upstreams[2].pid],
        }],
        ...(before === undefined ? [] : [
          [BASELINE_LABEL, before.url, {
            nginx: [],
            gates: [before.pid],
            upstream: [upstreams[3].pid],
          }] as const,
        ]),
      ] as const
    ) {
      const sessions = Array.from(
        { length: options.clients },
        () => new Session(url),
      );
      configurations.push({
        label,
        url,
        sessions,
        pids: {
          nginx: [...pids.nginx],
          gates: [...pids.gates],
          upstream: [...pids.upstream],
        },
      });
      // Opened a few at a time, as hosts would connect.
      for (let i = 0; i < sessions.length; i += 10) {
        await Promise.all(sessions.slice(i, i + 10).map((s) => s.open()));
      }
    }
    console.log(
      `${navigator.hardwareConcurrency} cores, load ${
        Deno.loadavg().map((n) => n.toFixed(2)).join(" ")
      }; ${options.rounds} rounds, ${options.clients} sessions, ${options.calls} calls a run (at most ${options.seconds} s)`,
    );
    // Warm-up: every process's JIT and connection pool once.
    for (const c of configurations) {
      await drive(c.sessions, { calls: 1000, seconds: options.seconds });
    }
    const runs = new Map<string, Run[]>(
      configurations.map((c) => [c.label, []]),
    );
    const cpu = new Map(
      configurations.map((c) => [c.label, { ticks: [0, 0, 0, 0], calls: 0 }]),
    );
    for (let round = 0; round < options.rounds; round++) {
      for (const c of rotate(configurations, round)) {
        const groups = groupsOf(c);
        const before = groups.map(ticks);
        const run = await drive(c.sessions, options);
        runs.get(c.label)!.push(run);
        const used = cpu.get(c.label)!;
        groups.forEach((pids, i) => used.ticks[i] += ticks(pids) - before[i]);
        used.calls += run.calls;
      }
      console.error(`round ${round + 1} of ${options.rounds} done`);
    }

    console.log(
      "\n| configuration     | calls/s (median) | rounds' range   | p50 ms | p99 ms | errors |",
    );
    console.log(
      "| ----------------- | ---------------- | --------------- | ------ | ------ | ------ |",
    );
    const rates: Record<string, number> = {};
    for (const c of configurations) {
      const s = summarize(runs.get(c.label)!);
      rates[c.label] = s.callsPerSecond;
      console.log(summaryRow(c.label, 17, s));
    }
    console.log(
      "\n| CPU ms per 1000 calls | client | nginx | gates | upstream | total |",
    );
    console.log(
      "| --------------------- | ------ | ----- | ----- | -------- | ----- |",
    );
    for (const c of configurations) {
      console.log(cpuRow(c.label, 21, cpu.get(c.label)!, [6, 5, 5, 8, 5]));
    }
    console.log(
      `\n${
        ratios({
          upstream: rates["upstream alone"],
          one: rates["one gate instance"],
          two: rates["two behind nginx"],
        })
      }; load now ${Deno.loadavg().map((n) => n.toFixed(2)).join(" ")}`,
    );
    if (rates[BASELINE_LABEL] !== undefined) {
      console.log(
        `baseline (${baseline}), one instance / upstream alone: ${
          (rates[BASELINE_LABEL] / rates["upstream alone"]).toFixed(2)
        }×; this checkout's one instance / the baseline's: ${
          (rates["one gate instance"] / rates[BASELINE_LABEL]).toFixed(2)
        }×`,
      );
    }
  } finally {
    for (const c of configurations) {
      await Promise.all(c.sessions.map((s) => s.close()));
    }
    // Stopped by pid, the last started first: the upstreams last.
    for (const process of started.reverse()) await process.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) {
  let options: Options;
  try {
    options = parseOptions(Deno.args);
  } catch (error) {
    console.error((error as Error).message);
    Deno.exit(2);
  }
  await main(options);
}
