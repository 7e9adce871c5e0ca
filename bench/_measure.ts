/**
 * The workloads of one measuring session against one server: cold start,
 * sequential calls, pipelined calls, a 1 MiB argument, the probe round trip,
 * peak RSS and stdin EOF with calls in flight. Every answer is checked, so a
 * server that answers wrongly fails instead of looking fast.
 *
 * @module
 */

import {
  cpuTimeMs,
  type ExitReport,
  peakRss,
  type ServerProcess,
  spawnServer,
} from "./_driver.ts";
import type { ServerSpec } from "./_servers.ts";

/** How much work one session does. */
export interface SessionPlan {
  /** Unmeasured calls before the sequential run, so the JIT has warmed up. */
  warmup: number;
  /** Sequential `tools/call` round trips measured one by one. */
  sequential: number;
  /** Calls in the pipelined run. */
  pipelined: number;
  /** Calls kept in flight in the pipelined run. */
  inFlight: number;
  /** Round trips with the 1 MiB argument. */
  big: number;
  /** Size of the big argument, in characters (ASCII, so also bytes). */
  bigBytes: number;
  /** Calls of each kind in the probe comparison (probe-capable servers only). */
  probe: number;
  /** Calls in flight when stdin is closed. */
  eofInFlight: number;
}

/** What one session measured. */
export interface SessionResult {
  /** Spawn to `initialize` answered, in milliseconds. */
  coldMs: number;
  /** Server CPU time used up to the `initialize` answer, in milliseconds. */
  startCpuMs: number | undefined;
  /** Server CPU time per call during the pipelined run, in microseconds. */
  cpuPerCallUs: number | undefined;
  /** Each sequential round trip, in milliseconds. */
  sequentialMs: number[];
  /** Pipelined calls per second. */
  callsPerSecond: number;
  /** Each 1 MiB round trip, in milliseconds. */
  bigMs: number[];
  /** Server CPU time per 1 MiB call, in milliseconds. */
  bigCpuMs: number | undefined;
  /** Peak resident set of the server, in bytes (Linux only). */
  peakRssBytes: number | undefined;
  /** Closing stdin with calls in flight. */
  eof: { exitMs: number; answered: number; sent: number; exited: boolean };
  /** Interleaved plain calls, probes and real pattern-tool calls, in milliseconds. */
  probe?: { plainMs: number[]; probeMs: number[]; patternMs: number[] };
}

/** The `initialize` request every session sends first. */
export const INITIALIZE_PARAMS: Record<string, unknown> = {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "forge-bench", version: "1.0.0" },
};

const ECHO = "hello, bench";

/**
 * Spawns a server and waits for its `initialize` answer; the elapsed time is
 * the cold start.
 */
export async function startServer(
  spec: ServerSpec,
): Promise<
  { server: ServerProcess; coldMs: number; startCpuMs: number | undefined }
> {
  const start = performance.now();
  const server = spawnServer(spec.command);
  try {
    const answer = await server.request("initialize", INITIALIZE_PARAMS);
    const coldMs = performance.now() - start;
    const startCpuMs = await cpuTimeMs(server.pid);
    if (answer.error !== undefined || answer.result?.serverInfo === undefined) {
      throw new Error(
        `initialize failed: ${JSON.stringify(answer.error ?? answer.result)}`,
      );
    }
    server.notify("notifications/initialized");
    return { server, coldMs, startCpuMs };
  } catch (cause) {
    await server.kill();
    throw cause;
  }
}

/**
 * One cold start: spawn, `initialize`, close stdin, wait for the exit.
 * Resolves with the wall time to the answer and the server's CPU time by
 * then, in milliseconds.
 */
export async function coldStart(
  spec: ServerSpec,
): Promise<{ coldMs: number; startCpuMs: number | undefined }> {
  const { server, coldMs, startCpuMs } = await startServer(spec);
  const exit = await server.close();
  if (!exit.exited) {
    throw new Error("the server did not exit within 5 s of stdin EOF");
  }
  return { coldMs, startCpuMs };
}

/**
 * One `echo` call; rejects unless the server answered with the same text.
 *
 * @example
 * ```ts ignore
 * await echo(server, "hello");
 * ```
 */
export async function echo(
  server: ServerProcess,
  text: string,
  name = "echo",
  extra: Record<string, unknown> = {},
): Promise<void> {
  const answer = await server.request("tools/call", {
    name,
    arguments: { text },
    ...extra,
  });
  const content = answer.result?.content as { text?: string }[] | undefined;
  if (answer.error !== undefined || content?.[0]?.text !== text) {
    throw new Error(
      `tools/call ${name} answered wrongly: ${
        JSON.stringify(answer.error ?? answer.result).slice(0, 200)
      }`,
    );
  }
}

async function sequential(
  server: ServerProcess,
  calls: number,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    await echo(server, ECHO);
    times.push(performance.now() - start);
  }
  return times;
}

/**
 * The hard case for shutdown: `count` calls and stdin EOF arrive together.
 * Resolves with the time from EOF to exit and how many calls were answered.
 *
 * @example
 * ```ts ignore
 * const { exitMs, answered } = await closeWithCallsInFlight(server, 64);
 * ```
 */
export async function closeWithCallsInFlight(
  server: ServerProcess,
  count: number,
): Promise<ExitReport & { answered: number }> {
  const outcomes = Promise.allSettled(
    Array.from({ length: count }, (_, i) => echo(server, `in flight ${i}`)),
  );
  const exit = await server.close();
  const settled = await outcomes;
  const answered = settled.filter((s) => s.status === "fulfilled").length;
  return { ...exit, answered };
}

/** Keeps `inFlight` calls outstanding until `calls` have been answered. */
function pipelined(
  server: ServerProcess,
  calls: number,
  inFlight: number,
): Promise<number> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let done = 0;
    let failed = false;
    const start = performance.now();
    const issue = () => {
      sent++;
      echo(server, ECHO).then(() => {
        done++;
        if (sent < calls) issue();
        else if (done === calls) {
          resolve(calls / ((performance.now() - start) / 1000));
        }
      }, (error) => {
        if (!failed) reject(error);
        failed = true;
      });
    };
    for (let i = 0; i < Math.min(inFlight, calls); i++) issue();
  });
}

async function probeComparison(
  server: ServerProcess,
  calls: number,
): Promise<NonNullable<SessionResult["probe"]>> {
  const plainMs: number[] = [];
  const probeMs: number[] = [];
  const patternMs: number[] = [];
  const args = { path: "notes/today.txt", text: ECHO };
  for (let i = 0; i < calls; i++) {
    let start = performance.now();
    await echo(server, ECHO);
    plainMs.push(performance.now() - start);

    start = performance.now();
    const probe = await server.request("tools/call", {
      name: "note",
      arguments: args,
      _meta: { "forge.permission_patterns": true },
    });
    probeMs.push(performance.now() - start);
    const meta = probe.result?._meta as Record<string, unknown> | undefined;
    const patterns = meta?.["forge.patterns"] as string[] | undefined;
    if (patterns?.[0] !== "write:notes/today.txt") {
      throw new Error(
        `the probe answered wrongly: ${JSON.stringify(probe).slice(0, 200)}`,
      );
    }

    start = performance.now();
    const real = await server.request("tools/call", {
      name: "note",
      arguments: args,
    });
    patternMs.push(performance.now() - start);
    const content = real.result?.content as { text?: string }[] | undefined;
    if (content?.[0]?.text !== `write:notes/today.txt ${ECHO}`) {
      throw new Error(
        `the pattern tool answered wrongly: ${
          JSON.stringify(real).slice(0, 200)
        }`,
      );
    }
  }
  return { plainMs, probeMs, patternMs };
}

/**
 * Runs every workload against a fresh server, in a fixed order, and kills
 * the server if anything fails.
 */
export async function runSession(
  spec: ServerSpec,
  plan: SessionPlan,
): Promise<SessionResult> {
  const { server, coldMs, startCpuMs } = await startServer(spec);
  try {
    const list = await server.request("tools/list", {});
    const tools = list.result?.tools as { name: string }[] | undefined;
    if (!tools?.some((tool) => tool.name === "echo")) {
      throw new Error(`tools/list has no echo tool: ${JSON.stringify(list)}`);
    }
    await sequential(server, plan.warmup);
    const sequentialMs = await sequential(server, plan.sequential);
    const cpuBefore = await cpuTimeMs(server.pid);
    const callsPerSecond = await pipelined(
      server,
      plan.pipelined,
      plan.inFlight,
    );
    const cpuAfter = await cpuTimeMs(server.pid);
    const cpuPerCallUs = cpuBefore === undefined || cpuAfter === undefined
      ? undefined
      : (cpuAfter - cpuBefore) * 1000 / plan.pipelined;
    const big = "x".repeat(plan.bigBytes);
    const bigMs: number[] = [];
    const bigCpuBefore = await cpuTimeMs(server.pid);
    for (let i = 0; i < plan.big; i++) {
      const start = performance.now();
      await echo(server, big);
      bigMs.push(performance.now() - start);
    }
    const bigCpuAfter = await cpuTimeMs(server.pid);
    const bigCpuMs = bigCpuBefore === undefined || bigCpuAfter === undefined ||
        plan.big === 0
      ? undefined
      : (bigCpuAfter - bigCpuBefore) / plan.big;
    // Read before the probe comparison, which only servers with a pattern
    // tool run: the peak compares the same workload across servers.
    const peakRssBytes = await peakRss(server.pid);
    const probe = spec.probe
      ? await probeComparison(server, plan.probe)
      : undefined;

    const exit = await closeWithCallsInFlight(server, plan.eofInFlight);
    return {
      coldMs,
      startCpuMs,
      cpuPerCallUs,
      sequentialMs,
      callsPerSecond,
      bigMs,
      bigCpuMs,
      peakRssBytes,
      eof: {
        exitMs: exit.exitMs,
        answered: exit.answered,
        sent: plan.eofInFlight,
        exited: exit.exited,
      },
      probe,
    };
  } catch (cause) {
    await server.kill();
    throw cause;
  }
}
