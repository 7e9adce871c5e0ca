import assert from "node:assert/strict";
import { GatePolicyError, parseGatePolicy } from "./policy_file.ts";

function problemOf(value: unknown): GatePolicyError {
  try {
    parseGatePolicy(value);
  } catch (error) {
    assert.ok(error instanceof GatePolicyError, String(error));
    return error;
  }
  assert.fail("parseGatePolicy() accepted the value");
}

Deno.test("parseGatePolicy() builds the Policy and keeps the lists and unprobed", () => {
  const gatePolicy = parseGatePolicy({
    allow: ["read:**", "write:notes/**"],
    ask: ["exec:git push **"],
    deny: ["write:secrets/**", "delete:**"],
    unprobed: "deny",
  });
  assert.equal(gatePolicy.unprobed, "deny");
  assert.deepEqual(gatePolicy.rules.ask, ["exec:git push **"]);
  const { policy } = gatePolicy;
  assert.equal(policy.evaluate(["read:a", "write:notes/b"]).decision, "allow");
  assert.equal(policy.evaluate(["exec:git push origin"]).decision, "ask");
  assert.equal(policy.evaluate(["write:secrets/k"]).decision, "deny");
  assert.equal(policy.evaluate(["net:https://x.dev"]).decision, "ask");
});

Deno.test("parseGatePolicy() keeps the tools' decisions by name", () => {
  const { tools } = parseGatePolicy({
    tools: { search: "allow", run_shell: "deny", constructor: "ask" },
  });
  assert.deepEqual([...tools!], [
    ["search", "allow"],
    ["run_shell", "deny"],
    ["constructor", "ask"],
  ]);
  assert.equal(tools!.get("toString"), undefined);
  assert.equal(parseGatePolicy({ tools: null }).tools, undefined);
});

Deno.test("parseGatePolicy() takes missing lists as empty and unprobed as unset", () => {
  const gatePolicy = parseGatePolicy({});
  assert.deepEqual(gatePolicy.rules, { allow: [], ask: [], deny: [] });
  assert.equal(gatePolicy.unprobed, undefined);
  assert.equal(gatePolicy.tools, undefined);
  // YAML's `allow:` with nothing after it is null.
  assert.deepEqual(parseGatePolicy({ allow: null }).rules.allow, []);
});

Deno.test("parseGatePolicy() names each wrong field", async (t) => {
  await t.step("not an object", () => {
    const error = problemOf(["read:**"]);
    assert.deepEqual(error.path, []);
    assert.match(error.message, /expected an object .*, got an array/);
    assert.match(
      problemOf(undefined).message,
      /got nothing \(the file is empty\)/,
    );
  });
  await t.step("an unknown key, with a suggestion", () => {
    const error = problemOf({ alow: [] });
    assert.deepEqual(error.path, ["alow"]);
    assert.equal(
      error.message,
      'alow: unknown key: expected allow, ask, deny, unprobed, tools, roots, presets, annotations, pins, record, flows, sandbox, servers, scopes, auth, principals, approvers, listen or redis (did you mean "allow"?)',
    );
    assert.match(problemOf({ Deny: [] }).message, /did you mean "deny"/);
    assert.doesNotMatch(problemOf({ rules: [] }).message, /did you mean/);
  });
  await t.step("a list that is a string", () => {
    const error = problemOf({ deny: "delete:**" });
    assert.deepEqual(error.path, ["deny"]);
    assert.equal(
      error.message,
      'deny: expected a list of rule strings, got string (write deny: ["delete:**"])',
    );
  });
  await t.step("a rule that is not a string", () => {
    const error = problemOf({ ask: ["read:a", 7] });
    assert.deepEqual(error.path, ["ask", 1]);
    assert.equal(error.message, "ask[1]: expected a rule string, got number");
  });
  await t.step("a rule that breaks the grammar, with its column", () => {
    const error = problemOf({ allow: ["read:**", "WRITE:a"] });
    assert.deepEqual(error.path, ["allow", 1]);
    assert.equal(error.column, 1);
    assert.match(error.message, /^allow\[1\]: unknown verb "WRITE"/);
    assert.match(error.message, /\(in rule "WRITE:a"\)$/);
  });
  await t.step("unprobed outside allow, ask and deny", () => {
    const error = problemOf({ unprobed: "maybe" });
    assert.deepEqual(error.path, ["unprobed"]);
    assert.equal(
      error.message,
      'unprobed: expected "allow", "ask" or "deny", got "maybe"',
    );
    assert.match(problemOf({ unprobed: true }).message, /got boolean/);
  });
  await t.step(
    "tools that is not an object, and a wrong decision in it",
    () => {
      const list = problemOf({ tools: ["search"] });
      assert.deepEqual(list.path, ["tools"]);
      assert.equal(
        list.message,
        'tools: expected tool names with "allow", "ask", "deny" or { patterns: [...] } (tools: { search: allow }), got an array',
      );
      const wrong = problemOf({
        tools: { search: "allow", run_shell: "never" },
      });
      assert.deepEqual(wrong.path, ["tools", "run_shell"]);
      assert.equal(
        wrong.message,
        'tools.run_shell: expected "allow", "ask" or "deny", got "never"',
      );
    },
  );
});

Deno.test("parseGatePolicy() reads record, tool names to patterns or digests, and names a wrong one", () => {
  const parsed = parseGatePolicy({
    record: { run_command: "patterns", "git_*": "digests" },
  });
  assert.deepEqual(
    parsed.record,
    new Map([["run_command", "patterns"], ["git_*", "digests"]]),
  );
  assert.equal(parseGatePolicy({}).record, undefined);
  assert.throws(
    () => parseGatePolicy({ record: { run_command: "whole" } }),
    {
      name: "GatePolicyError",
      message:
        'record.run_command: expected "patterns" (recorded whole) or "digests", got "whole"',
    },
  );
  assert.throws(() => parseGatePolicy({ record: ["run_command"] }), {
    name: "GatePolicyError",
    message:
      'record: expected tool names with "patterns" or "digests" (record: { run_command: patterns }), got an array',
  });
});

Deno.test("parseGatePolicy() reads listen as host:port and names a wrong one", () => {
  assert.equal(
    parseGatePolicy({ listen: "127.0.0.1:8080" }).listen,
    "127.0.0.1:8080",
  );
  assert.equal(parseGatePolicy({}).listen, undefined);
  for (const bad of [8080, "8080", "localhost", "127.0.0.1:99999"]) {
    assert.throws(
      () => parseGatePolicy({ listen: bad }),
      (error) =>
        error instanceof GatePolicyError &&
        error.path[0] === "listen" &&
        /expected "host:port"/.test(error.message),
      String(bad),
    );
  }
});

Deno.test("parseGatePolicy() reads redis as a redis:// URL and names a wrong one", () => {
  assert.equal(
    parseGatePolicy({ redis: "redis://127.0.0.1:6379" }).redis,
    "redis://127.0.0.1:6379",
  );
  assert.equal(parseGatePolicy({}).redis, undefined);
  for (const bad of [6379, "127.0.0.1:6379", "http://r", "redis://"]) {
    assert.throws(
      () => parseGatePolicy({ redis: bad }),
      (error) =>
        error instanceof GatePolicyError &&
        error.path[0] === "redis" &&
        /expected a redis:\/\/ or rediss:\/\/ URL/.test(error.message),
      String(bad),
    );
  }
});
