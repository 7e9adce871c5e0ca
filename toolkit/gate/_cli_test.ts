import assert from "node:assert/strict";
import { parseCommandLine, UsageError } from "./_cli.ts";

Deno.test("parseCommandLine() reads the options and the command after --", () => {
  assert.deepEqual(
    parseCommandLine([
      "--policy",
      "p.yaml",
      "--audit=a.jsonl",
      "--",
      "deno",
      "run",
      "--policy",
      "x",
    ]),
    {
      help: false,
      policy: "p.yaml",
      audit: "a.jsonl",
      auditAnchor: undefined,
      unprobed: undefined,
      pins: undefined,
      newTools: undefined,
      command: ["deno", "run", "--policy", "x"],
      url: undefined,
      headers: [],
    },
  );
  const line = parseCommandLine([
    "--unprobed",
    "deny",
    "--policy=p.json",
    "--",
    "srv",
  ]);
  assert.equal(line.help === false && line.unprobed, "deny");
  assert.deepEqual(parseCommandLine(["-h"]), { help: true });
  // As `deno task gate -- --policy p -- srv` passes it.
  const task = parseCommandLine(["--", "--policy", "p.yaml", "--", "srv"]);
  assert.deepEqual(task.help === false && [task.policy, task.command], [
    "p.yaml",
    ["srv"],
  ]);
  // A leading "--" before a command is still the command.
  assert.throws(
    () => parseCommandLine(["--", "srv", "--policy", "p"]),
    /Missing --policy/,
  );
});

Deno.test("parseCommandLine() takes a policy alone, for a policy that names its servers", () => {
  const line = parseCommandLine(["--policy", "gate.yaml"]);
  assert.equal(line.help, false);
  if (!line.help) {
    assert.deepEqual(line.command, []);
    assert.equal(line.url, undefined);
  }
});

Deno.test("parseCommandLine() refuses what it cannot run, saying what was expected", async (t) => {
  const cases: [string[], RegExp][] = [
    [["--", "srv"], /^Missing --policy: expected --policy FILE$/],
    [["--policy"], /^--policy needs a value/],
    [["--policy", "--", "srv"], /^--policy needs a value/],
    [["--policy", "a", "--policy", "b", "--", "s"], /^--policy given twice/],
    [
      ["--polcy", "a", "--", "s"],
      /^Unknown option: --polcy: expected --policy/,
    ],
    [["srv"], /^Unexpected argument: srv: put the server command after "--"/],
    [
      ["--policy", "a", "--unprobed", "maybe", "--", "s"],
      /^Invalid --unprobed: "maybe": expected allow, ask or deny$/,
    ],
    [
      ["--policy", "a", "--new-tools", "maybe", "--", "s"],
      /^Invalid --new-tools: "maybe": expected allow, ask or deny$/,
    ],
    [
      ["--policy", "a", "--url", "http://h/mcp", "--", "s"],
      /^Both --url and a server command/,
    ],
    [["--policy", "a", "--url", "ftp://h"], /^Invalid --url: ftp:\/\/h/],
    [
      ["--policy", "a", "--header", "A: b", "--", "s"],
      /^--header needs --url/,
    ],
    [
      ["--policy", "a", "--url", "http://h/", "--header", "no colon"],
      /^Invalid --header: "no colon": expected 'Name: value'$/,
    ],
  ];
  for (const [args, message] of cases) {
    await t.step(args.join(" "), () => {
      assert.throws(() => parseCommandLine(args), (error: unknown) => {
        assert.ok(error instanceof UsageError);
        assert.match(error.message, message);
        return true;
      });
    });
  }
});

Deno.test("parseCommandLine() reads pins, a URL and repeated headers", () => {
  const line = parseCommandLine([
    "--policy",
    "p.yaml",
    "--pins",
    "pins.json",
    "--new-tools=deny",
    "--url",
    "https://h.example/mcp",
    "--header",
    "Authorization: Bearer abc:def",
    "--header=X-Team: a",
  ]);
  assert.equal(line.help, false);
  if (line.help) return;
  assert.equal(line.pins, "pins.json");
  assert.equal(line.newTools, "deny");
  assert.equal(line.url, "https://h.example/mcp");
  assert.deepEqual(line.command, []);
  assert.deepEqual(line.headers, [
    ["Authorization", "Bearer abc:def"],
    ["X-Team", "a"],
  ]);
});

Deno.test("parseCommandLine() reads --http HOST:PORT and refuses another shape", () => {
  const line = parseCommandLine([
    "--policy",
    "p.yaml",
    "--http",
    "127.0.0.1:0",
    "--",
    "srv",
  ]);
  assert.equal(line.help === false && line.http, "127.0.0.1:0");
  const v6 = parseCommandLine(["--policy", "p", "--http=[::1]:8080"]);
  assert.equal(v6.help === false && v6.http, "[::1]:8080");
  for (const bad of ["8080", "127.0.0.1", "127.0.0.1:70000", "::1:80"]) {
    assert.throws(
      () => parseCommandLine(["--policy", "p", "--http", bad]),
      (error) =>
        error instanceof UsageError &&
        error.message.includes("Invalid --http") &&
        error.message.includes("expected HOST:PORT"),
      bad,
    );
  }
});

Deno.test("parseCommandLine() reads --redis URL and refuses another scheme", () => {
  const line = parseCommandLine([
    "--policy",
    "p.yaml",
    "--http",
    "127.0.0.1:0",
    "--redis",
    "redis://127.0.0.1:6379",
    "--",
    "srv",
  ]);
  assert.equal(line.help === false && line.redis, "redis://127.0.0.1:6379");
  for (const bad of ["127.0.0.1:6379", "http://r:6379", "redis://"]) {
    assert.throws(
      () => parseCommandLine(["--policy", "p", "--redis", bad, "--", "s"]),
      (error) =>
        error instanceof UsageError &&
        error.message.includes("Invalid --redis") &&
        error.message.includes("redis:// or rediss://"),
      bad,
    );
  }
});
