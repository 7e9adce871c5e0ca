// The official conformance suite's 2026-07-28 requirements against the
// edge server on each runtime, built by serve.ts from the same source.
// Every scored scenario passes everywhere, with no failed or warning check.
// The suite also runs the tasks extension's scenarios (not scored): they
// pass on Deno, Node and Bun, and on workerd every one of their failures
// is the toolkit's refusal to start a task there (the runtime cancels work
// after the response), never a timeout; and there a list change does not
// reach another request's listen stream (a SHOULD, a warning).

import assert from "node:assert/strict";
import { startEdge, targets } from "./_edge_process.ts";

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
    scenarios.set(
      match[1],
      JSON.parse(await Deno.readTextFile(`${dir}/${entry.name}/checks.json`)),
    );
  }
  return scenarios;
}

for (const target of targets()) {
  Deno.test({
    name:
      `the edge server on ${target.label} passes the 2026-07-28 conformance requirements${
        target.missing ?? ""
      }`,
    ignore: target.missing !== undefined,
    fn: async () => {
      const outDir = await Deno.makeTempDir({ prefix: "edge_conformance_" });
      const edge = await startEdge(target);
      try {
        const run = await new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "-A",
            "--config",
            ".ci/tools.json",
            SUITE,
            "server",
            "--url",
            edge.url,
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
        const logs = () => `${output}\n--- server ---\n${edge.output()}`;
        assert.equal(run.code, 0, `The suite failed:\n${logs()}`);
        assert.doesNotMatch(output, /timed out/, logs());

        const scenarios = await readChecks(outDir);
        assert.ok(scenarios.size >= 50, `Only ${scenarios.size} scenarios ran`);
        for (const name of ["server-stateless", "http-header-validation"]) {
          assert.ok(scenarios.has(name), `Scenario ${name} did not run`);
        }
        const unexplained: string[] = [];
        let refusedTasks = 0;
        for (const [scenario, checks] of scenarios) {
          for (const check of checks) {
            // SKIPPED: the suite itself does not run that check yet.
            if (["SUCCESS", "INFO", "SKIPPED"].includes(check.status)) continue;
            if (target.runtime === "workerd" && scenario.startsWith("tasks-")) {
              refusedTasks++;
              continue;
            }
            // A SHOULD: workerd lets no request write to the listen stream
            // another request holds, so a list change made through one
            // request does not reach it (README: what workerd cannot do).
            if (
              target.runtime === "workerd" && check.status === "WARNING" &&
              /-list-changed-on-subscription$/.test(check.id)
            ) continue;
            unexplained.push(
              `${scenario}: ${check.id}: ${check.status}: ${
                check.errorMessage ?? ""
              }`,
            );
          }
        }
        assert.deepEqual(unexplained, [], logs());
        if (target.runtime === "workerd") {
          assert.ok(
            refusedTasks > 0,
            "tasks passed on workerd: drop the exception",
          );
          assert.match(
            edge.output(),
            /cannot create its task: .*Cloudflare Workers cancel/,
          );
        }
      } finally {
        await edge.stop();
        await Deno.remove(outDir, { recursive: true });
      }
    },
  });
}
