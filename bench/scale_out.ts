/**
 * Scale-out: calls per second through nginx to one everything-server
 * instance against two, each with and without `--redis`, and what a Redis
 * round trip adds to a task call.
 *
 * Starts one redis-server (no persistence), six instances of
 * `examples/everything/main.ts --http` (one and two without Redis, one and
 * two with it) and one nginx per configuration from
 * `examples/everything/nginx.conf`, four in all. Then, in `--rounds` rounds, each starting with the next
 * configuration, sends `--calls` 2026-07-28 `tools/call` requests of
 * `test_simple_text` through each configuration's nginx, `--clients` in
 * flight (at most `--seconds` per run), every answer checked; and
 * `--tasks` task calls (`slow_compute` with 0 s: the create, then
 * `tasks/get` until `completed`) one at a time straight to the single
 * instance with Redis and to the one without. Prints the medians over the
 * rounds. Everything is on 127.0.0.1; every process it started is stopped
 * by its pid.
 *
 * ```sh
 * cd bench
 * deno task scale-out                       # 9 rounds, 32 clients, 4000 calls a run
 * deno task scale-out --rounds 3 --calls 1000 --tasks 20
 * ```
 *
 * @module
 */

import {
  installed,
  type Started,
  startInstance,
  startNginx,
  startRedis,
} from "./_cluster.ts";
import { median, percentile, rotate } from "./_stats.ts";

/** What the command line asked for. */
export interface Options {
  /** Rounds; each measures every configuration once. */
  rounds: number;
  /** Requests in flight at once. */
  clients: number;
  /** `tools/call` requests per configuration and round. */
  calls: number;
  /** The longest a configuration's run may take, in seconds. */
  seconds: number;
  /** Task calls per store and round. */
  tasks: number;
}

/** The defaults of {@linkcode parseOptions}. */
export const DEFAULTS: Readonly<Options> = {
  rounds: 9,
  clients: 32,
  calls: 4000,
  seconds: 10,
  tasks: 50,
};

/**
 * Parses `--rounds N`, `--clients N`, `--calls N`, `--seconds N` and
 * `--tasks N` (also as `--name=N`). A `TypeError` for an unknown option, a
 * `RangeError` for a value that is not a positive integer.
 *
 * @example
 * ```ts
 * import { parseOptions } from "./scale_out.ts";
 *
 * parseOptions(["--rounds", "3", "--clients=8"]).clients; // 8
 * ```
 */
export function parseOptions(args: readonly string[]): Options {
  const options: Options = { ...DEFAULTS };
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i].split(/=(.*)/s, 2);
    const name = flag.replace(/^--/, "");
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
    options[name as keyof Options] = value;
  }
  return options;
}

/** One run of one configuration. */
export interface Run {
  /** Answers that were checked and right. */
  calls: number;
  /** Requests that failed or were answered wrong. */
  errors: number;
  /** Wall time of the run, in milliseconds. */
  ms: number;
  /** Each right answer's latency, in milliseconds. */
  latencies: number[];
}

/** The figures of one configuration over the rounds. */
export interface Summary {
  /** The median of the rounds' calls per second. */
  callsPerSecond: number;
  /** The lowest and highest round. */
  range: [number, number];
  /** The median of the rounds' p50 latencies, in milliseconds. */
  p50: number;
  /** The median of the rounds' p99 latencies, in milliseconds. */
  p99: number;
  /** Errors over every round. */
  errors: number;
}

/**
 * Folds a configuration's runs into medians over the rounds: each round's
 * calls per second (right answers over wall time), p50 and p99 first, then
 * their medians, so one noisy round moves nothing. A `RangeError` without
 * runs or when a run has no right answer.
 *
 * @example
 * ```ts
 * import { summarize } from "./scale_out.ts";
 *
 * summarize([
 *   { calls: 100, errors: 0, ms: 1000, latencies: [1, 2, 3] },
 *   { calls: 300, errors: 1, ms: 1000, latencies: [2, 3, 4] },
 *   { calls: 200, errors: 0, ms: 1000, latencies: [3, 4, 5] },
 * ]).callsPerSecond; // 200
 * ```
 */
export function summarize(runs: readonly Run[]): Summary {
  if (runs.length === 0) {
    throw new RangeError("Cannot summarize: no runs");
  }
  const rates = runs.map((run) => {
    if (run.calls === 0 || run.latencies.length === 0) {
      throw new RangeError(
        `Cannot summarize: a run has no right answer (${run.errors} errors)`,
      );
    }
    return run.calls / (run.ms / 1000);
  });
  return {
    callsPerSecond: median(rates),
    range: [Math.min(...rates), Math.max(...rates)],
    p50: median(runs.map((run) => percentile(run.latencies, 50))),
    p99: median(runs.map((run) => percentile(run.latencies, 99))),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
  };
}

/**
 * The CPU time (user + system) in clock ticks that a `/proc/<pid>/stat`
 * line reports: its 14th and 15th fields, counted after the command name,
 * which may hold spaces and parentheses. A `TypeError` for another shape.
 *
 * @example
 * ```ts
 * import { cpuTicks } from "./scale_out.ts";
 *
 * cpuTicks("42 (a (b) c) S 1 42 42 0 -1 4194560 10 0 0 0 7 3 0 0 20 0"); // 10
 * ```
 */
export function cpuTicks(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const [user, system] = [Number(fields[11]), Number(fields[12])];
  if (!Number.isSafeInteger(user) || !Number.isSafeInteger(system)) {
    throw new TypeError(
      `Cannot read CPU time: not a /proc/<pid>/stat line: ${stat.slice(0, 80)}`,
    );
  }
  return user + system;
}

/** Milliseconds per clock tick of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
export const TICK_MS = 10;

/**
 * The CPU ticks each process has used so far; 0 where /proc has none.
 *
 * @example
 * ```ts
 * import { ticks } from "./scale_out.ts";
 *
 * ticks([Deno.pid]) >= 0; // true
 * ```
 */
export function ticks(pids: readonly number[]): number {
  let sum = 0;
  for (const pid of pids) {
    try {
      sum += cpuTicks(Deno.readTextFileSync(`/proc/${pid}/stat`));
    } catch {
      // Not Linux: the CPU columns read 0.
    }
  }
  return sum;
}

const PROTOCOL = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": PROTOCOL,
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
  // Task calls need the tasks extension declared.
  "io.modelcontextprotocol/clientCapabilities": {
    extensions: { "io.modelcontextprotocol/tasks": {} },
  },
};
const REQUEST_MS = 10_000;

let nextId = 0;

/** Sends one 2026-07-28 request; the JSON-RPC answer, from JSON or SSE. */
async function rpc(
  url: string,
  method: string,
  params: Record<string, unknown>,
): Promise<{ id: number; answer: Record<string, unknown> }> {
  const id = ++nextId;
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": PROTOCOL,
      "mcp-method": method,
      "mcp-name": String(params.name ?? params.taskId),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method,
      params: { ...params, _meta: META },
    }),
    signal: AbortSignal.timeout(REQUEST_MS),
  });
  const body = await response.text();
  const json = response.headers.get("content-type")?.includes("event-stream")
    ? body.split("\n").findLast((line) => line.startsWith("data: {"))
      ?.slice(6)
    : body;
  let answer: Record<string, unknown> | undefined;
  try {
    answer = JSON.parse(json ?? "");
  } catch {
    // Reported below with the body.
  }
  if (response.status !== 200 || answer?.id !== id || !("result" in answer)) {
    throw new Error(
      `Unexpected answer to ${method} ${id}: ${response.status} ${body}`,
    );
  }
  return { id, answer: answer.result as Record<string, unknown> };
}

const EXPECTED_TEXT = "This is a simple text response for testing.";

/** `calls` checked calls to `url`, `clients` in flight, at most `seconds`. */
async function drive(
  url: string,
  options: { calls: number; clients: number; seconds: number },
): Promise<Run> {
  const run: Run = { calls: 0, errors: 0, ms: 0, latencies: [] };
  let issued = 0;
  const start = performance.now();
  const deadline = start + options.seconds * 1000;
  const client = async () => {
    // Bounded by count and by time.
    while (issued < options.calls && performance.now() < deadline) {
      issued++;
      const sent = performance.now();
      try {
        const { answer } = await rpc(url, "tools/call", {
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
  await Promise.all(Array.from({ length: options.clients }, client));
  run.ms = performance.now() - start;
  return run;
}

/** One task call: its create, and the create through `completed`. */
interface TaskSample {
  createMs: number;
  totalMs: number;
  polls: number;
}

const MAX_POLLS = 500;

/** A `slow_compute` task of 0 s, created and polled until it completes. */
async function taskCall(url: string): Promise<TaskSample> {
  const start = performance.now();
  const { answer: created } = await rpc(url, "tools/call", {
    name: "slow_compute",
    arguments: { seconds: 0 },
  });
  const createMs = performance.now() - start;
  if (created.resultType !== "task") {
    throw new Error(`Not a task: ${JSON.stringify(created)}`);
  }
  const taskId = String(created.taskId);
  // Polled back to back, at most MAX_POLLS times (each bounded by REQUEST_MS).
  for (let polls = 1; polls <= MAX_POLLS; polls++) {
    const { answer: task } = await rpc(url, "tasks/get", { taskId });
    if (task.status === "completed") {
      return { createMs, totalMs: performance.now() - start, polls };
    }
    if (task.status !== "working") {
      throw new Error(`Task ${taskId}: ${JSON.stringify(task)}`);
    }
  }
  throw new Error(`Task ${taskId} not completed after ${MAX_POLLS} polls`);
}

async function taskRun(
  url: string,
  options: { tasks: number; seconds: number },
): Promise<TaskSample[]> {
  const samples: TaskSample[] = [];
  const deadline = performance.now() + options.seconds * 1000;
  while (samples.length < options.tasks && performance.now() < deadline) {
    samples.push(await taskCall(url));
  }
  return samples;
}

/** One of the four configurations. */
interface Configuration {
  label: string;
  instances: Started[];
  nginx: Started;
}

/** The pids whose CPU a run is charged: client, nginx, instances, Redis. */
function processGroups(c: Configuration, redis: Started): number[][] {
  return [[Deno.pid], [c.nginx.pid], c.instances.map((i) => i.pid), [
    redis.pid,
  ]];
}

/**
 * `n` with thousands separators and `digits` decimals, for the tables.
 *
 * @example
 * ```ts
 * import { format } from "./scale_out.ts";
 *
 * format(1234.5, 1); // "1,234.5"
 * ```
 */
export function format(n: number, digits = 0): string {
  return n.toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

/**
 * One configuration's row of the calls-per-second table, its label padded
 * to `width`.
 *
 * @example
 * ```ts
 * import { summaryRow } from "./scale_out.ts";
 *
 * summaryRow("one", 5, { callsPerSecond: 900, range: [800, 1000], p50: 1, p99: 2, errors: 0 })
 *   .startsWith("| one   |"); // true
 * ```
 */
export function summaryRow(label: string, width: number, s: Summary): string {
  return `| ${label.padEnd(width)} | ${
    format(s.callsPerSecond).padStart(16)
  } | ${`${format(s.range[0])}–${format(s.range[1])}`.padStart(15)} | ${
    format(s.p50, 1).padStart(6)
  } | ${format(s.p99, 1).padStart(6)} | ${String(s.errors).padStart(6)} |`;
}

/**
 * One configuration's row of the CPU table: each process group's ticks and
 * their total, as milliseconds per 1000 calls, padded to `widths`.
 *
 * @example
 * ```ts
 * import { cpuRow } from "./scale_out.ts";
 *
 * cpuRow("one", 5, { ticks: [1, 2], calls: 1000 }, [6, 5, 5]); // "| one   |     10 |    20 |    30 |"
 * ```
 */
export function cpuRow(
  label: string,
  width: number,
  used: { ticks: readonly number[]; calls: number },
  widths: readonly number[],
): string {
  const perThousand = [...used.ticks, used.ticks.reduce((a, b) => a + b)]
    .map((t) => format((t * TICK_MS * 1000) / used.calls));
  return `| ${label.padEnd(width)} | ${
    perThousand.map((v, i) => v.padStart(widths[i])).join(" | ")
  } |`;
}

async function main(options: Options): Promise<void> {
  for (const command of ["redis-server", "nginx"]) {
    if (!installed(command)) {
      throw new Error(
        `${command} is not installed: apt-get install -y redis-server nginx`,
      );
    }
  }
  const started: Started[] = [];
  const keep = async <T extends Started>(starting: Promise<T>) => {
    const process = await starting;
    started.push(process);
    return process;
  };
  try {
    const key = btoa(
      String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))),
    );
    const redis = await keep(startRedis());
    const configurations: Configuration[] = [];
    for (
      const [count, withRedis] of [[1, false], [2, false], [1, true], [
        2,
        true,
      ]] as const
    ) {
      const instances: Started[] = [];
      for (let i = 0; i < count; i++) {
        instances.push(
          await keep(
            startInstance({ key, redis: withRedis ? redis.url : undefined }),
          ),
        );
      }
      configurations.push({
        label: `${count} instance${count === 1 ? "" : "s"}, ${
          withRedis ? "Redis" : "in memory"
        }`,
        instances,
        nginx: await keep(startNginx(instances.map((i) => i.url))),
      });
    }
    const stores = [
      { label: "in memory", url: configurations[0].instances[0].url },
      { label: "Redis", url: configurations[2].instances[0].url },
    ];
    console.log(
      `${navigator.hardwareConcurrency} cores, load ${
        Deno.loadavg().map((n) => n.toFixed(2)).join(" ")
      }; ${options.rounds} rounds, ${options.clients} clients, ${options.calls} calls a run (at most ${options.seconds} s), ${options.tasks} tasks a store`,
    );
    // Warm-up: every instance's JIT and every connection pool once.
    for (const c of configurations) {
      await drive(c.nginx.url, {
        calls: 500 * c.instances.length,
        clients: options.clients,
        seconds: options.seconds,
      });
    }
    for (const store of stores) {
      await taskRun(store.url, { tasks: 20, seconds: options.seconds });
    }

    const runs = new Map<string, Run[]>(
      configurations.map((c) => [c.label, []]),
    );
    const cpu = new Map(
      configurations.map((c) => [c.label, { ticks: [0, 0, 0, 0], calls: 0 }]),
    );
    const tasks = new Map<string, TaskSample[][]>(
      stores.map((s) => [s.label, []]),
    );
    for (let round = 0; round < options.rounds; round++) {
      for (const c of rotate(configurations, round)) {
        const groups = processGroups(c, redis);
        const before = groups.map(ticks);
        const run = await drive(c.nginx.url, options);
        runs.get(c.label)!.push(run);
        const used = cpu.get(c.label)!;
        groups.forEach((pids, i) => used.ticks[i] += ticks(pids) - before[i]);
        used.calls += run.calls;
      }
      for (const store of rotate(stores, round)) {
        tasks.get(store.label)!.push(await taskRun(store.url, options));
      }
      console.error(`round ${round + 1} of ${options.rounds} done`);
    }

    console.log(
      "\n| through nginx          | calls/s (median) | rounds' range   | p50 ms | p99 ms | errors |",
    );
    console.log(
      "| ---------------------- | ---------------- | --------------- | ------ | ------ | ------ |",
    );
    const summaries = new Map<string, Summary>();
    for (const c of configurations) {
      const s = summarize(runs.get(c.label)!);
      summaries.set(c.label, s);
      console.log(summaryRow(c.label, 22, s));
    }
    console.log(
      "\n| CPU ms per 1000 calls   | client | nginx | instances | Redis | total |",
    );
    console.log(
      "| ----------------------- | ------ | ----- | --------- | ----- | ----- |",
    );
    for (const c of configurations) {
      console.log(cpuRow(c.label, 23, cpu.get(c.label)!, [6, 5, 9, 5, 5]));
    }
    const rate = (label: string) => summaries.get(label)!.callsPerSecond;
    console.log(
      `\ntwo instances / one: ${
        (rate("2 instances, in memory") / rate("1 instance, in memory"))
          .toFixed(2)
      }× in memory, ${
        (rate("2 instances, Redis") / rate("1 instance, Redis")).toFixed(2)
      }× with Redis; Redis / in memory: ${
        (rate("1 instance, Redis") / rate("1 instance, in memory")).toFixed(2)
      }× (one), ${
        (rate("2 instances, Redis") / rate("2 instances, in memory")).toFixed(2)
      }× (two)`,
    );

    console.log(
      "\n| task call, one instance | create p50 ms | create → completed p50 ms | polls (median) |",
    );
    console.log(
      "| ----------------------- | ------------- | ------------------------- | -------------- |",
    );
    const totals = new Map<string, number>();
    for (const store of stores) {
      const rounds = tasks.get(store.label)!;
      const createP50 = median(
        rounds.map((r) => percentile(r.map((s) => s.createMs), 50)),
      );
      const totalP50 = median(
        rounds.map((r) => percentile(r.map((s) => s.totalMs), 50)),
      );
      totals.set(store.label, totalP50);
      const polls = median(rounds.flat().map((s) => s.polls));
      console.log(
        `| ${store.label.padEnd(23)} | ${format(createP50, 2).padStart(13)} | ${
          format(totalP50, 2).padStart(25)
        } | ${String(polls).padStart(14)} |`,
      );
    }
    console.log(
      `\nRedis adds ${
        format(totals.get("Redis")! - totals.get("in memory")!, 2)
      } ms to a task call's p50 (create → completed); load now ${
        Deno.loadavg().map((n) => n.toFixed(2)).join(" ")
      }`,
    );
  } finally {
    // Stopped by pid, the last started first: Redis last.
    for (const process of started.reverse()) await process.stop();
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
