// Scale-out proof: two everything-server processes sharing a Redis behind
// nginx (nginx.conf, round robin) pass the 2026-07-28 conformance scenarios
// with no warning: tasks are answered by whichever instance nginx picks,
// and a list change made through one reaches the listen stream held by the
// other. A stress test because it runs the whole suite (about 15 s).

import assert from "node:assert/strict";
import {
  haveRedis,
  installed,
  startRedis,
} from "../../toolkit/redis/_test_redis.ts";
import {
  type Instance,
  sharedKey,
  startInstance,
  startNginx,
} from "./_scale_out_test_helpers.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const SUITE = "npm:@modelcontextprotocol/conformance@0.2.0-alpha.12";

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

Deno.test({
  name:
    "Two instances with Redis behind nginx pass the 2026-07-28 conformance scenarios, warnings included",
  ignore: !haveRedis() || !installed("nginx"),
  fn: async () => {
    const outDir = await Deno.makeTempDir({ prefix: "scale_out_results_" });
    await using redis = await startRedis();
    const key = sharedKey();
    const upstreams: Instance[] = [];
    try {
      upstreams.push(
        ...await Promise.all([
          startInstance({ redis: redis.url, key }),
          startInstance({ redis: redis.url, key }),
        ]),
      );
      await using nginx = await startNginx(upstreams.map((u) => u.origin));
      const run = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          "--config",
          ".ci/tools.json",
          SUITE,
          "server",
          "--url",
          nginx.url,
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
        `${output}\n--- servers ---\n${
          upstreams.map((u) => u.log()).join("\n")
        }\n--- nginx ---\n${nginx.log()}`;

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
          unexplained.push(
            `${scenario}: ${check.id}: ${check.status}: ${
              check.errorMessage ?? ""
            }`,
          );
        }
      }
      assert.deepEqual(unexplained, [], logs());
      assert.ok(checks >= 190, `Expected at least 190 checks, got ${checks}`);
      assert.doesNotMatch(output, /^ {2}✗ /m, logs());
    } finally {
      await Promise.all(upstreams.map((u) => u.stop()));
      await Deno.remove(outDir, { recursive: true });
    }
  },
});
