import assert from "node:assert/strict";
import { GatePolicyError, parseGatePolicy } from "./policy_file.ts";
import { expandVariables } from "./_servers.ts";
import { parsePolicyText } from "./_policy_source.ts";

const FS = { command: ["node", "fs.js", "/w"] };

/** The path and message a policy is refused with. */
function refusal(value: unknown): { path: unknown[]; message: string } {
  try {
    parseGatePolicy(value);
  } catch (error) {
    if (!(error instanceof GatePolicyError)) throw error;
    return { path: [...error.path], message: error.message };
  }
  throw new Error("the policy was accepted");
}

Deno.test("parseGatePolicy() reads servers: each entry decided by the top level's rules and its own", async (t) => {
  const { servers } = parseGatePolicy({
    allow: ["read:**"],
    deny: ["write:secrets/**"],
    unprobed: "ask",
    presets: ["filesystem"],
    roots: ["/w"],
    servers: {
      files: { ...FS, deny: ["write:**"] },
      notes: {
        command: ["deno", "run", "notes.ts"],
        env: { ROOT: "${HOME}/n" },
        unprobed: "allow",
        presets: [],
        prefix: "n",
      },
      web: {
        url: "https://mcp.example.com/mcp",
        headers: { Authorization: "Bearer ${WEB_TOKEN}" },
      },
    },
  });
  const files = servers!.get("files")!;
  await t.step("rules add to the top level's", () => {
    assert.deepEqual(files.policy.rules.deny, ["write:secrets/**", "write:**"]);
    assert.deepEqual(files.policy.rules.allow, ["read:**"]);
    assert.equal(
      files.policy.policy.evaluate(["write:notes/a"]).decision,
      "deny",
    );
  });
  await t.step(
    "other keys replace the top level's, or stand in for them",
    () => {
      assert.equal(files.policy.unprobed, "ask");
      assert.deepEqual(files.policy.presets, ["filesystem"]);
      const notes = servers!.get("notes")!;
      assert.equal(notes.policy.unprobed, "allow");
      assert.deepEqual(notes.policy.presets, []);
    },
  );
  await t.step("connections and prefixes", () => {
    assert.equal(files.prefix, "files");
    assert.deepEqual(files.command, FS.command);
    assert.equal(servers!.get("notes")!.prefix, "n");
    assert.deepEqual(servers!.get("notes")!.env, { ROOT: "${HOME}/n" });
    const web = servers!.get("web")!;
    assert.equal(web.url, "https://mcp.example.com/mcp");
    assert.deepEqual(web.headers, [["Authorization", "Bearer ${WEB_TOKEN}"]]);
  });
});

Deno.test("parseGatePolicy() refuses a wrong servers: entry where it is written", async (t) => {
  const cases: [string, unknown, unknown[], RegExp][] = [
    ["an empty servers", { servers: {} }, ["servers"], /an empty object/],
    [
      "neither command nor url",
      { servers: { a: {} } },
      ["servers", "a"],
      /missing: expected command/,
    ],
    [
      "both command and url",
      { servers: { a: { ...FS, url: "http://x/mcp" } } },
      ["servers", "a"],
      /both command and url/,
    ],
    [
      "an unknown key",
      { servers: { a: { ...FS, comand: [] } } },
      ["servers", "a", "comand"],
      /unknown key/,
    ],
    [
      "flows in an entry",
      { servers: { a: { ...FS, flows: [] } } },
      ["servers", "a", "flows"],
      /flows span servers/,
    ],
    [
      "a wrong rule in an entry, by its own index",
      {
        allow: ["read:**"],
        servers: { a: { ...FS, allow: ["read:x", "WRITE:y"] } },
      },
      ["servers", "a", "allow", 1],
      /unknown verb/,
    ],
    [
      "a shared prefix",
      { servers: { a: { ...FS, prefix: "x" }, b: { ...FS, prefix: "x" } } },
      ["servers", "b", "prefix"],
      /servers "a" and "b" share the prefix "x"/,
    ],
    [
      "a prefix that breaks the name rule",
      { servers: { a: { ...FS, prefix: "_x" } } },
      ["servers", "a", "prefix"],
      /invalid prefix/,
    ],
    [
      "top-level pins",
      { pins: "pins.json", servers: { a: FS } },
      ["pins"],
      /pins per server/,
    ],
    [
      "a sandboxed url server",
      { servers: { a: { url: "http://x/mcp", sandbox: true } } },
      ["servers", "a", "sandbox"],
      /cannot be sandboxed/,
    ],
    [
      "env for a url server",
      { servers: { a: { url: "http://x/mcp", env: { A: "b" } } } },
      ["servers", "a", "env"],
      /only with command/,
    ],
    [
      "a malformed variable",
      { servers: { a: { url: "http://x/mcp", headers: { A: "${1X}" } } } },
      ["servers", "a", "headers", "A"],
      /invalid variable \$\{1X\}/,
    ],
    [
      "a ping that is not a number",
      { servers: { a: { ...FS, ping: "30s" } } },
      ["servers", "a", "ping"],
      /expected the seconds between two pings of the server, a number >= 0 \(0: never\), got string/,
    ],
    [
      "a negative ping",
      { servers: { a: { ...FS, ping: -1 } } },
      ["servers", "a", "ping"],
      /a number >= 0 \(0: never\), got -1/,
    ],
    [
      "an infinite ping",
      { servers: { a: { ...FS, ping: Infinity } } },
      ["servers", "a", "ping"],
      /a number >= 0 \(0: never\), got Infinity/,
    ],
    [
      "a flow naming no server of the policy",
      {
        flows: [{ after: ["read:**"], deny: ["net:**"], server: "c" }],
        servers: { a: FS },
      },
      ["flows", 0, "server"],
      /one of the policy's servers \(a\), got "c"/,
    ],
  ];
  for (const [name, value, path, message] of cases) {
    await t.step(name, () => {
      const got = refusal(value);
      assert.deepEqual(got.path, path);
      assert.match(got.message, message);
    });
  }
});

Deno.test("parseGatePolicy() reads each server's ping: seconds, 30 unless given, 0 for never", () => {
  const { servers } = parseGatePolicy({
    servers: { a: FS, b: { ...FS, ping: 0.5 }, c: { ...FS, ping: 0 } },
  });
  assert.deepEqual(
    [...servers!.values()].map((server) => server.ping),
    [30, 0.5, 0],
  );
});

Deno.test("a policy file's wrong ping is refused at its line and column", () => {
  const text = [
    "servers:",
    "  a:",
    '    command: ["node", "fs.js"]',
    "    ping: .inf",
    "",
  ].join("\n");
  try {
    parsePolicyText(text, "yaml");
  } catch (error) {
    const { line, column, message } = error as Error & {
      line: number;
      column: number;
    };
    assert.deepEqual([line, column], [4, 5]);
    assert.match(message, /^servers\.a\.ping: .*got Infinity$/);
    return;
  }
  throw new Error("the policy was accepted");
});

Deno.test("parseGatePolicy() gives every server the top level's flows, the same objects", () => {
  const { flows, servers } = parseGatePolicy({
    flows: [{ after: ["read:secrets/**"], deny: ["net:**"], server: "a" }],
    servers: { a: FS, b: FS },
  });
  assert.equal(flows?.[0].server, "a");
  assert.equal(servers!.get("a")!.policy.flows, flows);
  assert.equal(servers!.get("b")!.policy.flows, flows);
});

Deno.test("expandVariables() fills ${NAME} from the environment, or names the one missing", () => {
  const env = (name: string) =>
    ({ TOKEN: "t0k" } as Record<string, string>)[name];
  assert.equal(expandVariables("Bearer ${TOKEN}", env, "h"), "Bearer t0k");
  assert.equal(expandVariables("no variable", env, "h"), "no variable");
  assert.throws(
    () => expandVariables("${TOKEN}:${SECRET}", env, "servers.web.headers.A"),
    /servers\.web\.headers\.A uses \$\{SECRET\}, which is not set/,
  );
});
