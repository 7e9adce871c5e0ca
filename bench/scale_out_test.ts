// The scale-out harness's pure parts: its options, its medians over rounds,
// the CPU time it reads from /proc, and the nginx.conf it rewrites (the
// very file the example ships, so a change to it that the harness cannot
// follow fails here and not in a half-started run).
import assert from "node:assert/strict";
import { NGINX_CONF, nginxConf } from "./_cluster.ts";
import { cpuTicks, DEFAULTS, parseOptions, summarize } from "./scale_out.ts";

Deno.test("parseOptions() takes --name N and --name=N over the defaults", () => {
  assert.deepEqual(parseOptions([]), DEFAULTS);
  assert.deepEqual(
    parseOptions(["--rounds", "3", "--clients=8", "--calls", "100"]),
    { ...DEFAULTS, rounds: 3, clients: 8, calls: 100 },
  );
  assert.equal(parseOptions(["--seconds=2", "--tasks", "5"]).tasks, 5);
});

Deno.test("parseOptions() refuses unknown options and values that are not positive integers", () => {
  assert.throws(() => parseOptions(["--fast"]), {
    name: "TypeError",
    message: "Invalid arguments: unknown option: --fast",
  });
  assert.throws(() => parseOptions(["rounds"]), TypeError);
  for (const args of [["--rounds", "0"], ["--clients=1.5"], ["--calls"]]) {
    assert.throws(() => parseOptions(args), {
      name: "RangeError",
      message: /^Invalid arguments: --\w+ expects a positive integer, got /,
    });
  }
});

Deno.test("summarize() takes each round's rate and percentiles, then their medians", () => {
  const summary = summarize([
    { calls: 100, errors: 0, ms: 1000, latencies: [1, 2, 3, 50] },
    { calls: 300, errors: 2, ms: 1000, latencies: [2, 3, 4, 60] },
    { calls: 100, errors: 0, ms: 500, latencies: [3, 4, 5, 70] },
  ]);
  assert.deepEqual(summary, {
    callsPerSecond: 200,
    range: [100, 300],
    p50: 3,
    p99: 60,
    errors: 2,
  });
});

Deno.test("summarize() refuses no runs and a run without a right answer", () => {
  assert.throws(() => summarize([]), RangeError);
  assert.throws(
    () => summarize([{ calls: 0, errors: 4, ms: 10, latencies: [] }]),
    { name: "RangeError", message: /no right answer \(4 errors\)/ },
  );
});

Deno.test("cpuTicks() adds user and system time after a command name with spaces", () => {
  assert.equal(
    cpuTicks("42 (a (b) c) S 1 42 42 0 -1 4194560 10 0 0 0 7 3 0 0 20 0"),
    10,
  );
  assert.ok(cpuTicks(Deno.readTextFileSync("/proc/self/stat")) >= 0);
  assert.throws(() => cpuTicks("not a stat line"), TypeError);
});

Deno.test("nginxConf() rewrites the example's nginx.conf: port, upstreams, temp paths", async () => {
  const conf = nginxConf(await Deno.readTextFile(NGINX_CONF), {
    port: 9001,
    upstreams: ["127.0.0.1:4001", "127.0.0.1:4002"],
    dir: "/tmp/run",
  });
  assert.match(conf, /listen 127\.0\.0\.1:9001;/);
  const directives = conf.split("\n").filter((line) => !/^\s*#/.test(line));
  assert.doesNotMatch(directives.join("\n"), /:8080|:3001|:3002/);
  // The shipped server parameters and keepalive stay as they are.
  assert.match(
    conf,
    /server 127\.0\.0\.1:4001 max_fails=1 fail_timeout=2s;\s+server 127\.0\.0\.1:4002 max_fails=1 fail_timeout=2s;\s+# Reused[^\n]*\n\s+keepalive 32;/,
  );
  assert.match(conf, /proxy_temp_path \/tmp\/run\/proxy;/);
  assert.throws(
    () => nginxConf("events {}", { port: 1, upstreams: ["a:1"], dir: "/d" }),
    { name: "TypeError", message: /^Cannot rewrite nginx\.conf: / },
  );
});
