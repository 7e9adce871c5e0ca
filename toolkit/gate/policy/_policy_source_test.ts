import assert from "node:assert/strict";
import {
  CHECK_EVERY_MS,
  parsePolicyText,
  type PolicyInForce,
  policyInForce,
  type PolicySource,
  serverPolicy,
  watchPolicy,
} from "./_policy_source.ts";
import { callerPolicySource } from "./_caller_source.ts";
import { parseGatePolicy } from "./policy_file.ts";
import { until } from "../../testing/_until.ts";
import {
  callTool,
  HELLO_COMMAND,
  type Message,
  startGateProcess,
  textOf,
  writeAtomic,
} from "../testdata/gate_process.ts";

function located(text: string, format: "json" | "jsonc" | "yaml" | "toml") {
  try {
    parsePolicyText(text, format);
  } catch (error) {
    const { line, column, message } = error as Error & {
      line: number;
      column: number;
    };
    return `${line}:${column}: ${message}`;
  }
  assert.fail("the text was accepted");
}

Deno.test("parsePolicyText() reads the four formats alike", () => {
  const texts = {
    json: '{ "allow": ["read:**"], "unprobed": "deny" }',
    jsonc: '// mine\n{ "allow": ["read:**"], "unprobed": "deny", }',
    yaml: "allow:\n  - read:**\nunprobed: deny\n",
    toml: 'allow = ["read:**"]\nunprobed = "deny"\n',
  } as const;
  for (const [format, text] of Object.entries(texts)) {
    const parsed = parsePolicyText(text, format as keyof typeof texts);
    assert.deepEqual(parsed.rules.allow, ["read:**"], format);
    assert.equal(parsed.unprobed, "deny", format);
  }
});

Deno.test("parsePolicyText() places syntax and field errors at line:column", () => {
  assert.match(located('{ "allow": ["read:**"],, }', "json"), /^1:\d+: /);
  assert.equal(
    located(
      'allow = ["read:**"]\ndeny = ["read:a", "net:https://Example.com"]\n',
      "toml",
    ),
    '2:32: deny[1]: "E" never appears in a canonical host: expected lowercase, such as "example" (in rule "net:https://Example.com")',
  );
  assert.equal(
    located("  \n", "yaml"),
    "1:1: the file is empty: expected allow, ask and deny lists, unprobed and tools",
  );
});

Deno.test("watchPolicy() loads, follows and refuses like the gate needs", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/p.yaml`;
  const logged: string[] = [];
  await Deno.writeTextFile(path, 'deny: ["read:**"]\n');
  const source = await watchPolicy(path, {
    unprobed: "ask",
    tools: new Map([["search", "ask"]]),
    log: (line) => logged.push(line),
    debounceMs: 10,
  });
  try {
    assert.equal(source.current().policy.evaluate(["read:a"]).decision, "deny");
    assert.equal(source.current().unprobed, "ask");
    assert.equal(source.current().tools.get("search"), "ask");
    await writeAtomic(
      path,
      'allow: ["read:**"]\nunprobed: allow\ntools:\n  search: allow\n',
    );
    await until("the reload", () => source.current().unprobed === "allow");
    assert.equal(
      source.current().policy.evaluate(["read:a"]).decision,
      "allow",
    );
    assert.equal(source.current().unprobed, "allow");
    assert.equal(source.current().tools.get("search"), "allow");
    assert.ok(
      logged.includes(
        `policy reloaded from ${path}: 1 allow, 0 ask, 0 deny rules, 1 tool by name, unprobed: allow`,
      ),
      logged.join("\n"),
    );
    await writeAtomic(path, "tools:\n  search: allow\n  shell: never\n");
    await until("the refusal", () => logged.some((l) => l.includes("never")));
    assert.ok(
      logged.includes(
        `${path}:3:3: tools.shell: expected "allow", "ask" or "deny", got "never" (keeping the last good policy)`,
      ),
      logged.join("\n"),
    );
    await writeAtomic(path, 'allow: ["read:**"]\nunprobed: sometimes\n');
    await until(
      "the refusal",
      () => logged.some((l) => l.includes("sometimes")),
    );
    assert.ok(
      logged.includes(
        `${path}:2:1: unprobed: expected "allow", "ask" or "deny", got "sometimes" (keeping the last good policy)`,
      ),
      logged.join("\n"),
    );
    assert.equal(source.current().unprobed, "allow");
  } finally {
    await source.close();
    await Deno.remove(dir, { recursive: true });
  }
  await assert.rejects(
    () =>
      watchPolicy(`${dir}/policy.txt`, {
        unprobed: "ask",
        tools: new Map(),
        log: () => {},
      }),
    /cannot tell the format from the file name: .*policy\.txt \(expected \.json, \.jsonc, \.yaml, \.yml or \.toml\)/,
  );
});

Deno.test("docs/gate.md quotes the policy errors the gate gives today", async (t) => {
  const page = await Deno.readTextFile(
    new URL("../../../docs/gate.md", import.meta.url),
  );
  await t.step("an unknown key", () => {
    const quoted = /\(`(alow: unknown key: [^`]*)`\)/.exec(page);
    assert.ok(quoted !== null, "docs/gate.md quotes no unknown-key error");
    assert.equal(
      located("alow: []\n", "yaml"),
      `1:1: ${quoted[1]}`,
    );
  });
  await t.step("a rule that breaks the grammar, in the page's policy", () => {
    const block = /```yaml\n(# policy\.yaml\n[\s\S]*?)```/.exec(page);
    const quoted = /forge gate: Cannot load the policy: policy\.yaml:(.*)\n/
      .exec(page);
    assert.ok(block !== null && quoted !== null);
    // The page's file with its rule "write:.env" mistyped as the quote says.
    const mistyped = block[1].replace('"write:.env"', '"WRITE:.env"');
    assert.notEqual(mistyped, block[1]);
    assert.equal(located(mistyped, "yaml"), quoted[1]);
  });
});

Deno.test("watchPolicy() fresh() reads a file saved the bound before, in place and the same size, and keeps the last good policy when it is invalid", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/p.yaml`;
  const logged: string[] = [];
  await Deno.writeTextFile(path, "unprobed: allow\n");
  const source = await watchPolicy(path, {
    unprobed: "ask",
    tools: new Map(),
    log: (line) => logged.push(line),
    // The watcher alone would not read the file within this test.
    debounceMs: 60_000,
  });
  try {
    // Each save keeps the inode and the size, and lands within one mtime
    // tick of the last (often, not always): then only the content tells
    // them apart.
    for (const unprobed of ["deny ", "allow", "ask  ", "deny "]) {
      await Deno.writeTextFile(path, `unprobed: ${unprobed}\n`);
      await pastTheBound();
      assert.equal((await source.fresh()).unprobed, unprobed.trim());
    }
    await Deno.writeTextFile(path, "unprobed: never\n");
    await pastTheBound();
    assert.equal((await source.fresh()).unprobed, "deny");
    assert.ok(
      logged.some((l) => l.includes("never") && l.includes("last good")),
      logged.join("\n"),
    );
    await Deno.writeTextFile(path, "unprobed: allow\n");
    await pastTheBound();
    assert.equal((await source.fresh()).unprobed, "allow");
    assert.equal(source.current().unprobed, "allow");
  } finally {
    await source.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the worked policy in docs/gate.md does what the page says, in front of hello-tool", async () => {
  const page = await Deno.readTextFile(
    new URL("../../../docs/gate.md", import.meta.url),
  );
  const block = /```yaml\n# policy\.yaml\n([\s\S]*?)```/.exec(page);
  assert.ok(block !== null, "docs/gate.md has no policy.yaml block");
  const policy = parsePolicyText(block[1], "yaml");
  // The counts the page's reload line quotes.
  assert.ok(
    page.includes(
      `policy reloaded from policy.yaml: ${policy.rules.allow.length} allow, ${policy.rules.ask.length} ask, ${policy.rules.deny.length} deny rules, ${policy.tools?.size} tools by name, unprobed: ${policy.unprobed}`,
    ),
  );
  // "So with the file above, …": each pattern the sentence names.
  const decide = (pattern: string) =>
    policy.policy.evaluate([pattern]).decision;
  assert.equal(decide("write:notes/today.md"), "allow");
  assert.equal(decide("write:notes/archive/2025.md"), "ask");
  assert.equal(decide("delete:notes/old.md"), "deny");
  assert.equal(decide("net:https://example.com"), "ask");
  assert.equal(policy.tools?.get("run_shell"), "deny");

  // "In front of hello-tool, …": each call the sentence names, for real.
  const dir = await Deno.makeTempDir();
  try {
    const root = `${dir}/root`;
    await Deno.mkdir(`${root}/notes`, { recursive: true });
    await Deno.writeTextFile(`${root}/notes/old.md`, "old");
    await Deno.writeTextFile(`${dir}/policy.yaml`, block[1]);
    await using gate = await startGateProcess(
      ["--policy", `${dir}/policy.yaml`],
      HELLO_COMMAND,
      { env: { HELLO_ROOT: root }, capabilities: { elicitation: {} } },
    );
    const today = await callTool(gate, "write_file", {
      path: "notes/today.md",
      content: "t",
    });
    assert.equal(textOf(today), "Wrote 1 byte to notes/today.md");
    const archived = callTool(gate, "write_file", {
      path: "notes/archive/2025.md",
      content: "a",
    });
    const question: Message = await gate.next((m) =>
      m.method === "elicitation/create"
    );
    assert.match(
      question.params.message,
      /write:notes\/archive\/2025\.md: asked by write:notes\/archive\/\*\*/,
    );
    await gate.sendMessage({
      jsonrpc: "2.0",
      id: question.id,
      result: { action: "decline" },
    });
    assert.match(textOf(await archived), /The user declined/);
    const old = await callTool(gate, "delete_file", { path: "notes/old.md" });
    assert.equal(old.result.isError, true);
    assert.match(textOf(old), /delete:notes\/old\.md denied by delete:\*\*/);
    assert.equal(await Deno.readTextFile(`${root}/notes/old.md`), "old");
    const hello = await callTool(gate, "hello", { name: "Ada" });
    assert.equal(textOf(hello), "Hello, Ada!");
    assert.equal((await gate.close()).code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("parsePolicyText() refuses a key given twice in JSON and JSONC, as YAML and TOML do", () => {
  assert.equal(
    located(
      '{\n  "deny": ["write:**"],\n  "allow": ["read:**"],\n  "deny": []\n}\n',
      "json",
    ),
    '4:3: Duplicate key "deny" (first at line 2, column 3): most readers silently keep only the last value',
  );
  assert.match(
    located(
      '// tools\n{ "tools": { "shell": "deny", "shell": "allow" } }',
      "jsonc",
    ),
    /^2:31: Duplicate key "shell" \(first at line 2, column 14\)/,
  );
  assert.match(located("deny: []\ndeny: []\n", "yaml"), /^2:1: /);
  assert.match(located("deny = []\ndeny = []\n", "toml"), /^2:/);
});

Deno.test("watchPolicy() keeps the last good policy when a saved JSON file repeats a key", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/p.json`;
  const logged: string[] = [];
  await Deno.writeTextFile(path, '{ "deny": ["write:**"] }\n');
  const source = await watchPolicy(path, {
    unprobed: "ask",
    tools: new Map(),
    log: (line) => logged.push(line),
    debounceMs: 10,
  });
  try {
    // The second "deny" would silently replace the first.
    await writeAtomic(
      path,
      '{\n  "deny": ["write:**"],\n  "deny": []\n}\n',
    );
    await until("the refusal", () => logged.some((l) => l.includes("Dup")));
    assert.deepEqual(logged, [
      `${path}:3:3: Duplicate key "deny" (first at line 2, column 3): most readers silently keep only the last value (keeping the last good policy)`,
    ]);
    assert.equal(
      source.current().policy.evaluate(["write:a"]).decision,
      "deny",
    );
  } finally {
    await source.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("parsePolicyText() places a wrong record choice at its line:column", () => {
  assert.equal(
    located("allow: [read:**]\nrecord:\n  run_command: yes\n", "yaml"),
    '3:3: record.run_command: expected "patterns" (recorded whole) or "digests", got "yes"',
  );
});

/** Resolves once fresh()'s bound has passed since now (the contract under test). */
function pastTheBound(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, CHECK_EVERY_MS + 1));
}

Deno.test("watchPolicy() fresh(): calls within the bound share one check and wait for its reload", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/p.yaml`;
  await Deno.writeTextFile(path, "unprobed: allow\n");
  const source = await watchPolicy(path, {
    unprobed: "ask",
    tools: new Map(),
    log: () => {},
    debounceMs: 60_000,
  });
  try {
    await Deno.writeTextFile(path, "unprobed: deny \n");
    await pastTheBound();
    // A burst: the first begins the check, the others share it, and every
    // one is decided by the file as saved.
    const burst = await Promise.all(
      Array.from({ length: 20 }, () => source.fresh()),
    );
    assert.deepEqual(
      burst.map((inForce) => inForce.unprobed),
      Array(20).fill("deny"),
    );
  } finally {
    await source.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("watchPolicy() freshNow() answers without a wait only what fresh() would: never the policy before a save the bound before", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/p.yaml`;
  await Deno.writeTextFile(path, "unprobed: allow\n");
  const source = await watchPolicy(path, {
    unprobed: "ask",
    tools: new Map(),
    log: () => {},
    // The watcher alone would not read the file within this test.
    debounceMs: 60_000,
  });
  try {
    // A stat vouches for the bytes once the file is older than the racy
    // window (50 ms with fine mtimes, 2 s with whole seconds).
    await new Promise((resolve) => setTimeout(resolve, 2100));
    assert.equal((await source.fresh()).unprobed, "allow");
    await pastTheBound();
    assert.equal(source.freshNow?.()?.unprobed, "allow");
    // Saved in place, the same size: the stat differs, so freshNow()
    // leaves the call to fresh(), which reads the save.
    await Deno.writeTextFile(path, "unprobed: deny \n");
    await pastTheBound();
    assert.equal(source.freshNow?.(), undefined);
    assert.equal((await source.fresh()).unprobed, "deny");
    // From now on the save's policy, or a wait (the save is racy still).
    for (let i = 0; i < 3; i++) {
      await pastTheBound();
      assert.notEqual(source.freshNow?.()?.unprobed, "allow");
      assert.equal((await source.fresh()).unprobed, "deny");
    }
  } finally {
    await source.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a server's or a caller's view answers freshNow() when the source can, with its own policy", () => {
  const file = parseGatePolicy({
    unprobed: "allow",
    servers: { a: { command: ["srv"], unprobed: "deny" } },
  });
  const defaults = { unprobed: "ask" as const, tools: new Map() };
  const whole: PolicyInForce = { ...policyInForce(file, defaults), file };
  let vouched = true;
  const source: PolicySource = {
    current: () => whole,
    fresh: () => Promise.resolve(whole),
    freshNow: () => vouched ? whole : undefined,
    close: () => Promise.resolve(),
  };
  const views = [
    serverPolicy(source, "a", defaults),
    callerPolicySource(source, undefined, { server: "a", defaults }),
  ];
  for (const view of views) {
    assert.equal(view.freshNow?.()?.unprobed, "deny");
    assert.equal(view.freshNow?.(), view.current());
  }
  // A source that cannot vouch for its file leaves the call to fresh().
  vouched = false;
  for (const view of views) assert.equal(view.freshNow?.(), undefined);
});
