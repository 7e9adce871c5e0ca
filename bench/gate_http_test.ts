// The gate-over-HTTP bench's pure parts: its options, the answer it reads
// out of a JSON or SSE body, its medians over rounds and its ratios line,
// and the deploy/nginx.conf it rewrites (the very file the gate ships, so
// a change to it the harness cannot follow fails here, not mid-run).
import assert from "node:assert/strict";
import {
  answerOf,
  DEFAULTS,
  parseOptions,
  QUICK,
  ratios,
  summarize,
} from "./gate_http.ts";
import { GATE_NGINX_CONF, gateNginxConf } from "./_cluster.ts";

Deno.test("parseOptions() takes --quick, --name N and --name=N over the defaults", () => {
  assert.deepEqual(parseOptions([]), DEFAULTS);
  assert.deepEqual(parseOptions(["--quick"]), { ...DEFAULTS, ...QUICK });
  assert.deepEqual(
    parseOptions(["--quick", "--rounds=5", "--clients", "8"]),
    { ...DEFAULTS, ...QUICK, rounds: 5, clients: 8 },
  );
});

Deno.test("parseOptions() takes --baseline DIR and --baseline=DIR, and refuses it without one", () => {
  assert.deepEqual(parseOptions(["--baseline", "../before", "--rounds=5"]), {
    ...DEFAULTS,
    rounds: 5,
    baseline: "../before",
  });
  assert.equal(parseOptions(["--baseline=/tmp/b"]).baseline, "/tmp/b");
  for (const args of [["--baseline"], ["--baseline="]]) {
    assert.throws(() => parseOptions(args), {
      name: "TypeError",
      message:
        "Invalid arguments: --baseline expects the directory of another checkout, got nothing",
    });
  }
});

Deno.test("parseOptions() refuses unknown options and values that are not positive integers", () => {
  assert.throws(() => parseOptions(["--fast"]), {
    name: "TypeError",
    message: "Invalid arguments: unknown option: --fast",
  });
  for (const args of [["--rounds", "0"], ["--clients=1.5"], ["--calls"]]) {
    assert.throws(() => parseOptions(args), {
      name: "RangeError",
      message: /^Invalid arguments: --\w+ expects a positive integer, got /,
    });
  }
});

Deno.test("answerOf() reads a JSON body, or the last answer of an SSE stream", () => {
  assert.deepEqual(
    answerOf('{"jsonrpc":"2.0","id":3,"result":{"a":1}}', "application/json"),
    { jsonrpc: "2.0", id: 3, result: { a: 1 } },
  );
  const stream = [
    "id: 1",
    "event: message",
    'data: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}',
    "",
    "event: message",
    'data: {"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"x"}}',
    "",
    "",
  ].join("\n");
  assert.equal(answerOf(stream, "text/event-stream")?.id, 4);
  assert.equal(answerOf("not json", "application/json"), undefined);
  assert.equal(
    answerOf('data: {"jsonrpc":"2.0","method":"m"}\n\n', "text/event-stream"),
    undefined,
  );
});

Deno.test("summarize() takes the median round, not the mean", () => {
  const s = summarize([
    { calls: 100, errors: 0, ms: 1000, latencies: [1, 2, 3] },
    { calls: 900, errors: 2, ms: 1000, latencies: [2, 3, 4] },
    { calls: 200, errors: 0, ms: 1000, latencies: [3, 4, 5] },
  ]);
  assert.equal(s.callsPerSecond, 200);
  assert.deepEqual(s.range, [100, 900]);
  assert.equal(s.p50, 3);
  assert.equal(s.errors, 2);
  assert.throws(() => summarize([]), RangeError);
  assert.throws(
    () => summarize([{ calls: 0, errors: 5, ms: 1000, latencies: [] }]),
    RangeError,
  );
});

Deno.test("ratios() compares with the upstream alone and says whether the target is met", () => {
  assert.equal(
    ratios({ upstream: 1000, one: 700, two: 1050 }),
    "one instance / upstream alone: 0.70× (target ≥ 0.7×: met); two instances / upstream alone: 1.05×; two / one: 1.50×",
  );
  assert.match(
    ratios({ upstream: 1000, one: 330, two: 250 }),
    /0\.33× \(target ≥ 0\.7×: not met\)/,
  );
  assert.throws(() => ratios({ upstream: 0, one: 1, two: 1 }), RangeError);
});

Deno.test("gateNginxConf() moves the shipped config's ports and files, every occurrence", async () => {
  const conf = gateNginxConf(await Deno.readTextFile(GATE_NGINX_CONF), {
    port: 9000,
    instances: ["127.0.0.1:4001", "127.0.0.1:4002"],
    dir: "/tmp/n",
  });
  assert.match(conf, /listen 127\.0\.0\.1:9000;/);
  assert.doesNotMatch(conf, /127\.0\.0\.1:808[12]/);
  // Each instance is in the round robin, its own upstream and the tag map.
  const lines = conf.split("\n").filter((line) => !/^\s*#/.test(line))
    .join("\n");
  assert.equal(lines.split("127.0.0.1:4001").length - 1, 3);
  assert.equal(lines.split("127.0.0.1:4002").length - 1, 3);
  assert.match(conf, /client_body_temp_path \/tmp\/n\/body;/);
  assert.throws(
    () =>
      gateNginxConf("http {\n}\n", {
        port: 1,
        instances: ["a:1", "b:2"],
        dir: "/x",
      }),
    TypeError,
  );
});
