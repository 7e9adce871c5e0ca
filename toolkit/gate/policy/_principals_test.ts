import assert from "node:assert/strict";
import { claimsOf } from "./_claims.ts";
import { callerPolicy, matchingPrincipals } from "./_caller_policy.ts";
import { isApprover } from "./_principals.ts";
import { FlowSession } from "./_flows.ts";
import { probedVerdict } from "./_decide.ts";
import { parsePolicyText } from "./_policy_source.ts";
import { missingScopes, requiredScopes, scopeChallenge } from "./_scopes.ts";
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

const caller = (sub: string, groups: string[] = [], scope: string[] = []) =>
  claimsOf({ subject: sub, scopes: scope, claims: { sub, groups } });

const ISSUE_EXAMPLE = {
  allow: ["read:**"],
  deny: ["delete:**"],
  unprobed: "deny",
  principals: [
    { match: { groups: ["admins"] }, allow: ["write:**"] },
    {
      match: { sub: ["alice"] },
      allow: ["write:home/alice/**"],
      deny: ["exec:**"],
    },
  ],
  approvers: { groups: ["security"] },
};

Deno.test("two callers get different decisions for the same call", () => {
  const file = parseGatePolicy(ISSUE_EXAMPLE);
  const decide = (who: ReturnType<typeof caller>, pattern: string) =>
    callerPolicy(file, who).policy.evaluate([pattern]).decision;
  const alice = caller("alice");
  const admin = caller("root", ["admins"]);
  const bob = caller("bob", ["dev"]);
  assert.equal(decide(alice, "write:home/alice/notes.md"), "allow");
  assert.equal(decide(bob, "write:home/alice/notes.md"), "ask");
  assert.equal(decide(admin, "write:etc/passwd"), "allow");
  assert.equal(decide(alice, "write:etc/passwd"), "ask");
  assert.equal(decide(alice, "exec:ls"), "deny");
  assert.equal(decide(admin, "exec:ls"), "ask");
  // The base's deny beats a principal's allow.
  assert.equal(decide(admin, "delete:a"), "deny");
  // No token: the base policy alone.
  assert.equal(callerPolicy(file, undefined), file);
  assert.equal(decide(undefined, "write:home/alice/x"), "ask");
});

Deno.test("every matching principal adds, in the order written", async (t) => {
  const file = parseGatePolicy({
    ask: ["net:**"],
    tools: { search: "allow", run_shell: "deny" },
    annotations: { readOnly: "allow" },
    scopes: { "write_*": ["files:write"] },
    principals: [
      {
        match: { groups: ["dev"] },
        allow: ["write:src/**"],
        tools: { run_shell: "ask", "git_*": "allow" },
        unprobed: "ask",
        scopes: { "write_*": ["audit"] },
      },
      {
        match: { sub: ["carol"] },
        deny: ["write:src/secret/**"],
        tools: { run_shell: "deny" },
        unprobed: "deny",
        annotations: { destructive: "ask" },
      },
    ],
  });
  const carol = callerPolicy(file, caller("carol", ["dev"]));
  await t.step("lists follow the base's, principal by principal", () => {
    assert.deepEqual(carol.rules, {
      allow: ["write:src/**"],
      ask: ["net:**"],
      deny: ["write:src/secret/**"],
    });
    assert.equal(carol.policy.evaluate(["write:src/a"]).decision, "allow");
    assert.equal(
      carol.policy.evaluate(["write:src/secret/k"]).decision,
      "deny",
    );
  });
  await t.step("tools join, a later one replacing the same name", () => {
    assert.deepEqual([...carol.tools!], [
      ["search", "allow"],
      ["run_shell", "deny"],
      ["git_*", "allow"],
    ]);
    const dev = callerPolicy(file, caller("dave", ["dev"]));
    assert.equal(dev.tools?.get("run_shell"), "ask");
  });
  await t.step("unprobed is the last matching one's, annotations join", () => {
    assert.equal(carol.unprobed, "deny");
    assert.deepEqual(carol.annotations, {
      readOnly: "allow",
      destructive: "ask",
    });
  });
  await t.step("scopes of the same tool add up", () => {
    assert.deepEqual(requiredScopes(carol.scopes, "write_file"), [
      "files:write",
      "audit",
    ]);
    assert.deepEqual(requiredScopes(file.scopes, "write_file"), [
      "files:write",
    ]);
  });
  await t.step("matchingPrincipals() names them in order", () => {
    assert.deepEqual(
      matchingPrincipals(file, caller("carol", ["dev"])).map((p) => p.name),
      ["principals[0]", "principals[1]"],
    );
    assert.deepEqual(
      matchingPrincipals(file, caller("carol")).map((p) => p.name),
      [
        "principals[1]",
      ],
    );
  });
});

Deno.test("a principal's entry for a tool named like an Object property is kept", () => {
  const file = parseGatePolicy(JSON.parse(`{
    "tools": { "constructor": "allow" },
    "scopes": { "other": ["x"] },
    "principals": [{
      "match": { "sub": ["mallory"] },
      "tools": { "__proto__": "deny", "constructor": "deny" },
      "scopes": { "__proto__": ["admin"] }
    }]
  }`));
  const view = callerPolicy(file, caller("mallory"));
  assert.equal(view.tools?.get("__proto__"), "deny");
  assert.equal(view.tools?.get("constructor"), "deny");
  assert.deepEqual(requiredScopes(view.scopes, "__proto__"), ["admin"]);
});

Deno.test("a caller's policy is built once per version of the file and set of principals", () => {
  const file = parseGatePolicy(ISSUE_EXAMPLE);
  const first = callerPolicy(file, caller("alice"));
  assert.notEqual(first, file);
  // Another token of the same set: the same object, not a rebuilt one.
  assert.equal(callerPolicy(file, caller("alice", ["dev"])), first);
  const both = callerPolicy(file, caller("alice", ["admins"]));
  assert.notEqual(both, first);
  assert.equal(callerPolicy(file, caller("alice", ["admins"])), both);
  assert.equal(callerPolicy(file, caller("bob", ["dev"])), file);
  // A new version of the file: new views.
  const next = parseGatePolicy(ISSUE_EXAMPLE);
  assert.notEqual(callerPolicy(next, caller("alice")), first);
});

Deno.test("callerPolicy() refuses a copy of a checked file rather than drop its principals' rules", () => {
  const file = parseGatePolicy(ISSUE_EXAMPLE);
  const copy = { ...file };
  assert.throws(
    () => callerPolicy(copy, caller("alice")),
    (error: Error) =>
      error instanceof TypeError &&
      /not checked by parseGatePolicy/.test(error.message),
  );
  // A copy without principals has nothing to drop.
  const plain = { ...parseGatePolicy({ allow: ["read:**"] }) };
  assert.equal(callerPolicy(plain, caller("alice")), plain);
});

Deno.test("with servers:, each server's policy gets the matching principals' rules", () => {
  const file = parseGatePolicy({
    allow: ["read:**"],
    flows: [{ after: ["read:secrets/**"], deny: ["net:**"] }],
    servers: {
      files: { command: ["node", "fs.js"], deny: ["write:etc/**"] },
      web: {
        url: "https://mcp.example.com/mcp",
        unprobed: "allow",
        tools: { fetch: "ask" },
      },
    },
    principals: [{
      match: { groups: ["admins"] },
      allow: ["write:**"],
      tools: { fetch: "allow" },
    }],
  });
  const admin = caller("root", ["admins"]);
  const files = callerPolicy(file, admin, "files");
  assert.deepEqual(files.rules, {
    allow: ["read:**", "write:**"],
    ask: [],
    deny: ["write:etc/**"],
  });
  assert.equal(files.policy.evaluate(["write:etc/x"]).decision, "deny");
  assert.equal(files.policy.evaluate(["write:a"]).decision, "allow");
  assert.equal(files.flows, file.flows);
  const web = callerPolicy(file, admin, "web");
  assert.equal(web.unprobed, "allow");
  assert.equal(web.tools?.get("fetch"), "allow");
  assert.equal(web.flows, file.flows);
  // Callers no principal matches decide by the server's own policy.
  assert.equal(
    callerPolicy(file, caller("bob"), "web"),
    file.servers?.get("web")?.policy,
  );
  // A server the file no longer has: the top level with the principals.
  assert.deepEqual(callerPolicy(file, admin, "gone").rules.allow, [
    "read:**",
    "write:**",
  ]);
  assert.equal(callerPolicy(file, admin, "files"), files);
});

Deno.test("parseGatePolicy() names the wrong field of a principal where it is written", async (t) => {
  await t.step("not a list, not an object", () => {
    assert.deepEqual(problemOf({ principals: {} }).path, ["principals"]);
    assert.deepEqual(problemOf({ principals: ["admins"] }).path, [
      "principals",
      0,
    ]);
  });
  await t.step("no match, an unknown key, a key only the top level has", () => {
    assert.deepEqual(problemOf({ principals: [{ allow: ["read:**"] }] }).path, [
      "principals",
      0,
      "match",
    ]);
    assert.deepEqual(
      problemOf({ principals: [{ match: { sub: ["a"] }, alow: [] }] }).path,
      ["principals", 0, "alow"],
    );
    assert.deepEqual(
      problemOf({ principals: [{ match: { sub: ["a"] }, roots: ["/w"] }] })
        .path,
      ["principals", 0, "roots"],
    );
  });
  await t.step("a bad rule, by its index in the principal's own list", () => {
    const error = problemOf({
      allow: ["read:**", "write:a"],
      principals: [
        { match: { sub: ["a"] }, allow: ["write:b"] },
        { match: { sub: ["b"] }, allow: ["write:c", "WRITE:d"] },
      ],
    });
    assert.deepEqual(error.path, ["principals", 1, "allow", 1]);
    assert.match(error.message, /^principals\[1\]\.allow\[1\]: unknown verb/);
    assert.equal(error.column, 1);
  });
  await t.step("a list that is not a list", () => {
    assert.deepEqual(
      problemOf({
        deny: ["exec:**"],
        principals: [{ match: { sub: ["a"] }, deny: "net:**" }],
      }).path,
      ["principals", 0, "deny"],
    );
  });
  await t.step("a bad tools entry, unprobed, annotations, scopes", () => {
    assert.deepEqual(
      problemOf({
        tools: { search: "allow" },
        principals: [{ match: { sub: ["a"] }, tools: { run: "maybe" } }],
      }).path,
      ["principals", 0, "tools", "run"],
    );
    assert.deepEqual(
      problemOf({ principals: [{ match: { sub: ["a"] }, unprobed: "yes" }] })
        .path,
      ["principals", 0, "unprobed"],
    );
    assert.deepEqual(
      problemOf({
        principals: [{
          match: { sub: ["a"] },
          annotations: { hidden: "deny" },
        }],
      }).path,
      ["principals", 0, "annotations", "hidden"],
    );
    assert.deepEqual(
      problemOf({
        principals: [{ match: { sub: ["a"] }, scopes: { w: ["a b"] } }],
      }).path,
      ["principals", 0, "scopes", "w", 0],
    );
  });
  await t.step(
    "a file template without roots, at the top or in a server",
    () => {
      const template = { write_file: { patterns: ["write:{path}"] } };
      assert.deepEqual(
        problemOf({ principals: [{ match: { sub: ["a"] }, tools: template }] })
          .path,
        ["principals", 0, "tools", "write_file", "patterns", 0],
      );
      // Good against a server with roots, wrong against the top level without.
      assert.deepEqual(
        problemOf({
          servers: { files: { command: ["fs"], roots: ["/work"] } },
          principals: [{ match: { sub: ["a"] }, tools: template }],
        }).path,
        ["principals", 0, "tools", "write_file", "patterns", 0],
      );
      assert.ok(
        parseGatePolicy({
          roots: ["/work"],
          principals: [{ match: { sub: ["a"] }, tools: template }],
        }).principals,
      );
    },
  );
  await t.step("principals in a server's entry", () => {
    assert.deepEqual(
      problemOf({
        servers: {
          files: {
            command: ["fs"],
            principals: [{ match: { sub: ["a"] } }],
          },
        },
      }).path,
      ["servers", "files", "principals"],
    );
  });
});

Deno.test("approvers: either a listed sub or a listed group may approve", async (t) => {
  const { approvers } = parseGatePolicy({
    approvers: { sub: ["bob"], groups: ["security", "leads"] },
  });
  await t.step("by sub or by group", () => {
    assert.ok(isApprover(approvers, caller("bob")));
    assert.ok(isApprover(approvers, caller("eve", ["dev", "leads"])));
    assert.ok(!isApprover(approvers, caller("eve", ["dev"])));
  });
  await t.step("nobody without approvers or without a token", () => {
    assert.ok(!isApprover(undefined, caller("bob", ["security"])));
    assert.ok(!isApprover(approvers, undefined));
  });
  await t.step("a client's token with no sub, a group spelt alike", () => {
    const client = claimsOf({ clientId: "bob", scopes: [], claims: {} });
    assert.ok(!isApprover(approvers, client));
    assert.ok(!isApprover(approvers, caller("x", ["Security"])));
  });
  await t.step("wrong fields", () => {
    assert.deepEqual(problemOf({ approvers: ["bob"] }).path, ["approvers"]);
    assert.deepEqual(problemOf({ approvers: {} }).path, ["approvers"]);
    assert.deepEqual(problemOf({ approvers: { scope: ["x"] } }).path, [
      "approvers",
      "scope",
    ]);
    assert.deepEqual(problemOf({ approvers: { sub: "bob" } }).path, [
      "approvers",
      "sub",
    ]);
  });
  await t.step("selfApproval: true or false, and only beside approvers", () => {
    const four = parseGatePolicy({
      approvers: { groups: ["security"], selfApproval: false },
    }).approvers;
    assert.deepEqual(four, { groups: ["security"], selfApproval: false });
    assert.ok(isApprover(four, caller("eve", ["security"])));
    assert.equal(approvers?.selfApproval, undefined);
    const notBoolean = problemOf({
      approvers: { groups: ["security"], selfApproval: "no" },
    });
    assert.deepEqual(notBoolean.path, ["approvers", "selfApproval"]);
    assert.match(notBoolean.message, /expected true or false .*got string/);
    const misspelt = problemOf({
      approvers: { groups: ["security"], selfApprove: false },
    });
    assert.deepEqual(misspelt.path, ["approvers", "selfApprove"]);
    assert.match(
      misspelt.message,
      /unknown key: expected sub, groups or selfApproval/,
    );
    assert.deepEqual(
      problemOf({ approvers: { selfApproval: false } }).path,
      ["approvers"],
    );
  });
});

Deno.test("the identities example in docs/gate.md does what the page says", async () => {
  const page = await Deno.readTextFile(
    new URL("../../../docs/gate.md", import.meta.url),
  );
  const block = /```yaml\n(# identities\.yaml\n[\s\S]*?)```/.exec(page);
  assert.ok(block !== null, "docs/gate.md has no identities.yaml block");
  const file = parsePolicyText(block[1], "yaml");
  const decide = (who: ReturnType<typeof caller>, pattern: string) =>
    callerPolicy(file, who).policy.evaluate([pattern]).decision;
  const alice = caller("alice");
  const admin = caller("root", ["admins"]);
  assert.equal(decide(alice, "write:home/alice/a.md"), "allow");
  assert.equal(decide(alice, "exec:ls"), "deny");
  assert.equal(decide(admin, "write:etc/x"), "allow");
  assert.equal(decide(admin, "delete:etc/x"), "deny");
  assert.equal(decide(caller("bob"), "write:home/alice/a.md"), "ask");
  assert.ok(isApprover(file.approvers, caller("eve", ["security"])));
  assert.deepEqual(
    missingScopes(callerPolicy(file, alice).scopes, "deploy_site", alice),
    ["deploy"],
  );
  const quoted = /`(WWW-Authenticate: Bearer error="insufficient_scope"[^`]*)`/
    .exec(page);
  assert.ok(quoted !== null);
  assert.equal(
    `WWW-Authenticate: ${
      scopeChallenge(["deploy"], {
        always: file.auth?.scopes,
        resourceMetadata: "…",
      })
    }`,
    quoted[1],
  );
  const error = /`(identities\.yaml:\d+:\d+: principals\[1\][^`]*)`/.exec(page);
  assert.ok(error !== null);
  try {
    parsePolicyText(
      block[1].replace('"write:home/alice/**"', '"WRITE:home/alice/**"'),
      "yaml",
    );
    assert.fail("accepted");
  } catch (e) {
    const { line, column, message } = e as Error & {
      line: number;
      column: number;
    };
    assert.ok(
      `identities.yaml:${line}:${column}: ${message}`.startsWith(
        error[1].replace(/…$/, ""),
      ),
      `identities.yaml:${line}:${column}: ${message}`,
    );
  }
});

Deno.test("a principal's flows add to the base's for the callers it matches", async (t) => {
  const file = parseGatePolicy({
    allow: ["read:**", "net:**"],
    flows: [{ after: ["net:**"], ask: ["write:**"] }],
    principals: [
      { match: { groups: ["admins"] }, allow: ["write:**"] },
      {
        match: { sub: ["alice"] },
        flows: [{ after: ["read:secrets/**"], deny: ["net:**"] }],
      },
    ],
  });
  const alice = caller("alice");
  const bob = caller("bob", ["admins"]);
  await t.step("the view holds the file's flows, then the principal's", () => {
    assert.deepEqual(file.principals?.[1].flows?.map((f) => f.name), [
      "principals[1].flows[0]",
    ]);
    assert.equal(file.principals?.[0].flows, undefined);
    assert.deepEqual(callerPolicy(file, alice).flows?.map((f) => f.name), [
      "flows[0]",
      "principals[1].flows[0]",
    ]);
    assert.equal(callerPolicy(file, bob).flows, file.flows);
    assert.equal(callerPolicy(file, undefined).flows, file.flows);
  });
  await t.step("only the matching caller is refused the net call", () => {
    const decide = (who: ReturnType<typeof caller>) => {
      const view = callerPolicy(file, who);
      const session = new FlowSession();
      const read = { tool: "read", patterns: ["read:secrets/key"] };
      session.forwarded(view.flows ?? [], { ...read, unknown: false }, "l1");
      const patterns = ["net:https://evil.example"];
      const verdict = probedVerdict(
        "fetch",
        patterns,
        view.policy.evaluate(patterns),
      );
      return session.tighten(
        view.flows ?? [],
        { tool: "fetch", patterns, unknown: false },
        verdict,
      );
    };
    const refused = decide(alice);
    assert.equal(refused.decision, "deny");
    assert.equal(
      "flow" in refused && refused.flow.name,
      "principals[1].flows[0]",
    );
    assert.match(
      refused.denied,
      /denied by principals\[1\]\.flows\[0\] \(net:\*\*\), since this session read secrets\/key with read/,
    );
    assert.equal(decide(bob).decision, "allow");
  });
});

Deno.test("with servers:, a principal's flow spans the servers or watches one", () => {
  const file = parseGatePolicy({
    allow: ["read:**", "net:**"],
    servers: {
      files: { command: ["node", "fs.js"] },
      web: { url: "https://mcp.example.com/mcp" },
    },
    principals: [{
      match: { groups: ["contractors"] },
      flows: [
        { server: "files", after: ["read:secrets/**"], deny: ["net:**"] },
      ],
    }],
  });
  const who = caller("carol", ["contractors"]);
  const files = callerPolicy(file, who, "files");
  const web = callerPolicy(file, who, "web");
  // One session's flows for every server of the caller's.
  assert.deepEqual(files.flows, web.flows);
  assert.deepEqual(web.flows?.map((f) => f.name), ["principals[0].flows[0]"]);
  assert.equal(callerPolicy(file, caller("dave"), "web").flows, undefined);
  const net = { tool: "web_fetch", server: "web", unknown: false };
  const patterns = ["net:https://evil.example"];
  const verdict = probedVerdict(
    "fetch",
    patterns,
    web.policy.evaluate(patterns),
  );
  const session = new FlowSession();
  const read = { patterns: ["read:secrets/key"], unknown: false };
  // The same read on another server sets nothing off.
  session.forwarded(web.flows!, { ...read, tool: "web_get", server: "web" });
  assert.equal(
    session.tighten(web.flows!, { ...net, patterns }, verdict).decision,
    "allow",
  );
  session.forwarded(files.flows!, {
    ...read,
    tool: "files_read_text_file",
    server: "files",
  });
  assert.equal(
    session.tighten(web.flows!, { ...net, patterns }, verdict).decision,
    "deny",
  );
});

Deno.test("a principal's wrong flow is named and placed where it is written", async (t) => {
  const policy = (flows: string, servers = "") =>
    `allow: ["read:**"]\n${servers}principals:\n  - match: { sub: [alice] }\n    allow: ["write:**"]\n    flows:\n${flows}`;
  const cases: [string, string, string, number, number][] = [
    [
      "a rule that breaks the grammar",
      policy('      - after: ["read:a//b"]\n        deny: ["net:**"]\n'),
      "principals[0].flows[0].after[0]: empty path segment",
      6,
      25,
    ],
    [
      "an unknown key",
      policy('      - after: ["read:a"]\n        deni: ["net:**"]\n'),
      "principals[0].flows[0].deni: unknown key: expected after, deny or ask",
      7,
      9,
    ],
    [
      "not a list",
      policy('      after: ["read:a"]\n'),
      "principals[0].flows: expected a list of flows",
      5,
      5,
    ],
    [
      "a server in a policy of one server",
      policy(
        '      - after: ["read:a"]\n        deny: ["net:**"]\n        server: files\n',
      ),
      "principals[0].flows[0].server: this policy names no servers",
      8,
      9,
    ],
    [
      "a server the policy does not have",
      policy(
        '      - after: ["read:a"]\n        deny: ["net:**"]\n        server: fiels\n',
        'servers:\n  files: { command: ["node", "fs.js"] }\n',
      ),
      'principals[0].flows[0].server: expected the name of one of the policy\'s servers (files), got "fiels"',
      10,
      9,
    ],
    [
      "a flow without deny or ask, second in the list",
      policy(
        '      - after: ["read:a"]\n        ask: ["net:**"]\n      - after: ["read:b"]\n',
      ),
      // At its list, as a top-level flow's is.
      "principals[0].flows[1]: a flow without deny or ask",
      5,
      5,
    ],
  ];
  for (const [what, text, message, line, column] of cases) {
    await t.step(what, () => {
      assert.throws(
        () => parsePolicyText(text, "yaml"),
        (error: Error & { line: number; column: number }) => {
          assert.ok(error.message.startsWith(message), error.message);
          assert.deepEqual([error.line, error.column], [line, column]);
          return true;
        },
      );
    });
  }
});
