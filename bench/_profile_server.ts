/**
 * Profiling a Deno server's call path: run it under `--cpu-prof`, drive it
 * with the same raw client as the table (warm-up, pause, then sequential
 * and pipelined echo calls), and summarise what was sampled after the pause.
 *
 * @module
 */

import { cpuTimeMs, spawnServer } from "./_driver.ts";
import { INITIALIZE_PARAMS } from "./_measure.ts";
import { type ProfileSummary, summarizeProfile } from "./_profile.ts";
import { REPO_ROOT, type ServerSpec } from "./_servers.ts";

/** How much work a profiled run does. */
export interface ProfilePlan {
  /** Calls before the pause, kept out of the figures. */
  warmup: number;
  /** Sequential calls after the pause. */
  sequential: number;
  /** Pipelined calls (64 in flight) after the pause. */
  pipelined: number;
}

/** A profiled run's summary and its cost per call. */
export interface ServerProfile extends ProfileSummary {
  /** The server's id. */
  id: string;
  /** Calls made after the pause. */
  calls: number;
  /** Sampled busy time per call after the pause, in microseconds. */
  busyPerCallUs: number;
  /**
   * Server CPU time per call after the pause (from /proc), in microseconds,
   * including the profiler's own sampling thread: compare runs with it, not
   * with the table's unprofiled figure.
   */
  cpuPerCallUs: number | undefined;
}

const PAUSE_MS = 400;
const IN_FLIGHT = 64;

/**
 * Profiles one Deno server under the plan's load.
 *
 * @example
 * ```ts ignore
 * const profile = await profileServer(spec, { warmup: 2000, sequential: 3000, pipelined: 30000 });
 * ```
 */
export async function profileServer(
  spec: ServerSpec,
  plan: ProfilePlan,
): Promise<ServerProfile> {
  if (spec.runtime !== "deno" || spec.command[1] !== "run") {
    throw new TypeError(
      `Cannot profile ${spec.id}: only servers started with \`deno run\` can be profiled here`,
    );
  }
  const dir = await Deno.makeTempDir({ prefix: "forge-bench-prof-" });
  try {
    const command = [
      spec.command[0],
      "run",
      "--cpu-prof",
      `--cpu-prof-dir=${dir}`,
      "--cpu-prof-name=server.cpuprofile",
      "--cpu-prof-interval=100",
      ...spec.command.slice(2),
    ];
    const server = spawnServer(command);
    let cpuBefore: number | undefined;
    let cpuAfter: number | undefined;
    try {
      const init = await server.request("initialize", INITIALIZE_PARAMS);
      if (init.error !== undefined) {
        throw new Error(`initialize failed: ${JSON.stringify(init.error)}`);
      }
      server.notify("notifications/initialized");
      const call = () =>
        server.request("tools/call", {
          name: "echo",
          arguments: { text: "hello, bench" },
        }).then((answer) => {
          if (answer.error !== undefined) {
            throw new Error(`tools/call failed: ${answer.error.message}`);
          }
        });
      for (let i = 0; i < plan.warmup; i++) await call();
      // The pause marks where the measured part of the profile begins.
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      cpuBefore = await cpuTimeMs(server.pid);
      for (let i = 0; i < plan.sequential; i++) await call();
      let sent = 0;
      await new Promise<void>((resolve, reject) => {
        let done = 0;
        const issue = () => {
          sent++;
          call().then(() => {
            done++;
            if (sent < plan.pipelined) issue();
            else if (done === plan.pipelined) resolve();
          }, reject);
        };
        for (let i = 0; i < Math.min(IN_FLIGHT, plan.pipelined); i++) issue();
      });
      cpuAfter = await cpuTimeMs(server.pid);
      const exit = await server.close(10_000);
      if (!exit.exited) {
        throw new Error("the profiled server did not exit after stdin EOF");
      }
    } catch (cause) {
      await server.kill();
      throw cause;
    }
    const profile = JSON.parse(
      await Deno.readTextFile(`${dir}/server.cpuprofile`),
    );
    const summary = summarizeProfile(profile, REPO_ROOT, {
      top: 15,
      afterIdleMs: PAUSE_MS * 0.75,
    });
    const calls = plan.sequential + plan.pipelined;
    return {
      id: spec.id,
      calls,
      busyPerCallUs: summary.busyMs * 1000 / calls,
      cpuPerCallUs: cpuBefore === undefined || cpuAfter === undefined
        ? undefined
        : (cpuAfter - cpuBefore) * 1000 / calls,
      ...summary,
    };
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/**
 * A profile as markdown: busy CPU per call, the categories, and (when
 * `withTop`) the functions with the most self time.
 *
 * @example
 * ```ts ignore
 * console.log(renderProfile(profile, true));
 * ```
 */
export function renderProfile(
  profile: ServerProfile,
  withTop: boolean,
): string {
  const lines = [
    `**${profile.id}**: ${
      profile.busyPerCallUs.toFixed(1)
    } µs sampled busy per call (${
      profile.busyMs.toFixed(0)
    } ms over ${profile.calls} calls)`,
    "",
    "| part of the stack | self ms | share |",
    "|---|--:|--:|",
    ...profile.categories.map((c) =>
      `| ${c.category} | ${c.selfMs.toFixed(1)} | ${
        (c.share * 100).toFixed(1)
      } % |`
    ),
  ];
  if (withTop) {
    lines.push(
      "",
      "| function | where | part | self ms | share |",
      "|---|---|---|--:|--:|",
      ...profile.top.map((e) =>
        `| ${e.name.replaceAll("|", "\\|")} | ${
          e.location || "—"
        } | ${e.category} | ${e.selfMs.toFixed(1)} | ${
          (e.share * 100).toFixed(1)
        } % |`
      ),
    );
  }
  return lines.join("\n");
}
