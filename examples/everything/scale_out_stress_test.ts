// Scale-out proof: two everything-server processes behind a round-robin
// proxy pass the 2026-07-28 conformance scenarios, each request dealt to the
// other instance than the one before. A stress test because it runs the
// whole suite (about 15 s).

import assert from "node:assert/strict";
import { roundRobin } from "./_round_robin.ts";
import { REQUEST_STATE_KEY_VARIABLE, TASK_DIR_VARIABLE } from "./main.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const MAIN = new URL("./main.ts", import.meta.url).pathname;
const SUITE = "npm:@modelcontextprotocol/conformance@0.2.0-alpha.12";

// What no load balancer can make whole: the suite mutates the tool and the
// prompt list with a tool call dealt to one instance while its listen stream
// is open on the other, and a list change is heard only by the streams of
// the instance whose registry changed (a SHOULD, so a warning).
const PER_INSTANCE_WARNINGS = new Set([
  "sep-2575-server-sends-tools-list-changed-on-subscription",
  "sep-2575-server-sends-prompts-list-changed-on-subscription",
]);

interface Upstream {
  child: Deno.ChildProcess;
  origin: string;
  log: () => string;
}

async function startServer(env: Record<string, string>): Promise<Upstream> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "--http", "127.0.0.1:0"],
    env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let log = "";
  const decoder = new TextDecoder();
  const { promise: origin, resolve: found } = Promise.withResolvers<string>();
  // Drained to the end, so that the child never blocks on a full pipe.
  const drained = (async () => {
    for await (const chunk of child.stderr) {
      log += decoder.decode(chunk, { stream: true });
      const match = /http:\/\/127\.0\.0\.1:\d+(?=\/mcp)/.exec(log);
      if (match !== null) found(match[0]);
    }
  })();
  const exited = child.status.then((status) =>
    drained.then(() => {
      throw new Error(
        `The everything server exited (${status.code}) before listening:\n${log}`,
      );
    })
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`The everything server did not listen:\n${log}`)),
      30_000,
    );
  });
  try {
    return {
      child,
      origin: await Promise.race([origin, exited, late]),
      log: () => log,
    };
  } finally {
    clearTimeout(timer);
    exited.catch(() => {});
  }
}

async function stop(upstream: Upstream): Promise<void> {
  try {
    upstream.child.kill("SIGTERM");
  } catch {
    // Already gone.
  }
  await upstream.child.status;
}

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** Each scenario's checks, from the suite's `-o` directory. */
async function readChecks(dir: string): Promise<Map<string, Check[]>> {
  const scenarios = new Map<string, Check[]>();
  for await (const entry of Deno.readDir(dir)) {
    // server-<scenario>-<ISO time with dashes>
    const match = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(entry.name);
    if (!entry.isDirectory || match === null) continue;
    const checks = JSON.parse(
      await Deno.readTextFile(`${dir}/${entry.name}/checks.json`),
    ) as Check[];
    scenarios.set(match[1], checks);
  }
  return scenarios;
}

Deno.test("Two instances behind a round-robin proxy pass the 2026-07-28 conformance scenarios", async () => {
  const key = btoa(
    String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))),
  );
  const taskDir = await Deno.makeTempDir({ prefix: "scale_out_tasks_" });
  const outDir = await Deno.makeTempDir({ prefix: "scale_out_results_" });
  const env = {
    [REQUEST_STATE_KEY_VARIABLE]: key,
    [TASK_DIR_VARIABLE]: taskDir,
    NO_COLOR: "1",
  };
  const upstreams: Upstream[] = [];
  let proxy: ReturnType<typeof roundRobin> | undefined;
  try {
    upstreams.push(...await Promise.all([startServer(env), startServer(env)]));
    assert.notEqual(upstreams[0].origin, upstreams[1].origin);
    proxy = roundRobin(upstreams.map((upstream) => upstream.origin));

    const run = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--config",
        ".ci/tools.json",
        SUITE,
        "server",
        "--url",
        `${proxy.url}/mcp`,
        "--requirements",
        "2026-07-28",
        "-o",
        outDir,
      ],
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const output = new TextDecoder().decode(run.stdout) +
      new TextDecoder().decode(run.stderr);
    const logs = () =>
      `${output}\n--- servers ---\n${upstreams.map((u) => u.log()).join("\n")}`;

    const total = /^Total: (\d+) passed, (\d+) failed/m.exec(output);
    assert.ok(total !== null, `The suite printed no total:\n${logs()}`);
    assert.equal(Number(total[2]), 0, `Checks failed:\n${logs()}`);

    const scenarios = await readChecks(outDir);
    // 37 core scenarios, the 10 of the tasks extension, 3 pending ones.
    assert.ok(
      scenarios.size >= 50,
      `Expected at least 50 scenarios, got ${scenarios.size}:\n${logs()}`,
    );
    for (const name of ["server-stateless", "tasks-lifecycle", "caching"]) {
      assert.ok(scenarios.has(name), `Scenario ${name} did not run`);
    }
    const unexplained: string[] = [];
    let checks = 0;
    for (const [scenario, results] of scenarios) {
      for (const check of results) {
        checks++;
        // SKIPPED: the suite itself does not run that check yet.
        if (["SUCCESS", "INFO", "SKIPPED"].includes(check.status)) continue;
        if (
          check.status === "WARNING" && PER_INSTANCE_WARNINGS.has(check.id)
        ) continue;
        unexplained.push(
          `${scenario}: ${check.id}: ${check.status}: ${
            check.errorMessage ?? ""
          }`,
        );
      }
    }
    assert.deepEqual(unexplained, [], logs());
    assert.ok(checks >= 190, `Expected at least 190 checks, got ${checks}`);
    // The suite's own verdict may list only scenarios whose one blemish is
    // a warning explained above.
    const unexpected = [...output.matchAll(/^ {2}✗ (\S+)$/gm)].map((m) => m[1]);
    for (const name of unexpected) {
      const results = scenarios.get(name) ?? [];
      assert.ok(
        results.some((check) => PER_INSTANCE_WARNINGS.has(check.id)),
        `The suite failed ${name}:\n${logs()}`,
      );
    }

    // Both instances served, in turn.
    const [first, second] = proxy.counts;
    assert.ok(
      first > 0 && second > 0,
      `Requests per upstream: ${first}, ${second}`,
    );
    assert.ok(
      Math.abs(first - second) <= 1,
      `Not alternated: ${first}, ${second}`,
    );
  } finally {
    await proxy?.close();
    await Promise.all(upstreams.map(stop));
    await Deno.remove(taskDir, { recursive: true });
    await Deno.remove(outDir, { recursive: true });
  }
});
